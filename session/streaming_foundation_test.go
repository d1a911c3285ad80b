package session

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/stmt"
)

// TestSelectStreams checks which SELECTs stream batch by batch from the scan
// (streamRows, holding one batch) and which materialise (batchRows): only
// sorting and grouping may hold the table (DISTINCT streams the rows of
// the values it holds, then those it spilled).
func TestSelectStreams(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE wide (k bigint, v text)")
	const files, perFile = 6, 500
	for f := range files {
		var vals []string
		for i := range perFile {
			k := f*perFile + i
			vals = append(vals, fmt.Sprintf("(%d, 'v%d')", k, k))
		}
		mustQuery(t, s, "INSERT INTO wide VALUES "+strings.Join(vals, ", "))
	}
	cases := []struct {
		q         string
		streaming bool
		rows      int
	}{
		{"SELECT * FROM wide", true, files * perFile},
		{"SELECT k + 1, upper(v) FROM wide WHERE k % 3 = 0", true, files * perFile / 3},
		{"SELECT k FROM wide LIMIT 10 OFFSET 5", true, 10},
		{"SELECT k FROM wide ORDER BY k DESC LIMIT 10", false, 10},
		{"SELECT k % 7, count(*) FROM wide GROUP BY 1", false, 7},
		{"SELECT count(*) FROM wide", false, 1},
		{"SELECT DISTINCT k % 5 FROM wide", true, 5},
	}
	for _, c := range cases {
		p, err := s.Prepare(t.Context(), c.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Execute(t.Context(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, isStream := innerRows(res.Rows).(interface{ Streaming() })
		if isStream != c.streaming {
			t.Errorf("%s: Rows is %T, streaming want %v", c.q, res.Rows, c.streaming)
		}
		n, batches := 0, 0
		for {
			b, err := res.Rows.Next(t.Context())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n += int(b.NumRows())
			batches++
		}
		res.Rows.Close()
		if n != c.rows || res.Rows.Tag() != fmt.Sprintf("SELECT %d", c.rows) {
			t.Errorf("%s: %d rows, tag %q, want %d", c.q, n, res.Rows.Tag(), c.rows)
		}
		if c.streaming && c.rows == files*perFile && batches < files {
			t.Errorf("%s: %d batches for %d data files: the scan was not passed through batch by batch", c.q, batches, files)
		}
	}
}

// innerRows is the engine's rows under the session's wrappers (deadline,
// holds, progress).
func innerRows(r stmt.Rows) stmt.Rows {
	for {
		switch w := r.(type) {
		case *statementRows:
			r = w.Rows
		case *heldRows:
			r = w.Rows
		case *progressRows:
			r = w.Rows
		case *planRows:
			r = w.Rows
		default:
			return r
		}
	}
}
