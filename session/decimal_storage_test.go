package session

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// decimalRows are (id, numeric(9,2), numeric(15,2), numeric(38,4)) rows:
// the largest and smallest values of each precision, zero, NULLs, small
// negatives.
var decimalRows = [][]string{
	{"1", "9999999.99", "9999999999999.99", "9999999999999999999999999999999999.9999"},
	{"2", "-9999999.99", "-9999999999999.99", "-9999999999999999999999999999999999.9999"},
	{"3", "0.00", "0.00", "0.0000"},
	{"4", "NULL", "NULL", "NULL"},
	{"5", "1.23", "-0.01", "0.0001"},
	{"6", "-1.23", "123456789.01", "-12345678901234567890.1234"},
}

// TestDecimalStorage: INSERT and COPY write numeric(9,2) as INT32,
// numeric(15,2) as INT64 and numeric(38,4) as FLBA (unconstrained numeric
// is not a table type); the values read back exactly
// through SELECT and through pqarrow reading each file directly.
func TestDecimalStorage(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE dn (id int, a numeric(9,2), b numeric(15,2), c numeric(38,4))")
	var values []string
	for _, r := range decimalRows[:3] {
		values = append(values, "("+strings.Join(r, ", ")+")")
	}
	mustQuery(t, s, "INSERT INTO dn VALUES "+strings.Join(values, ", "))
	var copyData strings.Builder
	for _, r := range decimalRows[3:] {
		copyData.WriteString(strings.ReplaceAll(strings.Join(r, "\t"), "NULL", `\N`) + "\n")
	}
	mustCopyIn(t, s, "COPY dn FROM STDIN", copyData.String(), int64(len(decimalRows)-3))

	got := mustQuery(t, s, "SELECT id, a, b, c FROM dn ORDER BY id").rows
	if !slices.EqualFunc(got, decimalRows, slices.Equal) {
		t.Fatalf("SELECT reads\n%v\nwant\n%v", got, decimalRows)
	}
	want := map[string]parquet.Type{"a": parquet.Types.Int32, "b": parquet.Types.Int64, "c": parquet.Types.FixedLenByteArray}
	read := readDecimalFiles(t, s, "dn", want)
	if !slices.EqualFunc(read, decimalRows, slices.Equal) {
		t.Fatalf("pqarrow reads the files as\n%v\nwant\n%v", read, decimalRows)
	}

	// Unconstrained numeric is not stored as a decimal: tables refuse it.
	mustFail(t, s, pgerr.FeatureNotSupported, "CREATE TABLE du (id int, n numeric)")
}

// readDecimalFiles checks the physical type of the named columns in every
// data file of the table and returns the files' rows as text (id first),
// read by pqarrow.
func readDecimalFiles(t *testing.T, s *Session, name string, want map[string]parquet.Type) [][]string {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) == 0 {
		t.Fatal("no data files")
	}
	var rows [][]string
	for _, task := range tasks {
		p := strings.TrimPrefix(task.File.FilePath(), "file://")
		pr, err := file.OpenParquetFile(p, false)
		if err != nil {
			t.Fatal(err)
		}
		sc := pr.MetaData().Schema
		for i := range sc.NumColumns() {
			if w, ok := want[sc.Column(i).Name()]; ok && sc.Column(i).PhysicalType() != w {
				t.Errorf("%s: column %s stored as %s, want %s", p, sc.Column(i).Name(), sc.Column(i).PhysicalType(), w)
			}
		}
		fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		at, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		tr := array.NewTableReader(at, 0)
		for tr.Next() {
			b := tr.RecordBatch()
			for r := range int(b.NumRows()) {
				row := make([]string, b.NumCols())
				for c := range row {
					col := b.Column(c)
					switch {
					case col.IsNull(r):
						row[c] = "NULL"
					case col.DataType().ID() == arrow.DECIMAL128:
						row[c] = col.(*array.Decimal128).Value(r).ToString(col.DataType().(*arrow.Decimal128Type).Scale)
					default:
						row[c] = col.ValueStr(r)
					}
				}
				rows = append(rows, row)
			}
		}
		tr.Release()
		at.Release()
		pr.Close()
	}
	slices.SortFunc(rows, func(a, b []string) int {
		x, _ := strconv.Atoi(a[0])
		y, _ := strconv.Atoi(b[0])
		return x - y
	})
	return rows
}

// TestDecimalMixedFiles: a table holding a file iceberg-go wrote (decimals
// as FLBA) and files magmalake wrote (INT64) reads right, prunes by its
// decimal bounds, and OPTIMIZE rewrites it into INT64 files.
func TestDecimalMixedFiles(t *testing.T) {
	s := testSession(t)
	ctx := t.Context()
	mustQuery(t, s, "CREATE TABLE dm (id int, d numeric(15,2))")
	tbl, err := s.engine.wh.LoadTable(ctx, lake.Ident("public", "dm"))
	if err != nil {
		t.Fatal(err)
	}
	// The old file: ids 1..100, d = id + 0.23, written by iceberg-go.
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	for i := 1; i <= 100; i++ {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)*100 + 23))
	}
	rec := b.NewRecordBatch()
	b.Release()
	var old []iceberg.DataFile
	for df, err := range table.WriteRecords(ctx, tbl, sc, iter.Seq2[arrow.RecordBatch, error](func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) })) {
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, df)
	}
	if _, err := lake.Append(ctx, s.engine.wh, lake.Ident("public", "dm"), old, nil); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, s, "INSERT INTO dm SELECT i, i + 0.23 FROM generate_series(101, 200) i")
	mustQuery(t, s, "INSERT INTO dm SELECT i, -i - 0.5 FROM generate_series(201, 300) i")
	types := physicalTypes(t, s, "dm", "d")
	if types[parquet.Types.FixedLenByteArray] != 1 || types[parquet.Types.Int64] != 2 {
		t.Fatalf("files store d as %v: want one FLBA and two INT64", types)
	}
	check := func(when string) {
		t.Helper()
		if got := mustQuery(t, s, "SELECT count(*), sum(d), min(d), max(d) FROM dm").rows[0]; fmt.Sprint(got) != "[300 -4954.00 -300.50 200.23]" {
			t.Fatalf("%s: aggregates %v", when, got)
		}
		for _, q := range []struct{ where, want string }{
			{"d = 1.23", "[[1]]"}, {"d = 150.23", "[[150]]"}, {"d = -250.50", "[[250]]"}, {"d = 1.24", "[]"},
		} {
			if got := mustQuery(t, s, "SELECT id FROM dm WHERE "+q.where).rows; fmt.Sprint(got) != q.want {
				t.Fatalf("%s: WHERE %s gives %v, want %s", when, q.where, got, q.want)
			}
		}
	}
	check("mixed")
	// Each equality prunes to the one file whose bounds hold the value.
	head, err := s.engine.wh.LoadTable(ctx, lake.Ident("public", "dm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{123, 15023, -25050} {
		var st lake.ScanStats
		lit := iceberg.Decimal{Val: decimal128.FromI64(v), Scale: 2}
		_, batches, err := lake.Scan(ctx, head, lake.ScanOptions{Filter: iceberg.EqualTo(iceberg.Reference("d"), lit), Stats: &st})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for b, err := range batches {
			if err != nil {
				t.Fatal(err)
			}
			n += int(b.NumRows())
			b.Release()
		}
		if st.DataFiles != 1 || n == 0 {
			t.Fatalf("d = %d/100: scanned %d data files (%d rows), want 1", v, st.DataFiles, n)
		}
	}
	mustQuery(t, s, "ALTER TABLE dm EXECUTE optimize")
	types = physicalTypes(t, s, "dm", "d")
	if types[parquet.Types.FixedLenByteArray] != 0 || types[parquet.Types.Int64] == 0 {
		t.Fatalf("after OPTIMIZE files store d as %v: want INT64 only", types)
	}
	check("optimized")
}

// physicalTypes counts the live data files of a table by the physical
// type they store col as.
func physicalTypes(t *testing.T, s *Session, name, col string) map[parquet.Type]int {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[parquet.Type]int{}
	for _, task := range tasks {
		pr, err := file.OpenParquetFile(strings.TrimPrefix(task.File.FilePath(), "file://"), false)
		if err != nil {
			t.Fatal(err)
		}
		sc := pr.MetaData().Schema
		out[sc.Column(sc.ColumnIndexByName(col)).PhysicalType()]++
		pr.Close()
	}
	return out
}

// TestDecimalDeleteFiles: position and equality delete files keyed by an
// INT64-stored decimal apply (and OPTIMIZE folds them in).
func TestDecimalDeleteFiles(t *testing.T) {
	for _, m := range optimizeModes {
		t.Run(m.name, func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, "CREATE TABLE dd (id int, d numeric(15,2), k numeric(9,2)) "+m.with)
			mustQuery(t, s, "INSERT INTO dd SELECT i, i + 0.23, i % 7 - 3.5 FROM generate_series(1, 500) i")
			if m.setup != "" {
				mustQuery(t, s, m.setup)
			}
			mustQuery(t, s, "DELETE FROM dd WHERE d = 10.23 OR d = 400.23 OR k = -3.50")
			check := func(when string) {
				t.Helper()
				if got := mustQuery(t, s, "SELECT count(*), sum(d), sum(k) FROM dd").rows[0]; fmt.Sprint(got) != "[427 107046.21 -1.50]" {
					t.Fatalf("%s: %v", when, got)
				}
			}
			check("deleted")
			mustQuery(t, s, "ALTER TABLE dd EXECUTE optimize(delete_ratio_threshold => 0.01)")
			check("optimized")
		})
	}
}
