package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

// labelled runs fn under pprof labels naming the contender, case, mode and
// table size (split a profile with -tagfocus=contender=magmalake,
// -tagfocus=case=partitioned/scattered) and returns the process CPU time
// it took.
func (c *mergeCase) labelled(ctx context.Context, contender string, m Mode, fn func(ctx context.Context)) time.Duration {
	labels := pprof.Labels("contender", contender, "case", string(c.tgt.layout)+"/"+c.ms.name,
		"mode", string(m), "rows", strconv.FormatInt(c.ms.shape.rows, 10))
	start := processCPU()
	pprof.Do(ctx, labels, fn)
	return processCPU() - start
}

// hideOtherPartitions moves away the data files of every partition but the
// case's one (they are the source table's, shared by every clone), so a
// MERGE that opened one would fail; restore puts them back.
func (c *mergeCase) hideOtherPartitions() (hidden int, restore func() error, err error) {
	var moved []string
	restore = func() error {
		var errs error
		for _, p := range moved {
			errs = errors.Join(errs, os.Rename(p+".hidden", p))
		}
		moved = nil
		return errs
	}
	for _, f := range c.tgt.files {
		if partitionOf(f.Partition()) == c.ms.onePart {
			continue
		}
		p := strings.TrimPrefix(f.FilePath(), "file://")
		if err := os.Rename(p, p+".hidden"); err != nil {
			return 0, restore, errors.Join(fmt.Errorf("hide other partitions: %w", err), restore())
		}
		moved = append(moved, p)
	}
	return len(moved), restore, nil
}

// partitionOf is the grp of a data file's identity(grp) partition tuple, -1
// for none.
func partitionOf(part map[int]any) int32 {
	for _, v := range part {
		if g, ok := v.(int32); ok {
			return g
		}
	}
	return -1
}

// explainFilter is the target filter EXPLAIN (planning only, nothing
// written) says the source's keys put on the target.
func (c *mergeCase) explainFilter(ctx context.Context, sess owSession, q string) (string, error) {
	out, err := sess.run(ctx, "EXPLAIN "+q)
	if err != nil {
		return "", err
	}
	for _, v := range out.first {
		line, _ := v.(string)
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "Target filter (from the source's keys): "); ok {
			return f, nil
		}
	}
	return "", fmt.Errorf("EXPLAIN %s: no target filter line in %v", q, out.first)
}

// verify reads the table back and its snapshot: every row there, the
// source's rows written with their new values, the matched rows' old
// versions gone, and (one partition) only that partition changed.
func (c *mergeCase) verify(ctx context.Context, sess owSession, ident table.Identifier, s *mergeSample) error {
	ms := c.ms
	q := fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE name = '%s'), count(*) FILTER (WHERE name = '%s' AND id < %d)",
		mergedName, mergedName, ms.shape.rows)
	want := []int64{ms.shape.rows + ms.inserts, ms.rows(), ms.updates}
	if ms.onePart >= 0 {
		q += fmt.Sprintf(", count(*) FILTER (WHERE grp = %d)", ms.onePart)
		want = append(want, ms.shape.partitionRows(ms.onePart)+ms.inserts)
	}
	q += " FROM " + owQualified(ident)
	got, err := sess.firstRow(ctx, q)
	if err != nil {
		return err
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("read-back %s = %v, model says %v", q, got, want)
	}
	return c.verifySnapshot(ctx, ident, s)
}

// verifySnapshot checks the MERGE's snapshots removed exactly the updated
// rows' old versions (rows removed or position-deleted, less the rows
// added besides the source's) and records the partitions it changed.
func (c *mergeCase) verifySnapshot(ctx context.Context, ident table.Identifier, s *mergeSample) error {
	tbl, err := c.r.ws.wh.LoadTable(ctx, ident)
	if err != nil {
		return err
	}
	removed, err := snapshotDeleted(tbl)
	if err != nil {
		return err
	}
	if removed+c.ms.rows() != c.ms.updates {
		return fmt.Errorf("snapshots removed %d rows net of the %d written, want the %d updated rows' old versions",
			removed+c.ms.rows(), c.ms.rows(), c.ms.updates)
	}
	sum := tbl.CurrentSnapshot().Summary
	if sum != nil {
		s.changedPartitions, _ = strconv.ParseInt(sum.Properties["changed-partition-count"], 10, 64)
	}
	if c.ms.onePart >= 0 && s.changedPartitions != 1 {
		return fmt.Errorf("snapshot changed %d partitions, want 1 (%v)", s.changedPartitions, sum)
	}
	return nil
}

// firstRow runs q and returns its single row of bigints.
func (b owSession) firstRow(ctx context.Context, q string) ([]int64, error) {
	prep, err := b.s.Prepare(ctx, q, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	res, err := b.s.Execute(ctx, prep, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	if res.Rows == nil {
		return nil, fmt.Errorf("%s: no rows (tag %q)", q, res.Tag)
	}
	defer res.Rows.Close()
	var out []int64
	for {
		batch, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		for i := range int(batch.NumRows()) {
			if out != nil {
				return nil, fmt.Errorf("%s: more than one row", q)
			}
			out = []int64{}
			for j := range int(batch.NumCols()) {
				v, ok := batch.Column(j).GetOneForMarshal(i).(int64)
				if !ok {
					return nil, fmt.Errorf("%s: column %d is %T, want a bigint", q, j+1, batch.Column(j).GetOneForMarshal(i))
				}
				out = append(out, v)
			}
		}
	}
	if out == nil {
		return nil, fmt.Errorf("%s: no row", q)
	}
	return out, nil
}
