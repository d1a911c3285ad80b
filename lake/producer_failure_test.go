package lake

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// flakyCatalog makes the catalog swap fail in the ways CommitChange must
// survive: refused (nothing landed), landed but reported as failed, and
// failed with the table unreadable afterwards.
type flakyCatalog struct {
	catalog.Catalog
	landThenFail bool
	loadFails    bool
}

var errSwap = errors.New("swap failed")

func (c *flakyCatalog) CommitTable(ctx context.Context, ident table.Identifier, reqs []table.Requirement, upds []table.Update) (table.Metadata, string, error) {
	if c.landThenFail {
		if _, _, err := c.Catalog.CommitTable(ctx, ident, reqs, upds); err != nil {
			return nil, "", err
		}
	}
	return nil, "", errSwap
}

func (c *flakyCatalog) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	if c.loadFails {
		return nil, errors.New("catalog unreachable")
	}
	return c.Catalog.LoadTable(ctx, ident)
}

func TestCommitChangeSwapFailures(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "flaky", 2)
	cols := pcCols()
	base := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	before := avroFiles(t, base)
	change := FileChange{AddData: writeRows(t, base, 50, 55)}

	// Refused: the manifests go, the table stays.
	_, err := CommitChange(ctx, &flakyCatalog{Catalog: w.Catalog()}, base, change)
	if !errors.Is(err, errSwap) || errors.Is(err, ErrCommitUnknown) {
		t.Fatalf("refused swap: %v", err)
	}
	if got := avroFiles(t, base); !slices.Equal(got, before) {
		t.Fatalf("refused swap left manifests: %v", got)
	}

	// Unknown outcome: the manifests stay (they may be committed).
	_, err = CommitChange(ctx, &flakyCatalog{Catalog: w.Catalog(), loadFails: true}, base, change)
	if !errors.Is(err, errSwap) || !errors.Is(err, ErrCommitUnknown) || len(avroFiles(t, base)) != len(before)+2 {
		t.Fatalf("unknown outcome: %v, files %d -> %d (want a manifest and a list kept)", err, len(before), len(avroFiles(t, base)))
	}

	// Landed despite the error: success, and the table reads back.
	got, err := CommitChange(ctx, &flakyCatalog{Catalog: w.Catalog(), landThenFail: true}, base, change)
	if err != nil {
		t.Fatalf("landed swap reported: %v", err)
	}
	assertSameRows(t, icebergGoRows(t, got), slices.Concat(genRows(cols, 0, 10), genRows(cols, 50, 55)))
	if got.CurrentSnapshot().Summary.Operation != table.OpAppend {
		t.Fatalf("operation %s, want append", got.CurrentSnapshot().Summary.Operation)
	}
}

// TestCommitChangeExplicitRowIDs: v3 files that carry first_row_id are
// accepted only with the ids the snapshot assigns.
func TestCommitChangeExplicitRowIDs(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "rowids", 3)
	cols := pcCols()
	base := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	next := base.Metadata().NextRowID()
	d := writeRows(t, base, 100, 104)
	if len(d) != 1 {
		t.Fatalf("want one file, got %d", len(d))
	}
	if _, err := CommitChange(ctx, w.Catalog(), base, FileChange{AddData: []iceberg.DataFile{withFirstRowID(t, base, d[0], next+1)}}); err == nil {
		t.Fatal("a first_row_id other than the assigned one was accepted")
	}
	got, err := CommitChange(ctx, w.Catalog(), base, FileChange{AddData: []iceberg.DataFile{withFirstRowID(t, base, d[0], next)}})
	if err != nil {
		t.Fatal(err)
	}
	rids := scanRowIDs(t, got)
	for pos := range int64(4) {
		if rids[100+pos] != next+pos {
			t.Errorf("id %d: _row_id %d, want %d", 100+pos, rids[100+pos], next+pos)
		}
	}
}

// withFirstRowID copies df's identity (not its stats) with a first_row_id.
func withFirstRowID(t *testing.T, tbl *table.Table, df iceberg.DataFile, id int64) iceberg.DataFile {
	t.Helper()
	spec := tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	b, err := iceberg.NewDataFileBuilder(*spec, df.ContentType(), df.FilePath(), df.FileFormat(), df.Partition(), nil, nil, df.Count(), df.FileSizeBytes())
	if err != nil {
		t.Fatal(err)
	}
	return b.FirstRowID(id).Build()
}

// TestChangeCounts classifies each kind of file the way the reference
// implementation's summary does.
func TestChangeCounts(t *testing.T) {
	data := fakeSized(t, "d.parquet", iceberg.EntryContentData, iceberg.ParquetFile, 10, 100)
	pos := fakeSized(t, "p.parquet", iceberg.EntryContentPosDeletes, iceberg.ParquetFile, 3, 30)
	dvf := fakeSized(t, "v.puffin", iceberg.EntryContentPosDeletes, iceberg.PuffinFile, 2, 20)
	eq := fakeSized(t, "e.parquet", iceberg.EntryContentEqDeletes, iceberg.ParquetFile, 4, 40)
	c := changeCounts{}
	for _, f := range []iceberg.DataFile{data, pos, dvf, eq} {
		c.count(f, true)
	}
	c.count(data, false)
	c.count(dvf, false)
	want := changeCounts{
		"added-files-size": 190, "removed-files-size": 120,
		"added-data-files": 1, "added-records": 10, "deleted-data-files": 1, "deleted-records": 10,
		"added-delete-files": 3, "removed-delete-files": 1,
		"added-position-delete-files": 1, "added-dvs": 1, "removed-dvs": 1, "added-equality-delete-files": 1,
		"added-position-deletes": 5, "removed-position-deletes": 2, "added-equality-deletes": 4,
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %d, want %d", k, c[k], v)
		}
	}
	for k, v := range c {
		if _, ok := want[k]; !ok && v != 0 {
			t.Errorf("unexpected %s = %d", k, v)
		}
	}
}

func fakeSized(t *testing.T, path string, content iceberg.ManifestEntryContent, format iceberg.FileFormat, count, size int64) iceberg.DataFile {
	t.Helper()
	b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, content, path, format, nil, nil, nil, count, size)
	if err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

// TestCommitChangeFirstSnapshot commits onto a table with no snapshot: no
// parent, totals from zero, row ids from zero.
func TestCommitChangeFirstSnapshot(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "first", 3)
	base, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	d := writeRows(t, base, 0, 25) // partitions 0, 1, 2
	got, err := CommitChange(ctx, w.Catalog(), base, FileChange{AddData: d})
	if err != nil {
		t.Fatal(err)
	}
	snap := got.CurrentSnapshot()
	if snap.ParentSnapshotID != nil || *snap.FirstRowID != 0 || *snap.AddedRows != 25 || got.Metadata().NextRowID() != 25 {
		t.Fatalf("first snapshot: parent %v first-row-id %d added-rows %d next-row-id %d", snap.ParentSnapshotID, *snap.FirstRowID, *snap.AddedRows, got.Metadata().NextRowID())
	}
	var size int64
	for _, f := range d {
		size += f.FileSizeBytes()
	}
	assertSummary(t, snap, map[string]int64{
		"added-data-files": int64(len(d)), "added-records": 25, "added-files-size": size, "changed-partition-count": 3,
		"total-records": 25, "total-data-files": int64(len(d)), "total-delete-files": 0, "total-position-deletes": 0,
		"total-equality-deletes": 0, "total-files-size": size,
	}, nil)
	assertSameRows(t, icebergGoRows(t, got), genRows(pcCols(), 0, 25))
	seen := map[int64]bool{}
	for _, rid := range scanRowIDs(t, got) {
		if rid < 0 || rid >= 25 || seen[rid] {
			t.Fatalf("row id %d out of range or repeated", rid)
		}
		seen[rid] = true
	}
}

// TestCommitLoopReplans: another writer replaces a data file
// while the first attempt, which replaces every data file, is planned; that
// attempt cannot be rebased (a file it removes is gone), so its files are
// removed and the second attempt, planned against the new head, commits.
func TestCommitLoopReplans(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "retry", 2)
	cols := pcCols()
	appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	var attempts int
	var firstWritten []string
	plan := func(ctx context.Context, head *table.Table) (FileChange, []string, error) {
		attempts++
		live := liveDataFiles(t, head)
		files := writeRows(t, head, 50, 53)
		if attempts == 1 {
			firstWritten = filePaths(files)
			other := FileChange{RemoveData: live[:1], AddData: writeRows(t, head, 70, 72)}
			if _, err := CommitChange(ctx, w.Catalog(), head, other); err != nil {
				return FileChange{}, nil, err
			}
		}
		return FileChange{RemoveData: live, AddData: files}, filePaths(files), nil
	}
	got, err := CommitLoop{Catalog: w.Catalog(), Policy: RetryPolicy{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}}.Commit(ctx, ident, plan)
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Fatalf("%d attempts, want 2", attempts)
	}
	assertCommitCounts(t, got.CurrentSnapshot(), 1, 2)
	assertSameRows(t, icebergGoRows(t, got), genRows(cols, 50, 53))
	for _, p := range firstWritten {
		if _, err := os.Stat(strings.TrimPrefix(p, "file://")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("file of the conflicting attempt %s still there: %v", p, err)
		}
	}
}

// TestCommitLoopRebases: a change whose files nobody else
// touched is carried onto the new head as it is: planned once, its files
// committed, the other writer's rows kept.
func TestCommitLoopRebases(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "rebase", 2)
	cols := pcCols()
	appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	var attempts int
	plan := func(ctx context.Context, head *table.Table) (FileChange, []string, error) {
		attempts++
		live := liveDataFiles(t, head)
		files := writeRows(t, head, 50, 53)
		if _, err := CommitChange(ctx, w.Catalog(), head, FileChange{AddData: writeRows(t, head, 70, 72)}); err != nil {
			return FileChange{}, nil, err
		}
		return FileChange{RemoveData: live, AddData: files}, filePaths(files), nil
	}
	got, err := CommitLoop{Catalog: w.Catalog(), Policy: RetryPolicy{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}}.Commit(ctx, ident, plan)
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 1 {
		t.Fatalf("%d plans, want 1", attempts)
	}
	assertCommitCounts(t, got.CurrentSnapshot(), 1, 2) // lost one round, then landed
	assertSameRows(t, icebergGoRows(t, got), slices.Concat(genRows(cols, 70, 72), genRows(cols, 50, 53)))
}

// assertCommitCounts checks the statements and catalog attempts snap's
// summary records.
func assertCommitCounts(t *testing.T, snap *table.Snapshot, statements, attempts int) {
	t.Helper()
	props := snap.Summary.Properties
	want := map[string]string{SummaryStatements: strconv.Itoa(statements), SummaryAttempts: strconv.Itoa(attempts)}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("snapshot %d: %s = %q, want %q", snap.SnapshotID, k, props[k], v)
		}
	}
}

// liveDataFiles is every data file of tbl's current snapshot.
func liveDataFiles(t *testing.T, tbl *table.Table) []iceberg.DataFile {
	t.Helper()
	live, err := LiveFiles(context.Background(), tbl)
	if err != nil {
		t.Fatal(err)
	}
	var out []iceberg.DataFile
	for _, p := range slices.Sorted(maps.Keys(live)) {
		out = append(out, live[p].Tasks[0].File)
	}
	return out
}
