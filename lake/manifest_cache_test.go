package lake

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// TestManifestCacheCommits commits appends, removals of data files and (v3)
// superseding deletion vectors through the warehouse's commit loop, whose
// commits read the parent's manifests through its cache: after every
// commit each manifest the cache holds reads the same from disk, the rows
// are the model's and, on v3, no row's _row_id moved.
func TestManifestCacheCommits(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testManifestCacheCommits(t, v) })
	}
}

func testManifestCacheCommits(t *testing.T, v int) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "c", v)
	cols := pcCols()
	want := map[int64]bool{}
	rowIDs := map[int64]int64{}
	var dvTarget, dv iceberg.DataFile // the v3 file whose DV each round supersedes
	var dvPositions []int64
	var tbl *table.Table
	commit := func(change FileChange) {
		t.Helper()
		var err error
		tbl, err = w.Commits().CommitLoop(RetryPolicy{}).Commit(ctx, ident, func(context.Context, *table.Table) (FileChange, []string, error) {
			return change, nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for r := range 24 {
		tbl = appendRows(t, w, ident, cols, genRows(cols, r*10, r*10+10))
		for id := r * 10; id < r*10+10; id++ {
			want[int64(id)] = true
		}
		ids, files := fileIDs(t, tbl)
		if r%3 == 2 { // remove the file holding the last round's rows
			gone := fileWithFirstID(t, ids, files, int64((r-1)*10))
			if gone == dvTarget {
				t.Fatal("the test removes the file its deletion vectors are on")
			}
			commit(FileChange{RemoveData: []iceberg.DataFile{gone}})
			for _, id := range ids[gone.FilePath()] {
				delete(want, id)
			}
		}
		if v >= 3 && r >= 1 && r <= 9 { // one more of the first file's ten rows each round
			if dvTarget == nil {
				dvTarget = fileWithFirstID(t, ids, files, 0)
			}
			dvPositions = append(dvPositions, int64(r-1)) // ids 0..9 are positions 0..9
			next := writeDV(t, tbl, fmt.Sprintf("dv-%d", r), dvTarget, dvPositions)
			change := FileChange{AddDeletes: []iceberg.DataFile{next}}
			if dv != nil {
				change.RemoveDeletes = []iceberg.DataFile{dv}
			}
			commit(change)
			dv = next
			delete(want, int64(r-1))
		}
		checkCachedManifests(t, w, tbl)
		if v >= 3 {
			checkRowIDsKept(t, tbl, rowIDs, r)
		}
	}
	assertSameRows(t, icebergGoRows(t, tbl), modelRows(cols, want))
	if w.commits.manifests.held.Used() == 0 {
		t.Fatal("the commits cached no manifest")
	}
}

// checkCachedManifests compares every manifest of tbl's current snapshot
// that the warehouse's cache holds with a fresh read of it.
func checkCachedManifests(t *testing.T, w *Warehouse, tbl *table.Table) {
	t.Helper()
	fs := writeFS(t, tbl)
	mfs, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		cached, ok := w.commits.manifests.held.Peek(keyOf(mf))
		if !ok {
			continue
		}
		fresh, err := mf.FetchEntries(fs, false)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := entryLines(cached), entryLines(fresh); !slices.Equal(got, want) {
			t.Fatalf("manifest %s: cached entries\n%v\nread now\n%v", mf.FilePath(), got, want)
		}
	}
}

// entryLines renders what a commit takes from manifest entries.
func entryLines(es []iceberg.ManifestEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		df := e.DataFile()
		line := fmt.Sprintf("%s status=%d snap=%d seq=%d rows=%d content=%d", df.FilePath(), e.Status(), e.SnapshotID(), e.SequenceNum(), df.Count(), df.ContentType())
		if fs := e.FileSequenceNum(); fs != nil {
			line += fmt.Sprintf(" fileseq=%d", *fs)
		}
		if id := df.FirstRowID(); id != nil {
			line += fmt.Sprintf(" first_row_id=%d", *id)
		}
		if ref := df.ReferencedDataFile(); ref != nil {
			line += " ref=" + *ref
		}
		out[i] = line
	}
	return out
}

// TestManifestCacheKeys: a hit returns the cached entries without reading;
// the same manifest listed with another sequence number is another entry
// (its ADDED entries inherit the number); the least recently used manifest
// goes first once the limit is passed.
func TestManifestCacheKeys(t *testing.T) {
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "k", 2)
	cols := pcCols()
	var mfs []iceberg.ManifestFile
	for r := range 3 {
		tbl := appendRows(t, w, ident, cols, genRows(cols, r*10, r*10+1)) // one file each
		all, err := tbl.CurrentSnapshot().Manifests(writeFS(t, tbl))
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range all {
			if mf.SnapshotID() == tbl.CurrentSnapshot().SnapshotID {
				mfs = append(mfs, mf)
			}
		}
	}
	if len(mfs) != 3 {
		t.Fatalf("%d manifests added by three appends", len(mfs))
	}
	tbl, err := w.LoadTable(context.Background(), ident)
	if err != nil {
		t.Fatal(err)
	}
	fs := writeFS(t, tbl)
	// Room for two of the three listings read below (the first manifest
	// twice, the second once), not for all three.
	var sizes []int64
	for _, mf := range mfs[:2] {
		sizes = append(sizes, entriesBytes(mustEntries(t, NewManifestCache(1<<20), fs, mf)))
	}
	c := NewManifestCache(2*sizes[0] + sizes[1] - 1)
	first := mustEntries(t, c, fs, mfs[0])
	if again := mustEntries(t, c, fs, mfs[0]); &again[0] != &first[0] {
		t.Fatal("a second read of a cached manifest read it again")
	}
	relisted := iceberg.NewManifestFile(2, mfs[0].FilePath(), mfs[0].Length(), mfs[0].PartitionSpecID(), mfs[0].SnapshotID()).
		SequenceNum(mfs[0].SequenceNum()+5, mfs[0].SequenceNum()+5).AddedFiles(1).Build()
	if got, want := mustEntries(t, c, fs, relisted)[0].SequenceNum(), mfs[0].SequenceNum()+5; got != want {
		t.Fatalf("the manifest listed with sequence number %d gave entries of %d", want, got)
	}
	if got := mustEntries(t, c, fs, mfs[0])[0].SequenceNum(); got != mfs[0].SequenceNum() {
		t.Fatalf("the first listing's entries now have sequence number %d", got)
	}
	mustEntries(t, c, fs, mfs[1]) // three one-entry manifests in room for two
	if c.held.Contains(keyOf(relisted)) {
		t.Fatal("the least recently used manifest was kept past the limit")
	}
	if ok, held := c.held.Contains(keyOf(mfs[0])), c.held.Used(); !ok || held != sizes[0]+sizes[1] {
		t.Fatalf("after eviction: first listing held %v, %d bytes held, want %d", ok, held, sizes[0]+sizes[1])
	}
}

func mustEntries(t *testing.T, c *ManifestCache, fs iceio.IO, mf iceberg.ManifestFile) []iceberg.ManifestEntry {
	t.Helper()
	es, err := c.entries(fs, mf)
	if err != nil || len(es) == 0 {
		t.Fatalf("entries of %s: %d, %v", mf.FilePath(), len(es), err)
	}
	return es
}
