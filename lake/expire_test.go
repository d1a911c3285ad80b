package lake

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestExpiredFilesOfOneLine grows random v2 and v3 tables (planStep's
// appends, deletion vectors replacing deletion vectors, position and
// equality deletes, removed files, manifests merged and rewritten at
// commit), expires the oldest snapshots every few commits and deletes
// what expiredFiles names. Each time, expiredFiles, which reads only the
// oldest kept snapshot of one line of history, must name exactly what
// reading every kept snapshot gives; and the model's live rows must still
// read back. A tag on an older snapshot, or a kept fork of main, make the
// history not one line: then the shortcut must not be taken.
func TestExpiredFilesOfOneLine(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { expireDifferential(t, v) })
	}
}

func expireDifferential(t *testing.T, v int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(v), 5))
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "expiring", v)
	m := &planModel{files: map[string][]int64{}, byPath: map[string]iceberg.DataFile{}, dvs: map[string]iceberg.DataFile{},
		dvPos: map[string][]int64{}, deleted: map[string]map[int64]bool{}, eqGone: map[int64]bool{}}
	next := int64(0)
	passes, deleted := 0, 0
	for step := range 28 {
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			t.Fatal(err)
		}
		if tbl, err = CommitChange(ctx, w.Catalog(), tbl, planStep(t, r, tbl, m, v, step, &next)); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		m.learnFiles(t, tbl)
		if step%4 != 3 {
			continue
		}
		after := expireAllBut(t, tbl, 1+r.IntN(4))
		gone, n := compareExpiredFiles(t, tbl, after.Metadata(), true)
		passes, deleted = passes+n, deleted+len(gone)
		fs, err := FS(ctx, after)
		if err != nil {
			t.Fatal(err)
		}
		for path := range gone {
			if err := fs.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
		checkModelReads(t, after, m)
	}
	if passes == 0 || deleted == 0 {
		t.Fatalf("%d snapshots expired, %d files deleted: the test exercised nothing", passes, deleted)
	}
	// A tag on the oldest kept snapshot, then more commits and an expiry
	// that keeps the tagged one: not one line from main's head to it alone.
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	oldest := slices.MinFunc(tbl.Metadata().Snapshots(), func(a, b table.Snapshot) int { return int(a.SequenceNumber - b.SequenceNumber) })
	if _, err := w.Branches().SetRef(ctx, ident, RefChange{Name: "t1", Tag: true, SnapshotID: &oldest.SnapshotID, Create: true}); err != nil {
		t.Fatal(err)
	}
	for step := 28; step < 32; step++ {
		if tbl, err = w.LoadTable(ctx, ident); err != nil {
			t.Fatal(err)
		}
		if _, err = CommitChange(ctx, w.Catalog(), tbl, planStep(t, r, tbl, m, v, step, &next)); err != nil {
			t.Fatal(err)
		}
	}
	if tbl, err = w.LoadTable(ctx, ident); err != nil {
		t.Fatal(err)
	}
	compareExpiredFiles(t, tbl, expireAllBut(t, tbl, 1).Metadata(), false)
	if err := w.Branches().DropRef(ctx, ident, "t1", true); err != nil {
		t.Fatal(err)
	}
	forkedExpiry(t, w, ident, m)
}

// forkedExpiry: main removes a file F, then is rolled back to before that
// and committed to (a fork, side, that still has F), then set back.
// Expiring the fork point keeps side, no descendant of main's oldest kept
// snapshot: not one line, and F stays. Then side is cherry-picked onto main
// and expired with the fork point: what is kept is one line, but side is
// no ancestor of it, and its files, which main now reads, stay.
func forkedExpiry(t *testing.T, w *Warehouse, ident table.Identifier, m *planModel) {
	t.Helper()
	ctx := context.Background()
	load := func() *table.Table {
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	commit := func(change FileChange) table.Snapshot {
		tbl, err := CommitChange(ctx, w.Catalog(), load(), change)
		if err != nil {
			t.Fatal(err)
		}
		return *tbl.CurrentSnapshot()
	}
	move := func(id int64) {
		if _, err := w.Branches().SetRef(ctx, ident, RefChange{Name: table.MainBranch, SnapshotID: &id, Replace: true}); err != nil {
			t.Fatal(err)
		}
	}
	expireAllBut(t, load(), 1) // nothing older than the fork point is left
	fork := *load().CurrentSnapshot()
	f := m.byPath[slices.Sorted(maps.Keys(m.files))[0]]
	commit(FileChange{RemoveData: []iceberg.DataFile{f}})
	head := commit(FileChange{AddData: writeRows(t, load(), 900000, 900010)})
	move(fork.SnapshotID)
	side := commit(FileChange{AddData: writeRows(t, load(), 900010, 900020)})
	move(head.SnapshotID)

	tbl := load()
	gone, _ := compareExpiredFiles(t, tbl, dropSnapshots(t, tbl, fork.SnapshotID), false)
	if _, ok := gone[f.FilePath()]; ok {
		t.Fatalf("%s is read by the kept fork, yet expiry would delete it", f.FilePath())
	}

	_, pick, err := SnapshotChange(ctx, load(), side.SnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	commit(pick)
	tbl = load()
	gone, _ = compareExpiredFiles(t, tbl, dropSnapshots(t, tbl, fork.SnapshotID, side.SnapshotID), false)
	for _, df := range pick.AddData {
		if _, ok := gone[df.FilePath()]; ok {
			t.Fatalf("%s is read by main since the cherry-pick, yet expiry would delete it", df.FilePath())
		}
	}
}

// dropSnapshots is tbl's metadata with the snapshots ids removed.
func dropSnapshots(t *testing.T, tbl *table.Table, ids ...int64) table.Metadata {
	t.Helper()
	b, err := table.MetadataBuilderFromBase(tbl.Metadata(), tbl.MetadataLocation())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveSnapshots(ids, false); err != nil {
		t.Fatal(err)
	}
	md, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// expireAllBut commits the expiry of tbl's snapshots but the newest keep
// (and those refs keep), deleting no file.
func expireAllBut(t *testing.T, tbl *table.Table, keep int) *table.Table {
	t.Helper()
	tx := tbl.NewTransaction()
	if err := tx.ExpireSnapshots(table.WithOlderThan(0), table.WithRetainLast(keep), table.WithPostCommit(false)); err != nil {
		t.Fatal(err)
	}
	after, err := tx.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return after
}

// compareExpiredFiles checks expiredFiles against reading every kept
// snapshot, and whether it could take the one-line shortcut.
func compareExpiredFiles(t *testing.T, before *table.Table, after table.Metadata, oneLine bool) (map[string]int64, int) {
	t.Helper()
	ctx := context.Background()
	fs, err := FS(ctx, before)
	if err != nil {
		t.Fatal(err)
	}
	got, n, err := expiredFiles(ctx, fs, before.Metadata(), after, NewFileRefs(DefaultFileRefsBytes))
	if err != nil {
		t.Fatal(err)
	}
	kept := after.Snapshots()
	var expired []table.Snapshot
	for _, s := range before.Metadata().Snapshots() {
		if !slices.ContainsFunc(kept, func(k table.Snapshot) bool { return k.SnapshotID == s.SnapshotID }) {
			expired = append(expired, s)
		}
	}
	if n != len(expired) {
		t.Fatalf("%d snapshots expired, expiredFiles says %d", len(expired), n)
	}
	if _, line := lineBase(after, expired); line != oneLine && len(expired) > 0 {
		t.Fatalf("one line of history: %v, want %v", line, oneLine)
	}
	want, err := referencedFiles(ctx, fs, expired, nil)
	if err != nil {
		t.Fatal(err)
	}
	still, err := referencedFiles(ctx, fs, kept, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path := range still {
		delete(want, path)
	}
	if len(expired) == 0 {
		want = nil
	}
	if !maps.Equal(got, want) {
		t.Fatalf("expired files:\n got %v\nwant %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	return got, len(expired)
}

// checkModelReads reads every live row of tbl's head and compares the ids
// with the model's: nothing the head needs was deleted.
func checkModelReads(t *testing.T, tbl *table.Table, m *planModel) {
	t.Helper()
	all := planFilter{"true", nil, func(int64, int32, string) bool { return true }}
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := readIDs(t, tbl, tasks, all)
	want := m.want(all)
	if !slices.Equal(got, want) {
		t.Fatalf("after expiry the table reads %d ids, the model has %d", len(got), len(want))
	}
}
