package lake

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// writeCols has a source column of each type a partition spec of the
// equality test takes, most with NULLs, and decimals of each storage.
func writeCols() []testCol {
	return []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }},
		{"l", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, nullEvery(11, func(i int) any { return int64(i%5) - 2 })},
		{"i", iceberg.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, nullEvery(6, func(i int) any { return int32(i%7*13 - 40) })},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, nullEvery(9, func(i int) any { return []string{"", "k1", "k2/x y", "abc&d"}[i%4] })},
		{"dt", iceberg.PrimitiveTypes.Date, arrow.FixedWidthTypes.Date32, nullEvery(8, func(i int) any { return arrow.Date32(-400 + i%6*197) })},
		{"ts", iceberg.PrimitiveTypes.Timestamp, &arrow.TimestampType{Unit: arrow.Microsecond},
			func(i int) any {
				return arrow.Timestamp(1_600_000_000_000_000 + int64(i%5)*20*86_400_000_000 + int64(i%3)*3_600_000_000)
			}},
		{"tstz", iceberg.PrimitiveTypes.TimestampTz, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			nullEvery(7, func(i int) any { return arrow.Timestamp(-86_400_000_000 + int64(i%4)*30_000_000_000) })},
		{"dec", iceberg.DecimalTypeOf(9, 2), &arrow.Decimal128Type{Precision: 9, Scale: 2},
			nullEvery(5, func(i int) any { return decimal128.FromI64(int64(i%4*1234 - 2000)) })},
		{"b", iceberg.PrimitiveTypes.Bool, arrow.FixedWidthTypes.Boolean, nullEvery(10, func(i int) any { return i%3 == 0 })},
		{"amount", iceberg.DecimalTypeOf(15, 2), &arrow.Decimal128Type{Precision: 15, Scale: 2},
			nullEvery(13, func(i int) any { return decimal128.FromI64(int64(i)*987_654_321 - 5_000_000_000) })},
		{"big", iceberg.DecimalTypeOf(38, 4), &arrow.Decimal128Type{Precision: 38, Scale: 4},
			nullEvery(4, func(i int) any {
				return decimal128.FromI64(int64(i) * 1_000_003).Mul(decimal128.FromI64(-1_000_000_007))
			})},
	}
}

// TestDataWriterMatchesIcebergGo writes the same rows through iceberg-go's
// table.WriteRecords and through WriteDataFiles (magmalake's writer) into
// tables of the same spec, for specs covering every transform on the
// source types a table partitions by, with NULL partition values: the
// files agree on partition values, record counts, bounds, value and null
// counts and partition directory, and are named with the write's uuid.
func TestDataWriterMatchesIcebergGo(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := writeCols()
	rows := genRows(cols, 0, 300)
	specs := map[string][]PartitionField{
		"none":        nil,
		"ident_int":   {{Source: "i", Transform: iceberg.IdentityTransform{}}},
		"ident_long":  {{Source: "l", Transform: iceberg.IdentityTransform{}}},
		"ident_str":   {{Source: "s", Transform: iceberg.IdentityTransform{}}},
		"ident_date":  {{Source: "dt", Transform: iceberg.IdentityTransform{}}},
		"ident_ts":    {{Source: "ts", Transform: iceberg.IdentityTransform{}}},
		"ident_tstz":  {{Source: "tstz", Transform: iceberg.IdentityTransform{}}},
		"ident_dec":   {{Source: "dec", Transform: iceberg.IdentityTransform{}}},
		"ident_bool":  {{Source: "b", Transform: iceberg.IdentityTransform{}}},
		"bucket":      {{Source: "id", Transform: iceberg.BucketTransform{NumBuckets: 4}}, {Source: "s", Transform: iceberg.BucketTransform{NumBuckets: 3}}, {Source: "dec", Transform: iceberg.BucketTransform{NumBuckets: 2}}},
		"truncate":    {{Source: "s", Transform: iceberg.TruncateTransform{Width: 2}}, {Source: "i", Transform: iceberg.TruncateTransform{Width: 10}}, {Source: "dec", Transform: iceberg.TruncateTransform{Width: 1000}}, {Source: "l", Transform: iceberg.TruncateTransform{Width: 3}}},
		"time":        {{Source: "dt", Transform: iceberg.YearTransform{}}, {Source: "ts", Transform: iceberg.MonthTransform{}}, {Source: "tstz", Transform: iceberg.DayTransform{}}},
		"time2":       {{Source: "dt", Transform: iceberg.MonthTransform{}}, {Source: "ts", Transform: iceberg.HourTransform{}}, {Source: "tstz", Transform: iceberg.YearTransform{}}},
		"time3":       {{Source: "dt", Transform: iceberg.DayTransform{}}, {Source: "ts", Transform: iceberg.DayTransform{}}, {Source: "tstz", Transform: iceberg.HourTransform{}}},
		"time4":       {{Source: "ts", Transform: iceberg.YearTransform{}}, {Source: "tstz", Transform: iceberg.MonthTransform{}}},
		"void":        {{Source: "i", Transform: iceberg.VoidTransform{}}},
		"void_mixed":  {{Source: "s", Transform: iceberg.IdentityTransform{}}, {Source: "l", Transform: iceberg.VoidTransform{}}, {Source: "b", Transform: iceberg.IdentityTransform{}}},
		"multi_field": {{Source: "b", Transform: iceberg.IdentityTransform{}}, {Source: "dt", Transform: iceberg.DayTransform{}}, {Source: "dec", Transform: iceberg.IdentityTransform{}}},
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			theirs := w.createWriteTest(t, "theirs_"+name, cols, specs[name])
			ours := w.createWriteTest(t, "ours_"+name, cols, specs[name])
			if _, ok, err := newDataWriter(ctx, ours, ours.Schema(), mustWriteSchema(t, ours, cols), [16]byte{}); err != nil || !ok {
				t.Fatalf("magmalake's writer does not take spec %s (%v)", name, err)
			}
			// iceberg-go's writer fed as WriteDataFiles fed it before: a batch
			// with an empty string split by partition (see partitionSplitter).
			var want []iceberg.DataFile
			target := mustWriteSchema(t, theirs, cols)
			splitter := newPartitionSplitter(theirs.Schema(), theirs.Spec(), target)
			input := func(yield func(arrow.RecordBatch, error) bool) {
				for b := range batchesOf(t, cols, rows, 3) {
					b, err := toWriteBatch(b, target)
					if err != nil {
						t.Fatal(err)
					}
					parts, err := splitter.split(ctx, b)
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range parts {
						if !yield(p, nil) {
							return
						}
					}
				}
			}
			for df, err := range table.WriteRecords(ctx, theirs, target, input) {
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, df)
			}
			got, err := WriteDataFiles(ctx, ours, batchesOf(t, cols, rows, 3))
			if err != nil {
				t.Fatal(err)
			}
			compareDataFiles(t, ours, theirs, got, want)
		})
	}
}

func (w *Warehouse) createWriteTest(t *testing.T, name string, cols []testCol, fields []PartitionField) *table.Table {
	t.Helper()
	tbl, err := w.Tables().CreateTable(context.Background(), Ident("public", name), icebergSchema(cols), TableSpec{Fields: fields}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func mustWriteSchema(t *testing.T, tbl *table.Table, cols []testCol) *arrow.Schema {
	t.Helper()
	rec := buildBatch(t, cols, nil)
	defer rec.Release()
	sc, err := writeSchema(tbl.Schema(), rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// batchesOf yields rows as n batches of the write schema's types.
func batchesOf(t *testing.T, cols []testCol, rows []row, n int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for k := range n {
			part := rows[k*len(rows)/n : (k+1)*len(rows)/n]
			if !yield(buildBatch(t, cols, part), nil) {
				return
			}
		}
	}
}

var dataFileName = regexp.MustCompile(`^\d{5}-\d+-([0-9a-f-]{36})-\d{5}\.parquet$`)

// compareDataFiles matches got and want by partition directory.
func compareDataFiles(t *testing.T, ours, theirs *table.Table, got, want []iceberg.DataFile) {
	t.Helper()
	byDir := func(tbl *table.Table, files []iceberg.DataFile) map[string]iceberg.DataFile {
		out := map[string]iceberg.DataFile{}
		for _, f := range files {
			rel := strings.TrimPrefix(f.FilePath(), tbl.Location())
			if !dataFileName.MatchString(path.Base(rel)) {
				t.Errorf("file name %s is not iceberg-go's pattern", path.Base(rel))
			}
			dir := path.Dir(rel)
			if _, dup := out[dir]; dup {
				t.Fatalf("two files in %s", dir)
			}
			out[dir] = f
		}
		return out
	}
	g, wnt := byDir(ours, got), byDir(theirs, want)
	if len(g) != len(wnt) {
		t.Fatalf("%d files, iceberg-go wrote %d: %v vs %v", len(g), len(wnt), keysOf(g), keysOf(wnt))
	}
	for dir, wf := range wnt {
		gf, ok := g[dir]
		if !ok {
			t.Errorf("no file in %s (have %v)", dir, keysOf(g))
			continue
		}
		check := func(what string, a, b any) {
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: %s %#v, iceberg-go's %#v", dir, what, a, b)
			}
		}
		check("partition", gf.Partition(), wf.Partition())
		check("record count", gf.Count(), wf.Count())
		check("lower bounds", gf.LowerBoundValues(), wf.LowerBoundValues())
		check("upper bounds", gf.UpperBoundValues(), wf.UpperBoundValues())
		check("null counts", gf.NullValueCounts(), wf.NullValueCounts())
		check("value counts", gf.ValueCounts(), wf.ValueCounts())
		check("spec", gf.SpecID(), wf.SpecID())
		check("content", gf.ContentType(), wf.ContentType())
	}
	if len(got) > 0 {
		checkDecimalStorage(t, got[0].FilePath())
	}
}

// checkDecimalStorage: the writeCols decimals are INT32, INT64 and FLBA.
func checkDecimalStorage(t *testing.T, p string) {
	t.Helper()
	local, err := url.PathUnescape(strings.TrimPrefix(p, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := file.OpenParquetFile(local, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	want := map[string]parquet.Type{"dec": parquet.Types.Int32, "amount": parquet.Types.Int64, "big": parquet.Types.FixedLenByteArray}
	sc := pr.MetaData().Schema
	for i := range sc.NumColumns() {
		if w, ok := want[sc.Column(i).Name()]; ok && sc.Column(i).PhysicalType() != w {
			t.Errorf("%s stored as %s, want %s", sc.Column(i).Name(), sc.Column(i).PhysicalType(), w)
		}
	}
}

func keysOf(m map[string]iceberg.DataFile) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDataWriterRollsFiles: files end once their flushed row groups reach
// write.target-file-size-bytes, per partition; every file is named with
// the write's uuid and the rows add up.
func TestDataWriterRollsFiles(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := writeCols()
	for _, fields := range [][]PartitionField{nil, {{Source: "b", Transform: iceberg.IdentityTransform{}}}} {
		name := fmt.Sprintf("roll%d", len(fields))
		tbl, err := w.Tables().CreateTable(ctx, Ident("public", name), icebergSchema(cols), TableSpec{Fields: fields},
			map[string]string{PropRowGroupLimit: "100", table.WriteTargetFileSizeBytesKey: "1"})
		if err != nil {
			t.Fatal(err)
		}
		rows := genRows(cols, 0, 1000)
		files, err := WriteDataFiles(ctx, tbl, batchesOf(t, cols, rows, 10))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		uuids := map[string]bool{}
		for _, f := range files {
			n += f.Count()
			base := path.Base(f.FilePath())
			m := dataFileName.FindStringSubmatch(base)
			if m == nil {
				t.Fatalf("file name %s", base)
			}
			uuids[m[1]] = true
			if f.Count() > 100 {
				t.Errorf("%s: %d rows, more than one row group of 100 before the roll", base, f.Count())
			}
		}
		if n != 1000 || len(files) < 10 || len(uuids) != 1 {
			t.Fatalf("%s: %d files of %d rows, %d write ids", name, len(files), n, len(uuids))
		}
		if _, err := Append(ctx, w, Ident("public", name), files, nil); err != nil {
			t.Fatal(err)
		}
		tbl, _ = w.LoadTable(ctx, Ident("public", name))
		_, got := scanAll(t, tbl, ScanOptions{})
		if len(got) != 1000 {
			t.Fatalf("%s: scan reads %d rows", name, len(got))
		}
	}
}

// TestDataWriterLineage: WriteDataFilesWithLineage writes _row_id and
// _last_updated_sequence_number under their reserved field ids (NULLs
// kept: they inherit), through magmalake's writer (decimals as integers).
func TestDataWriterLineage(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := append(writeCols(),
		testCol{iceberg.RowIDColumnName, iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, nullEvery(3, func(i int) any { return int64(1000 + i) })},
		testCol{iceberg.LastUpdatedSequenceNumberColumnName, iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, nullEvery(3, func(i int) any { return int64(7) })})
	tbl, err := w.Tables().CreateTable(ctx, Ident("public", "lin"), icebergSchema(writeCols()), TableSpec{}, map[string]string{"format-version": "3"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteDataFilesWithLineage(ctx, tbl, batchesOf(t, cols, genRows(cols, 0, 50), 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Count() != 50 {
		t.Fatalf("%d files", len(files))
	}
	checkDecimalStorage(t, files[0].FilePath())
	pr, err := file.OpenParquetFile(strings.TrimPrefix(files[0].FilePath(), "file://"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	sc := pr.MetaData().Schema
	for name, id := range map[string]int32{iceberg.RowIDColumnName: iceberg.RowIDFieldID, iceberg.LastUpdatedSequenceNumberColumnName: iceberg.LastUpdatedSequenceNumberFieldID} {
		i := sc.ColumnIndexByName(name)
		if i < 0 || sc.Column(i).SchemaNode().FieldID() != id {
			t.Fatalf("column %s: index %d, want field id %d", name, i, id)
		}
	}
	if got := files[0].NullValueCounts()[iceberg.RowIDFieldID]; got != 16 {
		t.Fatalf("_row_id null count %d, want 16", got)
	}
}

// TestDataWriterLeavesToIcebergGo: a table with a writer property
// magmalake's layout does not honour (a bloom filter here) is written by
// iceberg-go's writer, as before: its decimals stay FLBA.
func TestDataWriterLeavesToIcebergGo(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := writeCols()
	tbl, err := w.Tables().CreateTable(ctx, Ident("public", "bloom"), icebergSchema(cols), TableSpec{},
		map[string]string{table.ParquetBloomFilterColumnEnabledKeyPrefix + ".amount": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := newDataWriter(ctx, tbl, tbl.Schema(), mustWriteSchema(t, tbl, cols), [16]byte{}); ok || err != nil {
		t.Fatalf("magmalake's writer took a table with a bloom filter (%v)", err)
	}
	files, err := WriteDataFiles(ctx, tbl, batchesOf(t, cols, genRows(cols, 0, 20), 1))
	if err != nil || len(files) != 1 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	local, _ := url.PathUnescape(strings.TrimPrefix(files[0].FilePath(), "file://"))
	pr, err := file.OpenParquetFile(local, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	sc := pr.MetaData().Schema
	if got := sc.Column(sc.ColumnIndexByName("amount")).PhysicalType(); got != parquet.Types.FixedLenByteArray {
		t.Fatalf("iceberg-go's file stores amount as %s", got)
	}
}
