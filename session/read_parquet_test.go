package session

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/magmalake/magmalake/pgerr"
)

// parquetGenColumn is one generated column: its Arrow type, the SQL type
// read_parquet must give it, and per row the value appended and the text
// PostgreSQL prints for it ("" for NULL).
type parquetGenColumn struct {
	name   string
	typ    arrow.DataType
	sqlTyp string
	gen    func(r *rand.Rand, b array.Builder) string
	approx bool // floating point: compared by value
}

func parquetGenColumns() []parquetGenColumn {
	base := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	return []parquetGenColumn{
		{"i8", arrow.PrimitiveTypes.Int8, "integer", func(r *rand.Rand, b array.Builder) string {
			v := int8(r.IntN(256) - 128)
			b.(*array.Int8Builder).Append(v)
			return fmt.Sprint(v)
		}, false},
		{"i16", arrow.PrimitiveTypes.Int16, "integer", func(r *rand.Rand, b array.Builder) string {
			v := int16(r.IntN(65536) - 32768)
			b.(*array.Int16Builder).Append(v)
			return fmt.Sprint(v)
		}, false},
		{"i64", arrow.PrimitiveTypes.Int64, "bigint", func(r *rand.Rand, b array.Builder) string {
			v := r.Int64() - 1<<62
			b.(*array.Int64Builder).Append(v)
			return fmt.Sprint(v)
		}, false},
		{"u32", arrow.PrimitiveTypes.Uint32, "bigint", func(r *rand.Rand, b array.Builder) string {
			v := r.Uint32()
			b.(*array.Uint32Builder).Append(v)
			return fmt.Sprint(v)
		}, false},
		{"f32", arrow.PrimitiveTypes.Float32, "real", func(r *rand.Rand, b array.Builder) string {
			v := float32(r.NormFloat64() * 100)
			b.(*array.Float32Builder).Append(v)
			return strconv.FormatFloat(float64(v), 'g', -1, 32)
		}, true},
		{"f64", arrow.PrimitiveTypes.Float64, "double precision", func(r *rand.Rand, b array.Builder) string {
			v := r.NormFloat64() * 1e9
			b.(*array.Float64Builder).Append(v)
			return strconv.FormatFloat(v, 'g', -1, 64)
		}, true},
		{"price", &arrow.Decimal128Type{Precision: 10, Scale: 2}, "numeric(10,2)", func(r *rand.Rand, b array.Builder) string {
			cents := r.Int64N(2e9) - 1e9
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(cents))
			sign := ""
			if cents < 0 {
				sign, cents = "-", -cents
			}
			return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
		}, false},
		{"s", arrow.BinaryTypes.String, "text", func(r *rand.Rand, b array.Builder) string {
			v := []string{"", "plain", "ünï", "a,b", "line\nbreak"}[r.IntN(5)] + fmt.Sprint(r.IntN(9))
			b.(*array.StringBuilder).Append(v)
			return v
		}, false},
		{"ls", arrow.BinaryTypes.LargeString, "text", func(r *rand.Rand, b array.Builder) string {
			v := strings.Repeat("x", r.IntN(5))
			b.(*array.LargeStringBuilder).Append(v)
			return v
		}, false},
		{"bin", arrow.BinaryTypes.Binary, "bytea", func(r *rand.Rand, b array.Builder) string {
			v := []byte{byte(r.IntN(256)), byte(r.IntN(256))}
			b.(*array.BinaryBuilder).Append(v)
			return `\x` + hex.EncodeToString(v)
		}, false},
		{"ok", arrow.FixedWidthTypes.Boolean, "boolean", func(r *rand.Rand, b array.Builder) string {
			v := r.IntN(2) == 0
			b.(*array.BooleanBuilder).Append(v)
			return map[bool]string{true: "t", false: "f"}[v]
		}, false},
		{"day", arrow.FixedWidthTypes.Date32, "date", func(r *rand.Rand, b array.Builder) string {
			d := base.AddDate(0, 0, r.IntN(20000)-10000)
			b.(*array.Date32Builder).Append(arrow.Date32FromTime(d))
			return d.Format("2006-01-02")
		}, false},
		{"at_ms", &arrow.TimestampType{Unit: arrow.Millisecond}, "timestamp without time zone", func(r *rand.Rand, b array.Builder) string {
			ts := base.Add(time.Duration(r.Int64N(1e12)) * time.Millisecond)
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMilli()))
			return strings.TrimSuffix(strings.TrimRight(ts.Format("2006-01-02 15:04:05.000"), "0"), ".")
		}, false},
		{"at_tz", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "timestamp with time zone", func(r *rand.Rand, b array.Builder) string {
			ts := base.Add(time.Duration(r.Int64N(1e15)) * time.Microsecond)
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
			return strings.TrimSuffix(strings.TrimRight(ts.Format("2006-01-02 15:04:05.000000"), "0"), ".") + "+00"
		}, false},
		{"ints", arrow.ListOf(arrow.PrimitiveTypes.Int32), "text", func(r *rand.Rand, b array.Builder) string {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			var parts []string
			for k := range r.IntN(3) {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(k * 7))
				parts = append(parts, fmt.Sprint(k*7))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}, false},
	}
}

// writeGenParquet writes rows [from, from+n) of the generated columns (and
// an id column) to path, in row groups of 100, returning the texts.
func writeGenParquet(t *testing.T, path string, cols []parquetGenColumn, from, n int) [][]string {
	t.Helper()
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for _, c := range cols {
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bld.Release()
	r := rand.New(rand.NewPCG(uint64(from), 3))
	var want [][]string
	for i := from; i < from+n; i++ {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		row := []string{fmt.Sprint(i)}
		for k, c := range cols {
			if r.IntN(7) == 0 {
				bld.Field(k + 1).AppendNull()
				row = append(row, "NULL")
				continue
			}
			row = append(row, c.gen(r, bld.Field(k+1)))
		}
		want = append(want, row)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100))
	fw, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestReadParquet: generated files of every Arrow type read_parquet maps
// (narrow and unsigned integers, decimals, large strings, binary, dates,
// timestamps of other units, lists) read back with the generator's values
// and types, through a glob, projected, counted and filtered; then
// CREATE TABLE AS and INSERT ... SELECT from the files hold the same rows.
func TestReadParquet(t *testing.T) {
	dir := t.TempDir()
	s := fileSession(t, dir)
	mustQuery(t, s, "SET TimeZone = 'UTC'")
	cols := parquetGenColumns()
	var want [][]string
	for k := range 3 {
		want = append(want, writeGenParquet(t, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", k)), cols, k*250, 250)...)
	}
	glob := "read_parquet('" + dir + "/part-*.parquet')"
	p, err := s.Prepare(t.Context(), "SELECT * FROM "+glob, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range cols {
		if got := p.Columns[k+1].Type.String(); got != c.sqlTyp {
			t.Errorf("column %s: type %s, want %s", c.name, got, c.sqlTyp)
		}
	}
	got := mustQuery(t, s, "SELECT * FROM "+glob+" ORDER BY id")
	compareGenRows(t, "read_parquet", cols, got.rows, want)

	if got := mustQuery(t, s, "SELECT count(*), sum(i16) FROM "+glob).text(); got != fmt.Sprintf("750|%d\n", sumColumn(want, 2)) {
		t.Errorf("count and sum: %q", got)
	}
	if got := mustQuery(t, s, "SELECT id, s FROM "+glob+" WHERE id BETWEEN 248 AND 251 ORDER BY id").text(); got != rowsText(want[248:252], 0, 8) {
		t.Errorf("projected across files:\n%s", got)
	}

	mustQuery(t, s, "CREATE TABLE fromfiles AS SELECT * FROM "+glob)
	compareGenRows(t, "CREATE TABLE AS", cols, mustQuery(t, s, "SELECT * FROM fromfiles ORDER BY id").rows, want)
	mustQuery(t, s, "CREATE TABLE few (id bigint, s text)")
	if r := mustQuery(t, s, "INSERT INTO few SELECT id, s FROM "+glob+" WHERE id % 10 = 0"); r.tag != "INSERT 0 75" {
		t.Errorf("INSERT ... SELECT: tag %q", r.tag)
	}

	other := filepath.Join(dir, "other.parquet")
	writeGenParquet(t, other, cols[:3], 0, 10)
	mustFail(t, s, pgerr.BadCopyFileFormat, "SELECT * FROM read_parquet('"+dir+"/*.parquet')")
}

func compareGenRows(t *testing.T, what string, cols []parquetGenColumn, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		for k := range want[i] {
			g, w := got[i][k], want[i][k]
			if k > 0 && cols[k-1].approx && g != "NULL" && w != "NULL" {
				gf, _ := strconv.ParseFloat(g, 64)
				wf, _ := strconv.ParseFloat(w, 64)
				if gf == wf {
					continue
				}
			}
			if g != w {
				name := "id"
				if k > 0 {
					name = cols[k-1].name
				}
				t.Fatalf("%s: row %d column %s: %q, want %q", what, i, name, g, w)
			}
		}
	}
}

func sumColumn(rows [][]string, k int) int64 {
	var n int64
	for _, r := range rows {
		v, _ := strconv.ParseInt(r[k], 10, 64)
		n += v
	}
	return n
}

func rowsText(rows [][]string, cols ...int) string {
	var b strings.Builder
	for _, r := range rows {
		var parts []string
		for _, c := range cols {
			parts = append(parts, r[c])
		}
		b.WriteString(strings.Join(parts, "|") + "\n")
	}
	return b.String()
}

// TestReadParquetFileRewritten: a prepared read_parquet statement whose
// file is rewritten between executions reads the new file: each execution
// opens the files (and reads their footers) again.
func TestReadParquetFileRewritten(t *testing.T) {
	dir := t.TempDir()
	s := fileSession(t, dir)
	path := filepath.Join(dir, "one.parquet")
	cols := parquetGenColumns()[:3]
	writeGenParquet(t, path, cols, 0, 10)
	p, err := s.Prepare(t.Context(), "SELECT count(*), sum(id) FROM read_parquet('"+path+"')", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		res, err := s.Execute(t.Context(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := resultOf(t.Context(), res)
		if err != nil {
			t.Fatal(err)
		}
		return r.text()
	}
	if got := run(); got != "10|45\n" {
		t.Fatalf("first run: %q", got)
	}
	writeGenParquet(t, path, cols, 100, 250)
	if got := run(); got != "250|56125\n" {
		t.Errorf("after the rewrite: %q, want 250|56125", got)
	}
}
