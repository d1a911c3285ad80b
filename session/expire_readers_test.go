package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// readersTable makes t of 8 files of 2,000 rows (ids 1..16000): a reader
// that has read the first batch still has files to open.
func readersTable(t *testing.T, s *Session) []string {
	t.Helper()
	mustQuery(t, s, "CREATE TABLE t (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	for f := 0; f < 8; f++ {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO t SELECT g FROM generate_series(%d, %d) g", f*2000+1, f*2000+2000))
	}
	ids := make([]string, 16000)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return ids
}

// rewriteAndExpire is the other session's part: delete half the rows,
// rewrite every file, expire every snapshot but the current one.
func rewriteAndExpire(t *testing.T, s *Session) {
	t.Helper()
	mustQuery(t, s, "DELETE FROM t WHERE id % 2 = 0")
	mustQuery(t, s, "ALTER TABLE t EXECUTE optimize(delete_ratio_threshold => 0.0)")
	mustQuery(t, s, "ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
}

// TestExpiryKeepsWhatReadersRead: an explicit expire_snapshots with no
// retention after a rewrite of every file keeps the files an open cursor,
// a held cursor past its block and a query half read still read; each
// reads the snapshot it started on to the end, and once they close, a
// second expiry removes those snapshots.
func TestExpiryKeepsWhatReadersRead(t *testing.T) {
	cases := []struct {
		name  string
		start func(t *testing.T, s *Session) (first []string, rest func() []string)
	}{
		{"cursor in a block", func(t *testing.T, s *Session) ([]string, func() []string) {
			mustQuery(t, s, "BEGIN")
			mustQuery(t, s, "DECLARE c CURSOR FOR SELECT id FROM t")
			first := column(mustQuery(t, s, "FETCH 1000 FROM c"))
			return first, func() []string {
				rest := column(mustQuery(t, s, "FETCH ALL FROM c"))
				mustQuery(t, s, "COMMIT")
				return rest
			}
		}},
		{"held cursor after its block", func(t *testing.T, s *Session) ([]string, func() []string) {
			mustQuery(t, s, "BEGIN")
			mustQuery(t, s, "DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t")
			first := column(mustQuery(t, s, "FETCH 1000 FROM h"))
			mustQuery(t, s, "COMMIT")
			return first, func() []string {
				rest := column(mustQuery(t, s, "FETCH ALL FROM h"))
				mustQuery(t, s, "CLOSE h")
				return rest
			}
		}},
		{"query half read", func(t *testing.T, s *Session) ([]string, func() []string) {
			return startQuery(t, s, "SELECT id FROM t")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := testEngine(t, t.TempDir())
			s, other := testSessionOn(t, eng), testSessionOn(t, eng)
			want := readersTable(t, s)
			first, rest := c.start(t, s)
			rewriteAndExpire(t, other)
			got := append(first, rest()...)
			if joinRows(sortedColumn(got)) != joinRows(sortedColumn(want)) {
				t.Fatalf("the reader read %d rows, want the %d of its snapshot", len(got), len(want))
			}
			if n := mustQuery(t, other, `SELECT count(*) FROM "t$snapshots"`).rows[0][0]; n == "1" {
				t.Fatal("the expiry kept nothing for the reader: the test checks nothing")
			}
			mustQuery(t, other, "ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
			if n := mustQuery(t, other, `SELECT count(*) FROM "t$snapshots"`).rows[0][0]; n != "1" {
				t.Fatalf("%s snapshots after the reader closed, want 1", n)
			}
			if n := mustQuery(t, other, "SELECT count(*) FROM t").rows[0][0]; n != "8000" {
				t.Fatalf("%s rows after the expiry, want 8000", n)
			}
		})
	}
}

// TestExpiryKeepsTimeTravel: a query reading an old snapshot (FOR VERSION
// AS OF) half read keeps it through an expiry of everything older than the
// current snapshot.
func TestExpiryKeepsTimeTravel(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	want := readersTable(t, s)
	old := mustQuery(t, s, `SELECT snapshot_id FROM "t$snapshots" ORDER BY committed_at DESC LIMIT 1`).rows[0][0]
	mustQuery(t, other, "DELETE FROM t WHERE id % 2 = 0")
	mustQuery(t, other, "ALTER TABLE t EXECUTE optimize(delete_ratio_threshold => 0.0)")
	first, rest := startQuery(t, s, "SELECT id FROM t FOR VERSION AS OF "+old)
	mustQuery(t, other, "ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
	got := append(first, rest()...)
	if joinRows(sortedColumn(got)) != joinRows(sortedColumn(want)) {
		t.Fatalf("the time-travel query read %d rows, want the %d of snapshot %s", len(got), len(want), old)
	}
}

// TestPurgeFailsReadersCleanly: VACUUM (PURGE) is erasure and expires what
// readers read too; a query half read then fails with 72000, and its
// message names no file.
func TestPurgeFailsReadersCleanly(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	readersTable(t, s)
	res := mustExecute(t, s, "SELECT id FROM t")
	defer res.Rows.Close()
	if _, err := res.Rows.Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, other, "DELETE FROM t WHERE id % 2 = 0")
	mustQuery(t, other, "VACUUM (PURGE) t")
	var err error
	for err == nil {
		_, err = res.Rows.Next(t.Context())
	}
	se := toSQLError(err)
	var e *pgerr.Error
	if !errors.As(se, &e) || e.Code != pgerr.SnapshotTooOld {
		t.Fatalf("reading on after the purge: %v, want 72000", err)
	}
	if strings.Contains(e.Message+e.Detail+e.Hint, "/") || strings.Contains(e.Message, "parquet") {
		t.Fatalf("the error names a file: %q / %q", e.Message, e.Detail)
	}
}

// startQuery executes q and reads its first batch; rest reads the others
// and closes the rows.
func startQuery(t *testing.T, s *Session, q string) (first []string, rest func() []string) {
	t.Helper()
	res := mustExecute(t, s, q)
	next := func() ([]string, bool) {
		b, err := res.Rows.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return nil, false
		}
		if err != nil {
			t.Fatalf("reading %q: %v", q, err)
		}
		var out []string
		for _, r := range fndBatch(b) {
			out = append(out, strings.TrimPrefix(r[0], "i:"))
		}
		return out, true
	}
	first, _ = next()
	return first, func() []string {
		defer res.Rows.Close()
		var out []string
		for b, ok := next(); ok; b, ok = next() {
			out = append(out, b...)
		}
		return out
	}
}

// mustExecute prepares and executes q, leaving its rows unread.
func mustExecute(t *testing.T, s *Session, q string) *stmt.Result {
	t.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func column(r *result) []string {
	out := make([]string, len(r.rows))
	for i, row := range r.rows {
		out[i] = row[0]
	}
	return out
}

func sortedColumn(col []string) [][]string {
	rows := make([][]string, len(col))
	for i, v := range col {
		rows[i] = []string{v}
	}
	return fndSorted(rows)
}
