package lake

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// testCol is one column of a generated test table: its Iceberg type, the
// Arrow type the executor contract prescribes for it (written out here, not
// derived from the code under test), and a value generator (nil = NULL).
type testCol struct {
	name  string
	it    iceberg.Type
	arrow arrow.DataType
	gen   func(i int) any
}

// row is one model row: column name -> Go value in the Arrow value domain.
type row map[string]any

func nullEvery(n int, f func(i int) any) func(i int) any {
	return func(i int) any {
		if i%n == n-1 {
			return nil
		}
		return f(i)
	}
}

// allTypeCols covers every Iceberg primitive type; "id" is the row key.
func allTypeCols() []testCol {
	return []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }},
		{"b", iceberg.PrimitiveTypes.Bool, arrow.FixedWidthTypes.Boolean, nullEvery(5, func(i int) any { return i%2 == 0 })},
		{"i", iceberg.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, nullEvery(6, func(i int) any { return int32(i*7 - 50) })},
		{"f", iceberg.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float32, nullEvery(7, func(i int) any { return float32(i) / 4 })},
		{"d", iceberg.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64, nullEvery(8, func(i int) any { return float64(i)*1.5 - 3 })},
		{"dec", iceberg.DecimalTypeOf(10, 2), &arrow.Decimal128Type{Precision: 10, Scale: 2},
			nullEvery(5, func(i int) any { return decimal128.FromI64(int64(i*1234 - 999)) })},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, nullEvery(9, func(i int) any { return fmt.Sprintf("str-%03d<&>", i) })},
		{"bin", iceberg.PrimitiveTypes.Binary, arrow.BinaryTypes.Binary, nullEvery(4, func(i int) any { return []byte{byte(i), 0, 0xff} })},
		{"dt", iceberg.PrimitiveTypes.Date, arrow.FixedWidthTypes.Date32, nullEvery(6, func(i int) any { return arrow.Date32(18000 + i*40) })},
		{"tm", iceberg.PrimitiveTypes.Time, arrow.FixedWidthTypes.Time64us, nullEvery(7, func(i int) any { return arrow.Time64(int64(i) * 3_600_000_123 % 86_400_000_000) })},
		{"ts", iceberg.PrimitiveTypes.Timestamp, &arrow.TimestampType{Unit: arrow.Microsecond},
			nullEvery(5, func(i int) any { return arrow.Timestamp(1_600_000_000_000_000 + int64(i)*86_400_000_001*17) })},
		{"tstz", iceberg.PrimitiveTypes.TimestampTz, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			nullEvery(6, func(i int) any { return arrow.Timestamp(1_700_000_000_000_000 + int64(i)*3_600_000_000*5) })},
		{"u", iceberg.PrimitiveTypes.UUID, extensions.NewUUIDType(), nullEvery(3, func(i int) any { return uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}) })},
	}
}

func icebergSchema(cols []testCol) *iceberg.Schema {
	fields := make([]iceberg.NestedField, len(cols))
	for i, c := range cols {
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.name, Type: c.it, Required: c.name == "id"}
	}
	return iceberg.NewSchema(0, fields...)
}

// genRows produces rows [from, to) of the model.
func genRows(cols []testCol, from, to int) []row {
	rows := make([]row, 0, to-from)
	for i := from; i < to; i++ {
		r := row{}
		for _, c := range cols {
			r[c.name] = c.gen(i)
		}
		rows = append(rows, r)
	}
	return rows
}

// buildBatch builds an executor-typed batch of rows.
func buildBatch(t *testing.T, cols []testCol, rows []row) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.arrow, Nullable: c.name != "id"}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for i, c := range cols {
			appendValue(t, b.Field(i), r[c.name])
		}
	}
	return b.NewRecordBatch()
}

func appendValue(t *testing.T, b array.Builder, v any) {
	t.Helper()
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.Decimal128Builder:
		bb.Append(v.(decimal128.Num))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(v.(arrow.Date32))
	case *array.Time64Builder:
		bb.Append(v.(arrow.Time64))
	case *array.TimestampBuilder:
		bb.Append(v.(arrow.Timestamp))
	case *extensions.UUIDBuilder:
		bb.Append(v.(uuid.UUID))
	default:
		t.Fatalf("no appender for %T", b)
	}
}

// valueAt reads arr[i] into the same Go domain genRows uses.
func valueAt(t *testing.T, arr arrow.Array, i int) any {
	t.Helper()
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Date32:
		return a.Value(i)
	case *array.Time64:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i)
	case *extensions.UUIDArray:
		return a.Value(i)
	}
	t.Fatalf("no reader for %s", arr.DataType())
	return nil
}

// collectRows drains a batch iterator into rows keyed by column name.
func collectRows(t *testing.T, batches iter.Seq2[arrow.RecordBatch, error]) []row {
	t.Helper()
	var out []row
	for rec, err := range batches {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		out = append(out, recordRows(t, rec)...)
		rec.Release()
	}
	return out
}

func recordRows(t *testing.T, rec arrow.RecordBatch) []row {
	t.Helper()
	var out []row
	for i := range int(rec.NumRows()) {
		r := row{}
		for c, f := range rec.Schema().Fields() {
			r[f.Name] = valueAt(t, rec.Column(c), i)
		}
		out = append(out, r)
	}
	return out
}

// assertSameRows compares row sets ignoring order (keyed by "id").
func assertSameRows(t *testing.T, got, want []row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	sortByID(got)
	sortByID(want)
	for i := range want {
		for k, wv := range want[i] {
			if gv := got[i][k]; !reflect.DeepEqual(gv, wv) {
				t.Fatalf("row id=%v column %s: got %#v, want %#v", want[i]["id"], k, gv, wv)
			}
		}
		if len(got[i]) != len(want[i]) {
			t.Fatalf("row id=%v: got columns %v, want %v", want[i]["id"], keys(got[i]), keys(want[i]))
		}
	}
}

func keys(r row) []string {
	var ks []string
	for k := range r {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sortByID(rows []row) {
	sort.Slice(rows, func(a, b int) bool { return rows[a]["id"].(int64) < rows[b]["id"].(int64) })
}

func openTest(t *testing.T, dir string) *Warehouse {
	t.Helper()
	w, err := Open(context.Background(), Config{DataDir: dir})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// appendRows writes and commits rows in one snapshot.
func appendRows(t *testing.T, w *Warehouse, ident table.Identifier, cols []testCol, rows []row) *table.Table {
	t.Helper()
	ctx := context.Background()
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteDataFiles(ctx, tbl, oneBatch(buildBatch(t, cols, rows)))
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	out, err := Append(ctx, w, ident, files, nil)
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	return out
}

// appendRowsIcebergGo is appendRows with the data file written by
// iceberg-go's writer.
func appendRowsIcebergGo(t *testing.T, w *Warehouse, ident table.Identifier, cols []testCol, rows []row) *table.Table {
	t.Helper()
	ctx := context.Background()
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	rec := buildBatch(t, cols, rows)
	var files []iceberg.DataFile
	for df, err := range table.WriteRecords(ctx, tbl, rec.Schema(), oneBatch(rec)) {
		if err != nil {
			t.Fatalf("write: %v", err)
		}
		files = append(files, df)
	}
	out, err := Append(ctx, w, ident, files, nil)
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	return out
}

func oneBatch(rec arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
}

func scanAll(t *testing.T, tbl *table.Table, opts ScanOptions) (*arrow.Schema, []row) {
	t.Helper()
	sc, batches, err := Scan(context.Background(), tbl, opts)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return sc, collectRows(t, batches)
}

// icebergGoRows reads tbl through iceberg-go's own scan path.
func icebergGoRows(t *testing.T, tbl *table.Table) []row {
	t.Helper()
	at, err := tbl.Scan().ToArrowTable(context.Background())
	if err != nil {
		t.Fatalf("iceberg-go scan: %v", err)
	}
	defer at.Release()
	rdr := array.NewTableReader(at, 0)
	defer rdr.Release()
	var out []row
	for rdr.Next() {
		out = append(out, recordRows(t, rdr.RecordBatch())...)
	}
	return out
}
