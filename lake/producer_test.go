package lake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestCommitChangeOneSnapshot removes data file A, adds data file D and adds
// a delete file (v3: a DV; v2: a position delete file) for data file C, and
// checks the result through iceberg-go's scan and metadata tables against a
// model computed from the files as the test wrote them.
func TestCommitChangeOneSnapshot(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testOneSnapshot(t, v) })
	}
}

func testOneSnapshot(t *testing.T, v int) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "pc", v)
	cols := pcCols()
	appendRows(t, w, ident, cols, genRows(cols, 0, 20)) // A (p=0) and B (p=1) in one manifest
	base := appendRows(t, w, ident, cols, genRows(cols, 20, 30))
	ids, files := fileIDs(t, base)
	a, b, c := fileWithFirstID(t, ids, files, 0), fileWithFirstID(t, ids, files, 10), fileWithFirstID(t, ids, files, 20)
	d := writeRows(t, base, 100, 105)
	var del iceberg.DataFile
	if v >= 3 {
		del = writeDV(t, base, "dv-c", c, []int64{1, 3})
	} else {
		del = writePosDeletes(t, base, "pos-c", c, []int64{1, 3})
	}
	baseEntries := entriesByPath(t, base)
	baseFiles := filesByPath(t, base)
	head := base.CurrentSnapshot()

	got, err := CommitChange(ctx, w.Catalog(), base, FileChange{
		RemoveData: []iceberg.DataFile{a}, AddData: d, AddDeletes: []iceberg.DataFile{del},
		Props: map[string]string{"magmalake.statement": "test"},
	})
	if err != nil {
		t.Fatalf("commit change: %v", err)
	}
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.CurrentSnapshot()
	if snapshotCount(tbl) != snapshotCount(base)+1 || snap.SnapshotID != got.CurrentSnapshot().SnapshotID {
		t.Fatalf("want exactly one new snapshot: %d -> %d", snapshotCount(base), snapshotCount(tbl))
	}
	if *snap.ParentSnapshotID != head.SnapshotID || snap.SequenceNumber != head.SequenceNumber+1 {
		t.Fatalf("snapshot parent %d seq %d, want %d and %d", *snap.ParentSnapshotID, snap.SequenceNumber, head.SnapshotID, head.SequenceNumber+1)
	}
	if snap.Summary.Operation != table.OpOverwrite {
		t.Fatalf("operation %s, want overwrite", snap.Summary.Operation)
	}

	// Rows: B, C without its positions 1 and 3, and D.
	var want []row
	for _, id := range slices.Concat(ids[b.FilePath()], dropPositions(ids[c.FilePath()], 1, 3)) {
		want = append(want, genRows(cols, int(id), int(id)+1)...)
	}
	want = append(want, genRows(cols, 100, 105)...)
	assertSameRows(t, icebergGoRows(t, tbl), want)

	checkEntries(t, tbl, snap, baseEntries, a, b, c, d, del)
	checkManifests(t, tbl, base, snap)
	checkSummary(t, tbl, snap, v, a, d, del)
	if v >= 3 {
		checkRowLineage(t, base, tbl, snap, ids, baseFiles, b, c, d)
		checkDVFile(t, tbl, del, c)
	}
	checkStaleBaseConflicts(t, w, base, tbl)
	checkMissingRemoval(t, w, tbl, a)
}

func dropPositions(ids []int64, pos ...int) []int64 {
	var out []int64
	for i, id := range ids {
		if !slices.Contains(pos, i) {
			out = append(out, id)
		}
	}
	return out
}

func entriesByPath(t *testing.T, tbl *table.Table) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, e := range inspectRows(t, tbl.Inspect().Entries) {
		out[e["data_file.file_path"].(string)] = e
	}
	return out
}

func filesByPath(t *testing.T, tbl *table.Table) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, f := range inspectRows(t, tbl.Inspect().Files) {
		out[f["file_path"].(string)] = f
	}
	return out
}

// checkEntries: A is DELETED by the new snapshot with its old sequence
// numbers, B is EXISTING with its own, C's manifest is carried unchanged,
// and D and the delete file are ADDED at the new sequence number.
func checkEntries(t *testing.T, tbl *table.Table, snap *table.Snapshot, before map[string]map[string]any,
	a, b, c iceberg.DataFile, d []iceberg.DataFile, del iceberg.DataFile,
) {
	t.Helper()
	got := entriesByPath(t, tbl)
	newSeq := snap.SequenceNumber
	type entry struct {
		status, snap, seq, fileSeq, content int64
	}
	want := map[string]entry{
		a.FilePath():   {2, snap.SnapshotID, before[a.FilePath()]["sequence_number"].(int64), before[a.FilePath()]["file_sequence_number"].(int64), 0},
		b.FilePath():   {0, before[b.FilePath()]["snapshot_id"].(int64), before[b.FilePath()]["sequence_number"].(int64), before[b.FilePath()]["file_sequence_number"].(int64), 0},
		c.FilePath():   {1, before[c.FilePath()]["snapshot_id"].(int64), before[c.FilePath()]["sequence_number"].(int64), before[c.FilePath()]["file_sequence_number"].(int64), 0},
		del.FilePath(): {1, snap.SnapshotID, newSeq, newSeq, 1},
	}
	for _, f := range d {
		want[f.FilePath()] = entry{1, snap.SnapshotID, newSeq, newSeq, 0}
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %v", len(got), len(want), got)
	}
	for p, we := range want {
		e := got[p]
		ge := entry{e["status"].(int64), e["snapshot_id"].(int64), e["sequence_number"].(int64), e["file_sequence_number"].(int64), e["data_file.content"].(int64)}
		if ge != we {
			t.Errorf("entry %s: got %+v, want %+v", p, ge, we)
		}
	}
}

// checkManifests: the manifest holding only C is carried over as it was;
// the one holding A and B is rewritten; D and the delete file get new ones.
func checkManifests(t *testing.T, tbl, base *table.Table, snap *table.Snapshot) {
	t.Helper()
	oldPaths := map[string]int64{}
	for _, m := range inspectRows(t, base.Inspect().Manifests) {
		oldPaths[m["path"].(string)] = m["added_snapshot_id"].(int64)
	}
	var got []string
	for _, m := range inspectRows(t, tbl.Inspect().Manifests) {
		origin := "new"
		if id, ok := oldPaths[m["path"].(string)]; ok {
			origin = "carried"
			if id != m["added_snapshot_id"].(int64) {
				t.Errorf("carried manifest %s changed its snapshot id", m["path"])
			}
		} else if m["added_snapshot_id"].(int64) != snap.SnapshotID {
			t.Errorf("new manifest %s has snapshot id %d", m["path"], m["added_snapshot_id"])
		}
		got = append(got, fmt.Sprintf("%s content=%d data=%d/%d/%d deletes=%d/%d/%d", origin, m["content"],
			m["added_data_files_count"], m["existing_data_files_count"], m["deleted_data_files_count"],
			m["added_delete_files_count"], m["existing_delete_files_count"], m["deleted_delete_files_count"]))
	}
	slices.Sort(got)
	want := []string{
		"carried content=0 data=1/0/0 deletes=0/0/0",
		"new content=0 data=0/1/1 deletes=0/0/0",
		"new content=0 data=1/0/0 deletes=0/0/0",
		"new content=1 data=0/0/0 deletes=1/0/0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("manifests:\n got %v\nwant %v", got, want)
	}
}

// checkSummary compares every summary key with counts taken from the files
// the test wrote, and total-files-size with the live files' sizes as the
// files metadata table reports them.
func checkSummary(t *testing.T, tbl *table.Table, snap *table.Snapshot, v int, a iceberg.DataFile, d []iceberg.DataFile, del iceberg.DataFile) {
	t.Helper()
	var addedSize, addedRecords, liveSize int64
	for _, f := range d {
		addedSize += f.FileSizeBytes()
		addedRecords += f.Count()
	}
	for _, f := range inspectRows(t, tbl.Inspect().Files) {
		liveSize += f["file_size_in_bytes"].(int64)
	}
	want := map[string]int64{
		"added-data-files": int64(len(d)), "deleted-data-files": 1,
		"added-records": addedRecords, "deleted-records": a.Count(),
		"added-files-size": addedSize + del.FileSizeBytes(), "removed-files-size": a.FileSizeBytes(),
		"added-delete-files": 1, "added-position-deletes": 2,
		"changed-partition-count": 2, // p=0 (A, D) and p=2 (the deletes for C)
		"total-records":           30 - a.Count() + addedRecords,
		"total-data-files":        3 - 1 + int64(len(d)),
		"total-delete-files":      1, "total-position-deletes": 2, "total-equality-deletes": 0,
		"total-files-size": liveSize,
	}
	if v >= 3 {
		want["added-dvs"] = 1
	} else {
		want["added-position-delete-files"] = 1
	}
	assertSummary(t, snap, want, map[string]string{"magmalake.statement": "test"})
}

func assertSummary(t *testing.T, snap *table.Snapshot, counts map[string]int64, extra map[string]string) {
	t.Helper()
	want := map[string]string{}
	maps.Copy(want, extra)
	for k, v := range counts {
		want[k] = strconv.FormatInt(v, 10)
	}
	got := map[string]string(snap.Summary.Properties)
	if !maps.Equal(got, want) {
		t.Fatalf("summary:\n got %v\nwant %v", got, want)
	}
}

// checkRowLineage: existing files keep their row ids, D's rows start at the
// table's old next-row-id, and next-row-id advances by the snapshot's
// added-rows (D's rows plus B's, whose manifest was rewritten).
func checkRowLineage(t *testing.T, base, tbl *table.Table, snap *table.Snapshot, ids map[string][]int64,
	baseFiles map[string]map[string]any, b, c iceberg.DataFile, d []iceberg.DataFile,
) {
	t.Helper()
	next := base.Metadata().NextRowID()
	if snap.FirstRowID == nil || *snap.FirstRowID != next {
		t.Fatalf("snapshot first-row-id %v, want %d", snap.FirstRowID, next)
	}
	var addedRows int64 = b.Count()
	for _, f := range d {
		addedRows += f.Count()
	}
	if *snap.AddedRows != addedRows || tbl.Metadata().NextRowID() != next+addedRows {
		t.Fatalf("added-rows %d next-row-id %d, want %d and %d", *snap.AddedRows, tbl.Metadata().NextRowID(), addedRows, next+addedRows)
	}
	wantRowID := map[int64]int64{}
	for _, f := range []iceberg.DataFile{b, c} {
		first := baseFiles[f.FilePath()]["first_row_id"].(int64)
		for pos, id := range ids[f.FilePath()] {
			wantRowID[id] = first + int64(pos)
		}
	}
	if len(d) != 1 {
		t.Fatalf("expected D in one file, got %d", len(d))
	}
	for pos := range int64(5) {
		wantRowID[100+pos] = next + pos
	}
	files := filesByPath(t, tbl)
	if got := files[d[0].FilePath()]["first_row_id"]; got != next {
		t.Fatalf("D first_row_id %v, want %d", got, next)
	}
	for id, rid := range scanRowIDs(t, tbl) {
		if want, ok := wantRowID[id]; ok && want != rid {
			t.Errorf("id %d: _row_id %d, want %d", id, rid, want)
		}
		delete(wantRowID, id)
	}
	for id := range wantRowID {
		if !slices.Contains(ids[c.FilePath()], id) { // C's deleted rows are not scanned
			t.Errorf("id %d missing from the lineage scan", id)
		}
	}
}

func scanRowIDs(t *testing.T, tbl *table.Table) map[int64]int64 {
	t.Helper()
	at, err := tbl.Scan(table.WithRowLineage()).ToArrowTable(context.Background())
	if err != nil {
		t.Fatalf("lineage scan: %v", err)
	}
	defer at.Release()
	rdr := array.NewTableReader(at, 0)
	defer rdr.Release()
	out := map[int64]int64{}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		idCol, ridCol := rec.Schema().FieldIndices("id"), rec.Schema().FieldIndices(iceberg.RowIDColumnName)
		if len(idCol) != 1 || len(ridCol) != 1 {
			t.Fatalf("lineage scan columns: %v", rec.Schema())
		}
		for i := range int(rec.NumRows()) {
			out[valueAt(t, rec.Column(idCol[0]), i).(int64)] = valueAt(t, rec.Column(ridCol[0]), i).(int64)
		}
	}
	return out
}

// checkDVFile: the DV's blob location and target come through untouched.
func checkDVFile(t *testing.T, tbl *table.Table, del, target iceberg.DataFile) {
	t.Helper()
	f := filesByPath(t, tbl)[del.FilePath()]
	if f["referenced_data_file"] != target.FilePath() || f["content_offset"] != *del.ContentOffset() ||
		f["content_size_in_bytes"] != *del.ContentSizeInBytes() || f["record_count"] != int64(2) {
		t.Fatalf("dv entry %v", f)
	}
}

// checkStaleBaseConflicts commits again from the base the first change was
// built on: it must fail as a conflict and leave no manifest behind.
func checkStaleBaseConflicts(t *testing.T, w *Warehouse, stale, head *table.Table) {
	t.Helper()
	ctx := context.Background()
	e := writeRows(t, stale, 200, 203)
	before := avroFiles(t, head)
	_, err := CommitChange(ctx, w.Catalog(), stale, FileChange{AddData: e})
	if err == nil || !IsConflict(err) {
		t.Fatalf("commit from a stale base: %v, want a conflict", err)
	}
	if after := avroFiles(t, head); !slices.Equal(before, after) {
		t.Fatalf("stray manifests after a conflict:\n before %v\n after %v", before, after)
	}
	now, err := w.LoadTable(ctx, head.Identifier())
	if err != nil || now.CurrentSnapshot().SnapshotID != head.CurrentSnapshot().SnapshotID {
		t.Fatalf("table moved after a failed commit: %v", err)
	}
}

// checkMissingRemoval removes A, which the head no longer holds.
func checkMissingRemoval(t *testing.T, w *Warehouse, head *table.Table, gone iceberg.DataFile) {
	t.Helper()
	before := avroFiles(t, head)
	_, err := CommitChange(context.Background(), w.Catalog(), head, FileChange{RemoveData: []iceberg.DataFile{gone}})
	if !errors.Is(err, ErrFileNotInSnapshot) {
		t.Fatalf("removing a file the snapshot does not hold: %v", err)
	}
	if after := avroFiles(t, head); !slices.Equal(before, after) {
		t.Fatalf("stray manifests after a failed change: %v", after)
	}
}

// TestCommitChangeSupersedesDV replaces a data file's DV with one holding
// the old and new positions: exactly one live DV remains, and a second DV
// that does not supersede the live one is refused.
func TestCommitChangeSupersedesDV(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "dvs", 3)
	cols := pcCols()
	base := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	ids, files := fileIDs(t, base)
	f := fileWithFirstID(t, ids, files, 0)

	dv1 := writeDV(t, base, "dv1", f, []int64{2})
	t1, err := CommitChange(ctx, w.Catalog(), base, FileChange{AddDeletes: []iceberg.DataFile{dv1}})
	if err != nil {
		t.Fatal(err)
	}
	if op := t1.CurrentSnapshot().Summary.Operation; op != table.OpDelete {
		t.Fatalf("operation %s, want delete", op)
	}
	dv2 := writeDV(t, t1, "dv2", f, []int64{2, 5})
	t2, err := CommitChange(ctx, w.Catalog(), t1, FileChange{RemoveDeletes: []iceberg.DataFile{dv1}, AddDeletes: []iceberg.DataFile{dv2}})
	if err != nil {
		t.Fatal(err)
	}
	var want []row
	for _, id := range dropPositions(ids[f.FilePath()], 2, 5) {
		want = append(want, genRows(cols, int(id), int(id)+1)...)
	}
	assertSameRows(t, icebergGoRows(t, t2), want)

	var live []string
	for _, df := range inspectRows(t, t2.Inspect().DeleteFiles) {
		live = append(live, fmt.Sprintf("%v@%v->%v", df["file_path"], df["content_offset"], df["referenced_data_file"]))
	}
	if wantLive := []string{fmt.Sprintf("%s@%d->%s", dv2.FilePath(), *dv2.ContentOffset(), f.FilePath())}; !slices.Equal(live, wantLive) {
		t.Fatalf("live DVs %v, want %v", live, wantLive)
	}
	if e := entriesByPath(t, t2)[dv1.FilePath()]; e["status"] != int64(2) || e["snapshot_id"] != t2.CurrentSnapshot().SnapshotID {
		t.Fatalf("superseded DV entry %v, want DELETED by the new snapshot", e)
	}
	var totalSize int64
	for _, df := range inspectRows(t, t2.Inspect().Files) {
		totalSize += df["file_size_in_bytes"].(int64)
	}
	assertSummary(t, t2.CurrentSnapshot(), map[string]int64{
		"added-dvs": 1, "removed-dvs": 1, "added-delete-files": 1, "removed-delete-files": 1,
		"added-position-deletes": 2, "removed-position-deletes": 1,
		"added-files-size": dv2.FileSizeBytes(), "removed-files-size": dv1.FileSizeBytes(),
		"changed-partition-count": 1, "total-records": 10, "total-data-files": 1, "total-delete-files": 1,
		"total-position-deletes": 2, "total-equality-deletes": 0, "total-files-size": totalSize,
	}, nil)

	dv3 := writeDV(t, t2, "dv3", f, []int64{7})
	before := avroFiles(t, t2)
	if _, err := CommitChange(ctx, w.Catalog(), t2, FileChange{AddDeletes: []iceberg.DataFile{dv3}}); err == nil {
		t.Fatal("a second live DV for one data file was accepted")
	}
	if after := avroFiles(t, t2); !slices.Equal(before, after) {
		t.Fatalf("stray manifests after a refused change: %v", after)
	}
}

func TestFileChangeOperation(t *testing.T) {
	df := []iceberg.DataFile{nil}
	cases := []struct {
		c    FileChange
		want table.Operation
		err  bool
	}{
		{FileChange{AddData: df}, table.OpAppend, false},
		{FileChange{RemoveData: df}, table.OpDelete, false},
		{FileChange{AddDeletes: df}, table.OpDelete, false},
		{FileChange{RemoveDeletes: df, AddDeletes: df}, table.OpDelete, false},
		{FileChange{AddData: df, RemoveData: df}, table.OpOverwrite, false},
		{FileChange{AddData: df, AddDeletes: df}, table.OpOverwrite, false},
		{FileChange{AddData: df, RemoveData: df, Operation: table.OpReplace}, table.OpReplace, false},
		{FileChange{AddData: df, RemoveData: df, Operation: table.OpAppend}, "", true},
		{FileChange{AddData: df, Operation: "merge"}, "", true},
	}
	for i, tc := range cases {
		got, err := tc.c.operation()
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("case %d: got %q, %v; want %q (error %v)", i, got, err, tc.want, tc.err)
		}
	}
}

// TestTransactionNetChange runs two statements as a transaction would: the
// second is planned against the first's staged view, and their net change
// commits as one snapshot from the original base.
func TestTransactionNetChange(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "tx", 3)
	cols := pcCols()
	appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	base := appendRows(t, w, ident, cols, genRows(cols, 10, 20))
	ids, files := fileIDs(t, base)
	f, g := fileWithFirstID(t, ids, files, 0), fileWithFirstID(t, ids, files, 10)
	baseAvro := avroFiles(t, base)

	h := writeRows(t, base, 100, 105)
	dv1 := writeDV(t, base, "tx-dv1", f, []int64{0})
	c1 := FileChange{AddData: h, AddDeletes: []iceberg.DataFile{dv1}}
	staged1, err := StageChange(ctx, base, c1)
	if err != nil {
		t.Fatal(err)
	}
	view1, err := staged1.View(base)
	if err != nil {
		t.Fatal(err)
	}
	var want []row
	for _, id := range slices.Concat(dropPositions(ids[f.FilePath()], 0), ids[g.FilePath()]) {
		want = append(want, genRows(cols, int(id), int(id)+1)...)
	}
	assertSameRows(t, icebergGoRows(t, view1), append(want, genRows(cols, 100, 105)...))

	dv2 := writeDV(t, view1, "tx-dv2", f, []int64{0, 1})
	c2 := FileChange{RemoveData: append([]iceberg.DataFile{g}, h...), RemoveDeletes: []iceberg.DataFile{dv1}, AddDeletes: []iceberg.DataFile{dv2}}
	staged2, err := StageChange(ctx, view1, c2)
	if err != nil {
		t.Fatalf("stage against the view: %v", err)
	}
	net, orphans, err := c1.Then(c2)
	if err != nil {
		t.Fatal(err)
	}
	wantOrphans := append(filePaths(h), dv1.FilePath())
	if !slices.Equal(orphans, wantOrphans) {
		t.Fatalf("orphans %v, want %v", orphans, wantOrphans)
	}
	staged1.Discard()
	staged2.Discard()
	if got := avroFiles(t, base); !slices.Equal(got, baseAvro) {
		t.Fatalf("discarded stagings left files: %v", got)
	}

	got, err := CommitChange(ctx, w.Catalog(), base, net)
	if err != nil {
		t.Fatalf("commit net change: %v", err)
	}
	if snapshotCount(got) != snapshotCount(base)+1 || got.CurrentSnapshot().Summary.Operation != table.OpDelete {
		t.Fatalf("want one delete snapshot, got %d snapshots, %s", snapshotCount(got), got.CurrentSnapshot().Summary.Operation)
	}
	want = nil
	for _, id := range dropPositions(ids[f.FilePath()], 0, 1) {
		want = append(want, genRows(cols, int(id), int(id)+1)...)
	}
	assertSameRows(t, icebergGoRows(t, got), want)
}

func TestThenRefusals(t *testing.T) {
	data := func(p string) iceberg.DataFile { return fakeFile(t, p, iceberg.EntryContentData) }
	eq := fakeFile(t, "eq.parquet", iceberg.EntryContentEqDeletes)
	if _, _, err := (FileChange{AddData: []iceberg.DataFile{data("a")}}).Then(FileChange{AddDeletes: []iceberg.DataFile{eq}}); err == nil {
		t.Error("equality deletes after added data were merged into one snapshot")
	}
	if _, _, err := (FileChange{RemoveData: []iceberg.DataFile{data("a")}}).Then(FileChange{RemoveData: []iceberg.DataFile{data("a")}}); err == nil {
		t.Error("a file removed twice was accepted")
	}
	net, orphans, err := (FileChange{RemoveData: []iceberg.DataFile{data("a")}, AddData: []iceberg.DataFile{data("b")}}).
		Then(FileChange{RemoveData: []iceberg.DataFile{data("b")}, AddData: []iceberg.DataFile{data("c")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := filePaths(net.RemoveData); !slices.Equal(got, []string{"a"}) {
		t.Errorf("net removals %v", got)
	}
	if got := filePaths(net.AddData); !slices.Equal(got, []string{"c"}) || !slices.Equal(orphans, []string{"b"}) {
		t.Errorf("net additions %v, orphans %v", got, orphans)
	}
}

// TestNetChangeKeepsRebase: a transaction block's net change, and a group
// commit's union, rebase as the change that carried a rebase did, whichever
// step it was: a delete's position-level rebase is not lost to an INSERT
// (which carries none) before or after it.
func TestNetChangeKeepsRebase(t *testing.T) {
	errMine := errors.New("the delete's rebase")
	mine := func(context.Context, RebaseInput) (FileChange, []string, error) { return FileChange{}, nil, errMine }
	insert := FileChange{AddData: []iceberg.DataFile{fakeFile(t, "new.parquet", iceberg.EntryContentData)}}
	del := FileChange{RemoveData: []iceberg.DataFile{fakeFile(t, "old.parquet", iceberg.EntryContentData)}, Rebase: mine}
	for name, pair := range map[string][2]FileChange{"insert then delete": {insert, del}, "delete then insert": {del, insert}} {
		net, _, err := pair[0].Then(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		for what, c := range map[string]FileChange{"net": net, "union": unionChange(pair[0], pair[1])} {
			if _, _, err := c.rebaser()(context.Background(), RebaseInput{}); !errors.Is(err, errMine) {
				t.Errorf("%s, %s: rebased by %v, not by the delete's rebase", name, what, err)
			}
		}
	}
	more := FileChange{AddData: []iceberg.DataFile{fakeFile(t, "more.parquet", iceberg.EntryContentData)}}
	if net, _, err := insert.Then(more); err != nil || net.Rebase != nil {
		t.Errorf("a net change of inserts carries a rebase (%v)", err)
	}
}

func fakeFile(t *testing.T, path string, content iceberg.ManifestEntryContent) iceberg.DataFile {
	t.Helper()
	b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, content, path, iceberg.ParquetFile, nil, nil, nil, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	return b.Build()
}
