package lake

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// TestManifestMerge: a table written by many small commits keeps a bounded
// number of manifests, and merging changes nothing a reader sees: the rows
// (with the deletes of earlier commits still applying by sequence number),
// every data file's sequence numbers and, on v3, every row's _row_id.
func TestManifestMerge(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testManifestMerge(t, v, nil) })
	}
	t.Run("disabled", func(t *testing.T) {
		testManifestMerge(t, 2, map[string]string{table.ManifestMergeEnabledKey: "false"})
	})
	t.Run("min-count-8", func(t *testing.T) {
		testManifestMerge(t, 3, map[string]string{table.ManifestMinMergeCountKey: "8"})
	})
}

func testManifestMerge(t *testing.T, v int, props map[string]string) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "m", v)
	if props != nil {
		if _, err := w.Tables().SetProperties(ctx, ident, props); err != nil {
			t.Fatal(err)
		}
	}
	cols := pcCols()
	const rounds = 40
	want := map[int64]bool{}
	seqs := map[string]int64{}  // data file -> sequence number of its commit
	rowIDs := map[int64]int64{} // id -> _row_id when first read (v3)
	var tbl *table.Table
	for r := range rounds {
		tbl = appendRows(t, w, ident, cols, genRows(cols, r*10, r*10+10))
		for _, df := range addedDataFiles(t, tbl) {
			seqs[df] = tbl.CurrentSnapshot().SequenceNumber
		}
		for id := r * 10; id < r*10+10; id++ {
			want[int64(id)] = true
		}
		if r%4 == 3 {
			tbl = deleteOneRow(t, w, tbl, int64((r-2)*10+3), v)
			delete(want, int64((r-2)*10+3))
		}
		checkManifestBound(t, tbl, r, props)
		if v >= 3 {
			checkRowIDsKept(t, tbl, rowIDs, r)
		}
	}
	assertSameRows(t, icebergGoRows(t, tbl), modelRows(cols, want))
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		df := task.File.FilePath()
		if got := dataFileSeq(t, tbl, df); got != seqs[df] {
			t.Fatalf("data file %s has sequence number %d, its commit had %d", df, got, seqs[df])
		}
	}
}

// checkManifestBound: with merging, each content keeps fewer than the
// minimum count per size class, plus the commit's own new manifest;
// without, one data manifest per append.
func checkManifestBound(t *testing.T, tbl *table.Table, round int, props map[string]string) {
	t.Helper()
	mfs, err := tbl.CurrentSnapshot().Manifests(writeFS(t, tbl))
	if err != nil {
		t.Fatal(err)
	}
	count := map[iceberg.ManifestContent]int{}
	classes := map[iceberg.ManifestContent]map[int]bool{}
	for _, mf := range mfs {
		c := mf.ManifestContent()
		count[c]++
		if classes[c] == nil {
			classes[c] = map[int]bool{}
		}
		classes[c][sizeClass(mf.Length())] = true
	}
	pol := mergePolicyOf(props)
	if !pol.enabled {
		if count[iceberg.ManifestContentData] != round+1 {
			t.Fatalf("round %d: merging off, %d data manifests, want %d", round, count[iceberg.ManifestContentData], round+1)
		}
		return
	}
	for content, n := range count {
		if most := (pol.minCount-1)*len(classes[content]) + 1; n > most {
			t.Fatalf("round %d: %d manifests of content %v in %d size classes, merging keeps at most %d", round, n, content, len(classes[content]), most)
		}
	}
}

// addedDataFiles lists the data files the current snapshot added.
func addedDataFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	snap := tbl.CurrentSnapshot()
	mfs, err := snap.Manifests(writeFS(t, tbl))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		if mf.ManifestContent() != iceberg.ManifestContentData || mf.SnapshotID() != snap.SnapshotID {
			continue
		}
		entries, err := mf.FetchEntries(writeFS(t, tbl), true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Status() == iceberg.EntryStatusADDED {
				out = append(out, e.DataFile().FilePath())
			}
		}
	}
	return out
}

// dataFileSeq is the data sequence number the current snapshot gives path.
func dataFileSeq(t *testing.T, tbl *table.Table, path string) int64 {
	t.Helper()
	mfs, err := tbl.CurrentSnapshot().Manifests(writeFS(t, tbl))
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		entries, err := mf.FetchEntries(writeFS(t, tbl), true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.DataFile().FilePath() == path {
				return e.SequenceNum()
			}
		}
	}
	t.Fatalf("no live entry for %s", path)
	return 0
}

// deleteOneRow commits a position delete (v2) or deletion vector (v3) of
// the row id, which must be in a file no earlier delete touched.
func deleteOneRow(t *testing.T, w *Warehouse, tbl *table.Table, id int64, v int) *table.Table {
	t.Helper()
	ids, files := fileIDs(t, tbl)
	for path, got := range ids {
		pos := slices.Index(got, id)
		if pos < 0 {
			continue
		}
		var del iceberg.DataFile
		name := fmt.Sprintf("del-%d", id)
		if v >= 3 {
			del = writeDV(t, tbl, name, files[path], []int64{int64(pos)})
		} else {
			del = writePosDeletes(t, tbl, name, files[path], []int64{int64(pos)})
		}
		out, err := CommitChange(context.Background(), w.Catalog(), tbl, FileChange{AddDeletes: []iceberg.DataFile{del}})
		if err != nil {
			t.Fatalf("delete id %d: %v", id, err)
		}
		return out
	}
	t.Fatalf("id %d is in no live data file", id)
	return nil
}

// checkRowIDsKept records each row's _row_id the first time it is read
// and fails when a later round reads another one.
func checkRowIDsKept(t *testing.T, tbl *table.Table, rowIDs map[int64]int64, round int) {
	t.Helper()
	for id, rid := range scanRowIDs(t, tbl) {
		if old, seen := rowIDs[id]; seen && old != rid {
			t.Fatalf("round %d: id %d had _row_id %d, now %d", round, id, old, rid)
		}
		rowIDs[id] = rid
	}
}

// modelRows are the generated rows of the ids in want, in id order.
func modelRows(cols []testCol, want map[int64]bool) []row {
	var rows []row
	for _, id := range slices.Sorted(maps.Keys(want)) {
		rows = append(rows, genRows(cols, int(id), int(id)+1)...)
	}
	return rows
}

// TestStageViewMergesNothing: a block's view, staged on a table whose
// small manifests a commit would merge, lists them as they are and adds
// only its own manifest and list; it reads what the merging staging reads.
func TestStageViewMergesNothing(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "v", 2)
	cols := pcCols()
	var tbl *table.Table
	for r := range 4 {
		tbl = appendRows(t, w, ident, cols, genRows(cols, r*10, r*10+10))
	}
	change := FileChange{AddData: writeRows(t, tbl, 100, 105)}
	parent, err := tbl.CurrentSnapshot().Manifests(mustFS(t, tbl))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := stageChange(ctx, tbl, change, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer merged.Discard()
	view, err := w.Commits().StageView(ctx, tbl, change)
	if err != nil {
		t.Fatal(err)
	}
	defer view.Discard()
	// The four carried manifests are small: the committing staging merges
	// them (its new manifest, the merged one and the list written), the
	// view carries them as they are (its new manifest and the list).
	if len(merged.Written) != 3 || len(view.Written) != 2 {
		t.Fatalf("written: merged %v, view %v", merged.Written, view.Written)
	}
	mv, err := merged.View(tbl)
	if err != nil {
		t.Fatal(err)
	}
	vv, err := view.View(tbl)
	if err != nil {
		t.Fatal(err)
	}
	listed := func(tb *table.Table) int {
		mfs, err := tb.CurrentSnapshot().Manifests(mustFS(t, tb))
		if err != nil {
			t.Fatal(err)
		}
		return len(mfs)
	}
	if got := listed(vv); got != len(parent)+1 {
		t.Fatalf("the view lists %d manifests, want the parent's %d and its own", got, len(parent))
	}
	if got := listed(mv); got >= len(parent)+1 {
		t.Fatalf("the committing staging lists %d manifests: it merged none, so the test checks nothing", got)
	}
	want := slices.Concat(genRows(cols, 0, 40), genRows(cols, 100, 105))
	assertSameRows(t, icebergGoRows(t, vv), want)
	assertSameRows(t, icebergGoRows(t, mv), want)
}

func mustFS(t *testing.T, tbl *table.Table) iceio.IO {
	t.Helper()
	fs, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fs
}
