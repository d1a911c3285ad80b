package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/sql"
)

// mlRun is one query through a magmalake session as a client's runs:
// Prepare, Execute, every row drained and printed as PostgreSQL text (the
// wire layer's own formatting, so the answer compares with PostgreSQL's).
func mlRun(ctx context.Context, s *session.Session, q string) ([][]cell, error) {
	prep, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return nil, fmt.Errorf("magmalake: %s: %w", q, err)
	}
	res, err := s.Execute(ctx, prep, nil)
	if err != nil {
		return nil, fmt.Errorf("magmalake: %s: %w", q, err)
	}
	if res.Rows == nil {
		return nil, fmt.Errorf("magmalake: %s: no rows (tag %q)", q, res.Tag)
	}
	defer res.Rows.Close()
	var rows [][]cell
	var buf []byte
	for {
		batch, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("magmalake: %s: %w", q, err)
		}
		for i := range int(batch.NumRows()) {
			r := make([]cell, batch.NumCols())
			for j := range r {
				col := batch.Column(j)
				if col.IsNull(i) {
					r[j] = cell{null: true}
					continue
				}
				buf = sql.AppendText(buf[:0], res.Columns[j].Type, col, i)
				r[j] = cell{text: string(buf)}
			}
			rows = append(rows, r)
		}
	}
}

// mlExplain is EXPLAIN ANALYZE's plan, one line per row.
func mlExplain(ctx context.Context, s *session.Session, q string) ([]string, error) {
	rows, err := mlRun(ctx, s, "EXPLAIN ANALYZE "+q)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = r[0].text
	}
	return lines, nil
}

// readBytes is the bytes this process has read through read-like system
// calls (/proc/self/io rchar), page cache hits included: around a query it
// tells how much of the data files the engine read. 0 where there is no
// /proc.
func readBytes() int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
