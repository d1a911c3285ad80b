package lake

import (
	"context"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

// TestReadersPinned: the pinned snapshots are what expiry keeps, and they
// are settled only once every reader that began has read its head.
func TestReadersPinned(t *testing.T) {
	var r Readers
	tbl := Ident("public", "t")
	check := func(want []int64, wantSettled bool) {
		t.Helper()
		ids, settled := r.Pinned(tbl, nil)
		if settled != wantSettled || len(ids) != len(want) {
			t.Fatalf("Pinned = %v, %v; want %v, %v", ids, settled, want, wantSettled)
		}
		for _, id := range want {
			if !ids[id] {
				t.Fatalf("Pinned = %v; want %v", ids, want)
			}
		}
	}
	snap := func(id int64) *table.Snapshot { return &table.Snapshot{SnapshotID: id} }
	check(nil, true)
	p1, p2 := r.Begin(tbl), r.Begin(tbl)
	check(nil, false)
	p1.Settle(snap(100))
	check([]int64{100}, false)
	p2.Settle(snap(50))
	check([]int64{100, 50}, true)
	if ids, _ := r.Pinned(Ident("public", "other"), nil); len(ids) != 0 {
		t.Fatalf("another table has pins %v", ids)
	}
	p2.Release()
	p2.Release() // a second release does nothing
	check([]int64{100}, true)
	// A reader of a table with no snapshot pins none.
	p3 := r.Pin(tbl, nil)
	check([]int64{100}, true)
	p3.Release()
	p1.Release()
	check(nil, true)
}

// TestReadSetReleasesTogether: a statement's pins end together, its own
// pins are left out when it asks, and a load after the statement ended
// pins nothing.
func TestReadSetReleasesTogether(t *testing.T) {
	var r Readers
	set := r.NewReadSet()
	a, b := Ident("public", "a"), Ident("public", "b")
	set.begin(a).Settle(&table.Snapshot{SnapshotID: 7})
	set.begin(b).Settle(&table.Snapshot{SnapshotID: 9})
	if ids, _ := r.Pinned(a, nil); !ids[7] {
		t.Fatalf("a pinned %v, want 7", ids)
	}
	if ids, _ := r.Pinned(a, set); len(ids) != 0 {
		t.Fatalf("the asking set's own pin counted: %v", ids)
	}
	set.Release()
	for _, id := range []table.Identifier{a, b} {
		if ids, settled := r.Pinned(id, nil); len(ids) != 0 || !settled {
			t.Fatalf("%v after release: %v, %v", id, ids, settled)
		}
	}
	if p := set.begin(a); p != nil {
		t.Fatal("a released set pinned again")
	}
	pinSnapshot(WithReadSet(context.Background(), set), nil, nil) // nothing to pin: no panic
}

// TestWritesOldest: orphan removal's bound is the oldest writer that may
// write the table, its own statement aside.
func TestWritesOldest(t *testing.T) {
	var w Writes
	tbl := Ident("public", "t")
	if _, ok := w.oldest(tbl, 0); ok {
		t.Fatal("no writer, yet a bound")
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	idAny, relAny := w.Hold(nil, t0.Add(3))
	_, relOther := w.Hold(Ident("public", "other"), t0.Add(1))
	_, relT := w.Hold(tbl, t0.Add(2))
	if got, ok := w.oldest(tbl, 0); !ok || !got.Equal(t0.Add(2)) {
		t.Fatalf("oldest = %v, %v; want the table's own writer", got, ok)
	}
	relT()
	if got, _ := w.oldest(tbl, 0); !got.Equal(t0.Add(3)) {
		t.Fatalf("oldest = %v; want the any-table writer", got)
	}
	if _, ok := w.oldest(tbl, idAny); ok {
		t.Fatal("the asking statement held itself back")
	}
	relAny()
	relOther()
	if _, ok := w.oldest(Ident("public", "other"), 0); ok {
		t.Fatal("released writers still hold")
	}
}
