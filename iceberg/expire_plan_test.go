package iceberg

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestExpiryPlanMeetsLaterCommits: an expiry worked out outside the commit
// turn and committed within it removes what it planned when only main moved
// forward meanwhile, and never a snapshot a ref created meanwhile points
// at, one a reader pinned meanwhile, or an ancestor main was rolled back to
// and must keep.
func TestExpiryPlanMeetsLaterCommits(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*Warehouse, table.Identifier, []int64) {
		w := openTest(t, t.TempDir())
		ident := createPCTable(t, w, "e", 2)
		var ids []int64
		for i := range 6 {
			tbl := appendRows(t, w, ident, pcCols(), genRows(pcCols(), i*10, i*10+5))
			ids = append(ids, tbl.CurrentSnapshot().SnapshotID)
		}
		return w, ident, ids
	}
	plan := func(t *testing.T, w *Warehouse, ident table.Identifier) *expiryPlan {
		p, err := w.planExpiry(ctx, ident, 0, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	finish := func(t *testing.T, w *Warehouse, ident table.Identifier, p *expiryPlan, pins Pins) []int64 {
		t.Helper()
		before, after, err := w.finishExpiry(ctx, ident, p, 0, 2, pins)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.removeExpired(ctx, before, after); err != nil {
			t.Fatal(err)
		}
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			t.Fatal(err)
		}
		var kept []int64
		eachSnapshot(tbl.Metadata(), func(s *table.Snapshot) { kept = append(kept, s.SnapshotID) })
		slices.Sort(kept)
		return kept
	}
	sorted := func(ids ...int64) []int64 { return slices.Sorted(slices.Values(ids)) }

	t.Run("main moved forward", func(t *testing.T) {
		w, ident, ids := setup(t)
		p := plan(t, w, ident)
		if got := sorted(p.ids...); !slices.Equal(got, sorted(ids[:4]...)) {
			t.Fatalf("planned %v, want the four oldest %v", got, ids[:4])
		}
		later := appendRows(t, w, ident, pcCols(), genRows(pcCols(), 100, 105)).CurrentSnapshot().SnapshotID
		if got, want := finish(t, w, ident, p, nil), sorted(ids[4], ids[5], later); !slices.Equal(got, want) {
			t.Fatalf("kept %v, want %v", got, want)
		}
		checkRows(t, w, ident, 35)
	})
	t.Run("a tag on a planned snapshot", func(t *testing.T) {
		w, ident, ids := setup(t)
		p := plan(t, w, ident)
		if _, err := w.SetRef(ctx, ident, RefChange{Name: "keep", Tag: true, SnapshotID: &ids[1], Create: true}); err != nil {
			t.Fatal(err)
		}
		if got := finish(t, w, ident, p, nil); !slices.Contains(got, ids[1]) {
			t.Fatalf("kept %v: the tagged snapshot %d went", got, ids[1])
		}
	})
	t.Run("a reader pinned a planned snapshot", func(t *testing.T) {
		w, ident, ids := setup(t)
		p := plan(t, w, ident)
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			t.Fatal(err)
		}
		pinned := tbl.Metadata().SnapshotByID(ids[2]).TimestampMs
		got := finish(t, w, ident, p, func() (int64, bool) { return pinned, true })
		for _, id := range ids[2:] {
			if !slices.Contains(got, id) {
				t.Fatalf("kept %v: snapshot %d, committed at or after the pinned one, went", got, id)
			}
		}
	})
	t.Run("main rolled back", func(t *testing.T) {
		w, ident, ids := setup(t)
		p := plan(t, w, ident)
		if _, err := w.RollbackToSnapshot(ctx, ident, ids[2]); err != nil {
			t.Fatal(err)
		}
		got := finish(t, w, ident, p, nil)
		if !slices.Contains(got, ids[2]) || !slices.Contains(got, ids[1]) {
			t.Fatalf("kept %v: main's head %d or its parent %d (retain last 2) went", got, ids[2], ids[1])
		}
		checkRows(t, w, ident, 15)
	})
}

// checkRows requires ident's current snapshot to read n rows.
func checkRows(t *testing.T, w *Warehouse, ident table.Identifier, n int64) {
	t.Helper()
	tbl, err := w.LoadTable(context.Background(), ident)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tbl.Scan().ToArrowTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Release()
	if rows.NumRows() != n {
		t.Fatalf("the table reads %d rows, want %d", rows.NumRows(), n)
	}
}
