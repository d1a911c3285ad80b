package lake

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestGroupCommit: statements waiting for a table's turn commit together,
// as one snapshot, when they touch different data files, and a statement
// touching a file another member already touches waits for the next
// snapshot. Every statement's change lands exactly once.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "g", 2)
	cols := pcCols()
	base := appendRows(t, w, ident, cols, genRows(cols, 0, 40)) // one file per p = 0..3
	ids, files := fileIDs(t, base)
	// Three deletes of one row in three files, and a fourth in the first
	// file again: it cannot share the first one's snapshot.
	var dels []iceberg.DataFile
	var gone []int64
	for i, first := range []int64{0, 10, 20, 0} {
		f := fileWithFirstID(t, ids, files, first)
		dels = append(dels, writePosDeletes(t, base, fmt.Sprintf("g-%d", i), f, []int64{int64(i + 1)}))
		gone = append(gone, ids[f.FilePath()][i+1])
	}
	var adds [][]iceberg.DataFile
	for i := range 6 {
		adds = append(adds, writeRows(t, base, 100+10*i, 105+10*i))
	}
	var plans []ChangeFunc
	for _, d := range dels {
		plans = append(plans, func(context.Context, *table.Table) (FileChange, []string, error) {
			return FileChange{AddDeletes: []iceberg.DataFile{d}}, nil, nil
		})
	}
	for _, a := range adds {
		plans = append(plans, func(context.Context, *table.Table) (FileChange, []string, error) {
			return FileChange{AddData: a}, nil, nil
		})
	}

	errs := commitAllWaiting(t, w, ident, plans)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("statement %d: %v", i, err)
		}
	}

	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if n := snapshotCount(tbl) - snapshotCount(base); n != 2 {
		t.Fatalf("%d statements made %d snapshots, want 2 (all but the second delete of one file, then that one)", len(plans), n)
	}
	// Nobody else wrote: each statement's first attempt landed.
	assertCommitCounts(t, tbl.CurrentSnapshot(), 1, 1)
	assertCommitCounts(t, tbl.SnapshotByID(*tbl.CurrentSnapshot().ParentSnapshotID), len(plans)-1, len(plans)-1)
	var want []row
	for id := range 40 {
		if !slices.Contains(gone, int64(id)) {
			want = append(want, genRows(cols, id, id+1)...)
		}
	}
	for i := range 6 {
		want = append(want, genRows(cols, 100+10*i, 105+10*i)...)
	}
	assertSameRows(t, icebergGoRows(t, tbl), want)
}

// commitAllWaiting commits every plan through w's commit loop, each from
// its own goroutine, with the table's turn held until all of them wait, so
// the first leader sees them all. It returns each statement's error.
func commitAllWaiting(t *testing.T, w *Warehouse, ident table.Identifier, plans []ChangeFunc) []error {
	t.Helper()
	loop := w.Commits().CommitLoop(RetryPolicy{})
	turn := w.commits.queue.turnOf(ident, table.MainBranch)
	turn.turn <- struct{}{}
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i, plan := range plans {
		wg.Go(func() { _, errs[i] = loop.Commit(context.Background(), ident, plan) })
	}
	waitForWaiting(t, turn, len(plans))
	<-turn.turn
	wg.Wait()
	return errs
}

// waitForWaiting returns once n statements wait in turn's queue.
func waitForWaiting(t *testing.T, turn *tableTurn, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		turn.mu.Lock()
		got := len(turn.waiting)
		turn.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d statements wait for the turn, want %d", got, n)
		}
		runtime.Gosched()
	}
}

// TestGroupCommitFailsAlone: a member whose change the producer refuses
// fails alone; the statements it was grouped with commit.
func TestGroupCommitFailsAlone(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "gf", 2)
	cols := pcCols()
	base := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	ids, files := fileIDs(t, base)
	bad := writePosDeletes(t, base, "bad", fileWithFirstID(t, ids, files, 0), []int64{1})
	plans := []ChangeFunc{
		func(context.Context, *table.Table) (FileChange, []string, error) {
			return FileChange{AddData: []iceberg.DataFile{bad}}, nil, nil // a delete file as data
		},
	}
	for i := range 3 {
		add := writeRows(t, base, 100+10*i, 105+10*i)
		plans = append(plans, func(context.Context, *table.Table) (FileChange, []string, error) {
			return FileChange{AddData: add}, nil, nil
		})
	}
	errs := commitAllWaiting(t, w, ident, plans)
	if errs[0] == nil {
		t.Fatal("a delete file committed as data")
	}
	for i, err := range errs[1:] {
		if err != nil {
			t.Fatalf("append %d failed with the bad statement of its group: %v", i, err)
		}
	}
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	want := genRows(cols, 0, 10)
	for i := range 3 {
		want = append(want, genRows(cols, 100+10*i, 105+10*i)...)
	}
	assertSameRows(t, icebergGoRows(t, tbl), want)
}
