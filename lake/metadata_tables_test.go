package lake

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

func TestTimeTravel(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()[:4]
	ident := Ident("public", "tt")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	first := genRows(cols, 0, 6)
	tbl1 := appendRows(t, w, ident, cols, first)
	snap1 := tbl1.CurrentSnapshot()

	// Evolve the schema, then append again.
	tx := tbl1.NewTransaction()
	if err := tx.UpdateSchema(true, false).AddColumn([]string{"extra"}, iceberg.PrimitiveTypes.Int32, "", false, nil).Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tbl := appendRows(t, w, ident, cols, genRows(cols, 6, 10))

	sc, got := scanAll(t, tbl, ScanOptions{SnapshotID: &snap1.SnapshotID})
	if sc.NumFields() != len(cols) {
		t.Fatalf("old snapshot read with %d columns, want its own schema's %d", sc.NumFields(), len(cols))
	}
	assertSameRows(t, got, first)

	ts := snap1.TimestampMs
	_, got = scanAll(t, tbl, ScanOptions{AsOfTimestampMs: &ts})
	assertSameRows(t, got, first)

	sc, got = scanAll(t, tbl, ScanOptions{})
	if sc.NumFields() != len(cols)+1 || len(got) != 10 || got[0]["extra"] != nil {
		t.Fatalf("current: %d fields, %d rows", sc.NumFields(), len(got))
	}

	before := ts - 1
	_, _, err := Scan(ctx, tbl, ScanOptions{AsOfTimestampMs: &before})
	if !errors.Is(err, ErrNoSnapshotAsOf) || !strings.Contains(err.Error(), "20") {
		t.Fatalf("before first snapshot: %v", err)
	}
	missing := int64(12345)
	if _, _, err := Scan(ctx, tbl, ScanOptions{SnapshotID: &missing}); !errors.Is(err, ErrNoSuchSnapshot) {
		t.Fatalf("missing snapshot: %v", err)
	}
}

func TestMetadataTables(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := partCols()
	ident := Ident("public", "meta")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{Fields: partSpec().Fields[1:2]}, nil); err != nil {
		t.Fatal(err)
	}
	appendRows(t, w, ident, cols, genRows(cols, 0, 7))
	tbl := appendRows(t, w, ident, cols, genRows(cols, 7, 12))

	snaps := readMeta(t, tbl, "snapshots", table.InspectTable.Snapshots)
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	added := 0
	for _, s := range snaps {
		if s["operation"] != "append" {
			t.Fatalf("operation %v", s["operation"])
		}
		var summary map[string]string
		if err := json.Unmarshal([]byte(s["summary"].(string)), &summary); err != nil {
			t.Fatalf("summary %q: %v", s["summary"], err)
		}
		n, _ := strconv.Atoi(summary["added-records"])
		added += n
	}
	if added != 12 {
		t.Fatalf("added-records sum %d", added)
	}
	_, ms, _ := metaTable(t, tbl, "snapshots", table.InspectTable.Snapshots)
	if f, _ := ms.FieldsByName("committed_at"); !arrow.TypeEqual(f[0].Type, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}) {
		t.Fatalf("committed_at is %s", f[0].Type)
	}

	// files: one per distinct partition value of s per append.
	wantFiles := 0
	for _, rng := range [][2]int{{0, 7}, {7, 12}} {
		distinct := map[any]bool{}
		for _, r := range genRows(cols, rng[0], rng[1]) {
			distinct[r["s"]] = true
		}
		wantFiles += len(distinct)
	}
	files := readMeta(t, tbl, "files", table.InspectTable.Files)
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tasks) || len(files) != wantFiles {
		t.Fatalf("%d files rows, %d planned files", len(files), len(tasks))
	}
	var recs int64
	for _, f := range files {
		recs += f["record_count"].(int64)
		var part map[string]any
		if err := json.Unmarshal([]byte(f["partition"].(string)), &part); err != nil {
			t.Fatalf("partition %q: %v", f["partition"], err)
		}
		var bounds map[string]any
		if err := json.Unmarshal([]byte(f["lower_bounds"].(string)), &bounds); err != nil {
			t.Fatalf("lower_bounds %q: %v", f["lower_bounds"], err)
		}
	}
	if recs != 12 {
		t.Fatalf("record_count sum %d", recs)
	}
	if h := readMeta(t, tbl, "history", table.InspectTable.History); len(h) != 2 {
		t.Fatalf("history %d rows", len(h))
	}
	refs := readMeta(t, tbl, "refs", table.InspectTable.Refs)
	if len(refs) != 1 || refs[0]["name"] != "main" || refs[0]["snapshot_id"] != tbl.CurrentSnapshot().SnapshotID {
		t.Fatalf("refs %v", refs)
	}
	if d := readMeta(t, tbl, "delete_files", table.InspectTable.DeleteFiles); len(d) != 0 {
		t.Fatalf("delete_files %d rows", len(d))
	}
	for name, read := range map[string]Inspection{"manifests": table.InspectTable.Manifests,
		"partitions": table.InspectTable.Partitions, "entries": table.InspectTable.Entries} {
		if rows := readMeta(t, tbl, name, read); len(rows) == 0 {
			t.Fatalf("%s is empty", name)
		}
	}
}

// metaTable reads a metadata table and checks every column uses an executor type.
func metaTable(t *testing.T, tbl *table.Table, name string, read Inspection) ([]arrow.RecordBatch, *arrow.Schema, error) {
	t.Helper()
	sc, batches, err := Inspect(context.Background(), tbl, name, read)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, f := range sc.Fields() {
		switch f.Type.ID() {
		case arrow.BOOL, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128,
			arrow.STRING, arrow.BINARY, arrow.DATE32, arrow.TIME64, arrow.TIMESTAMP:
		default:
			t.Fatalf("%s.%s has type %s", name, f.Name, f.Type)
		}
	}
	return batches, sc, nil
}

func readMeta(t *testing.T, tbl *table.Table, name string, read Inspection) []row {
	t.Helper()
	batches, _, _ := metaTable(t, tbl, name, read)
	var out []row
	for _, b := range batches {
		for i := range int(b.NumRows()) {
			r := row{}
			for c, f := range b.Schema().Fields() {
				r[f.Name] = valueAt(t, b.Column(c), i)
			}
			out = append(out, r)
		}
		b.Release()
	}
	return out
}

// TestNestedColumnsAsJSON writes nested values through iceberg-go and checks
// Scan returns them as JSON text.
func TestNestedColumnsAsJSON(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "st", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 3, Name: "a", Type: iceberg.PrimitiveTypes.Int32},
			{ID: 4, Name: "b", Type: iceberg.PrimitiveTypes.String},
		}}},
		iceberg.NestedField{ID: 5, Name: "lst", Type: &iceberg.ListType{ElementID: 6, Element: iceberg.PrimitiveTypes.Int64}},
		iceberg.NestedField{ID: 7, Name: "mp", Type: &iceberg.MapType{KeyID: 8, KeyType: iceberg.PrimitiveTypes.String,
			ValueID: 9, ValueType: iceberg.PrimitiveTypes.Float64}},
		iceberg.NestedField{ID: 10, Name: "fx", Type: iceberg.FixedTypeOf(3)},
	)
	tbl, err := w.Tables().CreateTable(ctx, Ident("public", "nested"), sc, TableSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	as, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, as, strings.NewReader(`[
		{"id": 1, "st": {"a": 7, "b": "x\"<y"}, "lst": [1, 2, null], "mp": [{"key": "k", "value": 1.5}], "fx": "YWJj"},
		{"id": 2, "st": null, "lst": [], "mp": [], "fx": null}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rr, err := array.NewRecordReader(as, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	tbl, err = tbl.Append(ctx, rr, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, got := scanAll(t, tbl, ScanOptions{})
	for _, f := range out.Fields()[1:] {
		if !arrow.TypeEqual(f.Type, arrow.BinaryTypes.String) {
			t.Fatalf("%s is %s", f.Name, f.Type)
		}
	}
	want := []row{
		{"id": int64(1), "st": `{"a":7,"b":"x\"<y"}`, "lst": `[1,2,null]`, "mp": `{"k":1.5}`, "fx": `"\\x616263"`},
		{"id": int64(2), "st": nil, "lst": `[]`, "mp": `{}`, "fx": nil},
	}
	assertSameRows(t, got, want)
	for _, r := range got {
		for k, v := range r {
			if s, ok := v.(string); ok && !json.Valid([]byte(s)) {
				t.Fatalf("%s is not JSON: %s", k, s)
			}
		}
	}
}
