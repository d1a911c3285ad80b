package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

// liveModel is what a case's table holds after its statements, known from
// the generated data alone.
type liveModel struct {
	rows, deleted, live int64
	idSum               int64 // sum of the live rows' ids: the row checksum
	perDelete           []int64
	selLo, selHi        int64 // the selective query's id range [lo, hi)
}

// newLiveModel is a table of rows ids 0..rows-1 after DELETEs k = 0 ..
// deletes-1; k is rowAt's, a hash of the id.
func newLiveModel(rows int64, deletes int) liveModel {
	m := liveModel{rows: rows, perDelete: make([]int64, deletes)}
	for i := range rows {
		if k := int(splitmix64(uint64(i)) % 100); k < deletes {
			m.perDelete[k]++
			m.deleted++
			continue
		}
		m.live++
		m.idSum += i
	}
	// A thousandth of the ids in the middle: one file of the generated
	// table and a row group or two of it; a couple of rows of the small one.
	m.selLo = rows / 2
	m.selHi = m.selLo + max(1, rows/1000)
	return m
}

// checkScan compares the full scan's count(*) and sum(id) with the model.
func (m liveModel) checkScan(answer string) error {
	cells := strings.SplitN(answer, "|", 3)
	if len(cells) < 2 || cells[0] != strconv.FormatInt(m.live, 10) || cells[1] != strconv.FormatInt(m.idSum, 10) {
		return fmt.Errorf("full scan answered %q, the model says count %d and sum(id) %d", answer, m.live, m.idSum)
	}
	return nil
}

// baseTable generates the delete cases' table once: the delete bench's
// rows, unpartitioned, one data file per chunk of ascending ids.
func (r *maintRunner) baseTable(ctx context.Context) (*source, error) {
	if r.base != nil {
		return r.base, nil
	}
	sh := newShape(r.cfg.Rows, r.cfg.Files)
	r.cfg.Progress(fmt.Sprintf("generating %d rows in %d files", sh.rows, sh.files))
	base, err := owGenerate(ctx, r.ws.wh, r.name("base"), Unpartitioned, sh)
	if err != nil {
		return nil, err
	}
	r.base = base
	return base, nil
}

// deletePair clones the generated table twice in mode m and runs the same
// DELETEs on both copies, each checked against the model.
func (r *maintRunner) deletePair(ctx context.Context, sess owSession, m Mode, res *MaintenanceResult) (maintPair, error) {
	base, err := r.baseTable(ctx)
	if err != nil {
		return maintPair{}, err
	}
	kind := strings.ReplaceAll(string(m), "-", "_")
	p := maintPair{model: newLiveModel(base.shape.rows, r.cfg.Deletes), version: 2}
	if m == MergeOnReadV3 {
		p.version = 3
	}
	if p.ours, err = base.cloneWith(ctx, r.ws.wh, r.name(kind+"_magmalake"), m.props()); err != nil {
		return p, err
	}
	if p.theirs, err = base.cloneWith(ctx, r.ws.wh, r.name(kind+"_icebergo"), m.props()); err != nil {
		return p, err
	}
	r.cfg.Progress(fmt.Sprintf("%s: %d DELETEs of 1%% on each copy", m, r.cfg.Deletes))
	for j, want := range p.model.perDelete {
		for _, id := range []table.Identifier{p.ours, p.theirs} {
			if err := runDelete(ctx, sess, id, j, want); err != nil {
				return p, err
			}
		}
	}
	res.Rows, res.RowsDeleted, res.LiveRows = p.model.rows, p.model.deleted, p.model.live
	return p, nil
}

// runDelete deletes the rows whose k is j and checks how many went.
func runDelete(ctx context.Context, sess owSession, id table.Identifier, j int, want int64) error {
	out, err := sess.run(ctx, fmt.Sprintf("DELETE FROM %s WHERE k = %d", owQualified(id), j))
	if err != nil {
		return err
	}
	n, err := deleteCount(out.tag)
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("DELETE k = %d on %s removed %d rows, the model says %d", j, owQualified(id), n, want)
	}
	return nil
}

// smallFilesPair makes two empty tables and INSERTs the same rows into
// each, one autocommit statement (one snapshot, one data file) per row.
func (r *maintRunner) smallFilesPair(ctx context.Context, sess owSession, res *MaintenanceResult) (maintPair, error) {
	n := int64(r.cfg.SmallInserts)
	p := maintPair{model: newLiveModel(n, 0), version: 2}
	var err error
	if p.ours, err = owCreateEmpty(ctx, r.ws.wh, r.name("small_magmalake"), Unpartitioned); err != nil {
		return p, err
	}
	if p.theirs, err = owCreateEmpty(ctx, r.ws.wh, r.name("small_icebergo"), Unpartitioned); err != nil {
		return p, err
	}
	sh := newShape(n, 1)
	for _, id := range []table.Identifier{p.ours, p.theirs} {
		r.cfg.Progress(fmt.Sprintf("%s: %d one-row INSERTs into %s", caseSmallFiles, n, owQualified(id)))
		for i := range n {
			out, err := sess.run(ctx, insertSQL(id, sh.rowAt(i)))
			if err != nil {
				return p, err
			}
			if out.tag != "INSERT 0 1" {
				return p, fmt.Errorf("INSERT of row %d into %s: tag %q", i, owQualified(id), out.tag)
			}
		}
	}
	res.Rows, res.LiveRows = n, n
	return p, nil
}

// insertSQL is a one-row INSERT of r with literal values.
func insertSQL(id table.Identifier, r row) string {
	amount, name := "NULL", "NULL"
	if r.amount != nil {
		amount = strconv.FormatFloat(*r.amount, 'f', -1, 64)
	}
	if r.name != nil {
		name = "'" + *r.name + "'"
	}
	ts := time.UnixMicro(r.ts).UTC().Format("2006-01-02 15:04:05.999999")
	return fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %d, %s, %d.%02d, %s, TIMESTAMP '%s', %t)",
		owQualified(id), r.id, r.k, r.grp, amount, r.price/100, r.price%100, name, ts, r.flag)
}

// files counts a table's live data and delete files as iceberg-go's scan
// planning sees them (a deletion vector counts once per data file it
// covers, as one Puffin blob).
func (r *maintRunner) files(ctx context.Context, id table.Identifier) (FileFigures, error) {
	var f FileFigures
	tbl, err := r.ws.wh.LoadTable(ctx, id)
	if err != nil {
		return f, err
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return f, fmt.Errorf("plan files of %s: %w", owQualified(id), err)
	}
	// A file larger than read.split.target-size is planned as several
	// tasks, one per range of row groups: count it once.
	data, dels := map[string]bool{}, map[string]bool{}
	for _, t := range tasks {
		if !data[t.File.FilePath()] {
			data[t.File.FilePath()] = true
			f.DataFiles++
			f.DataBytes += t.File.FileSizeBytes()
		}
		for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles) {
			key := d.FilePath()
			if off := d.ContentOffset(); off != nil {
				key += "@" + strconv.FormatInt(*off, 10)
			}
			dels[key] = true
		}
	}
	f.DeleteFiles = len(dels)
	return f, nil
}
