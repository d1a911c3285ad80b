package session

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// Autocommit DELETEs of different rows of one data file, waiting for the
// table's turn together, commit as ONE snapshot in every merge-on-read
// mode: their deletion vectors are merged by position (v3), their position
// delete files kept side by side (v2). A DELETE of a row another one of the
// group deletes is planned again after it and finds nothing. Every row
// named is gone, each exactly once, and iceberg-go's scan agrees.
func TestGroupCommitCombinesSameFile(t *testing.T) {
	for _, v := range []string{"2", "3"} {
		t.Run("v"+v, func(t *testing.T) {
			eng := testEngine(t, t.TempDir())
			s := testSessionOn(t, eng)
			mustQuery(t, s, "CREATE TABLE c (id int, v text) WITH ('format-version' = '"+v+"', 'write.delete.mode' = 'merge-on-read')")
			mustQuery(t, s, "INSERT INTO c SELECT g, 'v' || g FROM generate_series(0, 999) g") // one data file
			mustQuery(t, s, "DELETE FROM c WHERE id = 999")                                    // a vector to replace
			before := snapshotsOf(t, s, "c")
			targets := []int{10, 20, 30, 40, 50, 60, 70, 10} // the last deletes a row the first does
			counts := deleteWhileHeld(t, eng, "c", targets)
			if got := snapshotsOf(t, s, "c") - before; got != 1 {
				t.Errorf("%d DELETEs of one file made %d snapshots, want 1", len(targets), got)
			}
			if counts[0]+counts[len(counts)-1] != 1 {
				t.Errorf("the two DELETEs of id 10 deleted %d and %d rows, want 1 in all", counts[0], counts[len(counts)-1])
			}
			for i, n := range counts[1 : len(counts)-1] {
				if n != 1 {
					t.Errorf("DELETE of id %d deleted %d rows", targets[i+1], n)
				}
			}
			want := 0
			for id := range 999 {
				if id%10 != 0 || id > 70 || id == 0 {
					want += id
				}
			}
			got := mustQuery(t, s, "SELECT count(*), sum(id) FROM c").text()
			if w := fmt.Sprintf("%d|%d\n", 999-7, want); got != w {
				t.Fatalf("table holds %q, want %q", got, w)
			}
			if rows := fndIcebergRows(t, s, "public", "c"); len(rows) != 999-7 {
				t.Fatalf("iceberg-go reads %d rows, want %d", len(rows), 999-7)
			}
			// The vectors a combination superseded were removed with the
			// files of the statement planned again: nothing is orphaned.
			mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
			out := mustQuery(t, s, "ALTER TABLE c EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0]
			if out[0] != "0" {
				t.Errorf("the group left %s orphan files: %v", out[0], out)
			}
		})
	}
}

// deleteWhileHeld runs DELETE FROM name WHERE id = k for every target, each
// in its own session, with the table's commit turn held until all of them
// wait for it; it returns each statement's row count.
func deleteWhileHeld(t *testing.T, eng *Engine, name string, targets []int) []int {
	t.Helper()
	ctx := context.Background()
	ident := lake.Ident(lake.DefaultNamespace, name)
	release, err := eng.Warehouse().Commits().HoldCommits(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, id := range targets {
		s := testSessionOn(t, eng)
		wg.Go(func() {
			r, err := s.query(ctx, "DELETE FROM "+name+" WHERE id = "+strconv.Itoa(id))
			if errs[i] = err; err == nil {
				_, errs[i] = fmt.Sscanf(r.tag, "DELETE %d", &counts[i])
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for eng.Warehouse().Commits().CommitsWaiting(ident) < len(targets) && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("DELETE of id %d: %v", targets[i], err)
		}
	}
	return counts
}

func snapshotsOf(t *testing.T, s *Session, name string) int {
	t.Helper()
	n, err := strconv.Atoi(mustQuery(t, s, `SELECT count(*) FROM "`+name+`$snapshots"`).rows[0][0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// otherWriterFirst is a catalog on which another server commits just
// before this one's next commit, once armed.
type otherWriterFirst struct {
	catalog.Catalog
	armed atomic.Pointer[func()]
}

func (c *otherWriterFirst) CommitTable(ctx context.Context, ident table.Identifier, reqs []table.Requirement, upds []table.Update) (table.Metadata, string, error) {
	if f := c.armed.Swap(nil); f != nil {
		(*f)()
	}
	return c.Catalog.CommitTable(ctx, ident, reqs, upds)
}

// A combined group that loses its commit to another server goes back to
// its members' own changes, rebases them onto the new head and combines
// them again: every row either server deleted is gone, each DELETE counts
// its own row, and no file is left over.
func TestGroupCommitCombinedLosesRound(t *testing.T) {
	for _, v := range []string{"2", "3"} {
		t.Run("v"+v, func(t *testing.T) {
			dir := t.TempDir()
			cat := &otherWriterFirst{}
			eng := testEngineWith(t, lake.Config{DataDir: dir, WrapCatalog: func(c catalog.Catalog) catalog.Catalog {
				cat.Catalog = c
				return cat
			}})
			other := testSessionOn(t, testEngine(t, dir))
			s := testSessionOn(t, eng)
			mustQuery(t, s, "CREATE TABLE c (id int, v text) WITH ('format-version' = '"+v+"', 'write.delete.mode' = 'merge-on-read')")
			mustQuery(t, s, "INSERT INTO c SELECT g, 'v' || g FROM generate_series(0, 999) g")
			before := snapshotsOf(t, s, "c")
			first := func() { mustQuery(t, other, "DELETE FROM c WHERE id = 500") }
			cat.armed.Store(&first)
			targets := []int{10, 20, 30, 40, 50, 60}
			for i, n := range deleteWhileHeld(t, eng, "c", targets) {
				if n != 1 {
					t.Errorf("DELETE of id %d deleted %d rows", targets[i], n)
				}
			}
			if cat.armed.Load() != nil {
				t.Fatal("the other server never committed")
			}
			if got := snapshotsOf(t, s, "c") - before; got != 2 {
				t.Errorf("%d snapshots, want 2 (the other server's, then the group's)", got)
			}
			got := mustQuery(t, s, "SELECT count(*) FROM c WHERE id IN (10, 20, 30, 40, 50, 60, 500)").text()
			if all := mustQuery(t, s, "SELECT count(*) FROM c").text(); got != "0\n" || all != "993\n" {
				t.Fatalf("%s of the deleted rows remain, %s rows in all (want 0 and 993)", got, all)
			}
			mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
			out := mustQuery(t, s, "ALTER TABLE c EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0]
			if out[0] != "0" {
				t.Errorf("%s orphan files left: %v", out[0], out)
			}
		})
	}
}
