package session

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// The writer bounds audit (issue 17, item 1): every file any writer produces
// must record bounds and counts that a full read of the file confirms. A
// bound may be left out, or truncated as Iceberg allows, but never exclude a
// value the file holds; null counts must be exact. The same holds for the
// Parquet footer's row-group statistics, which other engines prune by.

// auditStat is what a full read finds in one column of one file or row group.
type auditStat struct {
	nulls, nans, values int64
	min, max            any // nil when the column holds no comparable value
}

// TestWriterBoundsAudit drives every writer over generated rows full of the
// values bound code gets wrong (empty strings, NULL, NaN, -0.0, ±Inf, long strings),
// with tiny batches so each file is built from several, and audits every live
// file after every statement, in the four table modes.
func TestWriterBoundsAudit(t *testing.T) {
	for _, mode := range append(auditModes, auditPartitionedModes...) {
		t.Run(mode.name, func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 7))
			s := auditSession(t)
			// The case: the UPDATE's new file gathers one batch per
			// source file, and the batch of the '' row has an empty value
			// buffer.
			mustQuery(t, s, "CREATE TABLE e (id bigint, name text, b bytea, k int) "+mode.with)
			mustQuery(t, s, "INSERT INTO e VALUES (1, '_u', '\\x01'::bytea, 0)")
			mustQuery(t, s, "INSERT INTO e VALUES (2, '', ''::bytea, 0)")
			mustQuery(t, s, "INSERT INTO e VALUES (3, '_u', '\\x01'::bytea, 0)")
			mustQuery(t, s, "UPDATE e SET k = 1")
			auditTable(t, s, "e", "UPDATE e")
			if got := mustQuery(t, s, "SELECT id FROM e WHERE name = ''").rows; len(got) != 1 || got[0][0] != "2" {
				t.Fatalf("SELECT ... WHERE name = '': %v, want row 2", got)
			}
			if got := mustQuery(t, s, "DELETE FROM e WHERE b = ''::bytea").tag; got != "DELETE 1" {
				t.Fatalf("DELETE ... WHERE b = '': %s, want DELETE 1", got)
			}
			mustQuery(t, s, "CREATE TABLE a (id bigint, s text, b bytea, x double precision, r real, k int, d date) "+mode.with)
			for _, set := range mode.settings {
				mustQuery(t, s, set)
			}
			for i := 0; i < 4; i++ {
				auditStep(t, s, "INSERT INTO a VALUES "+auditRows(rng, i*10, 4+rng.IntN(6)))
			}
			// Files whose text and binary values are all empty (or NULL):
			// a batch built from one of them has an empty value buffer.
			auditStep(t, s, "INSERT INTO a VALUES (50, '', ''::bytea, 'NaN', 'NaN', 0, '2024-01-01')")
			auditStep(t, s, "INSERT INTO a VALUES (51, '', NULL, '-0', '-0', 1, NULL), (52, NULL, ''::bytea, NULL, NULL, 2, '2000-01-01')")
			auditStep(t, s, "INSERT INTO a VALUES (53, '_u', '\\x01'::bytea, 1, 1, 3, '2000-01-01')")
			mustCopyIn(t, s, "COPY a FROM STDIN", auditCopyRows(rng, 100, 7), 7)
			auditFiles(t, s, "COPY")
			auditStep(t, s, "UPDATE a SET k = k + 1")
			auditStep(t, s, "UPDATE a SET s = '' WHERE id % 3 = 0")
			auditStep(t, s, "DELETE FROM a WHERE id % 4 = 1")
			auditStep(t, s, "DELETE FROM a WHERE s = ''")
			auditStep(t, s, "INSERT INTO a SELECT id + 1000, s, b, x, r, k, d FROM a")
			auditStep(t, s, "INSERT INTO a REPLACE WHERE id >= 1000 SELECT id, '', b, x, r, k, d FROM a WHERE id >= 1000")
			auditStep(t, s, "UPDATE a SET x = 'NaN', s = NULL WHERE id % 5 = 2")
			auditStep(t, s, "DELETE FROM a WHERE x = '-0'")
		})
	}
}

var auditModes = []struct {
	name, with string
	settings   []string
}{
	{"v2-cow", "WITH ('format-version' = '2')", nil},
	{"v2-mor", "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')", nil},
	{"v3-mor", "WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')", nil},
	{"v2-equality", "WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')",
		[]string{"SET magmalake.equality_deletes = on"}},
}

// auditPartitionedModes partition the audit's tables by their k column:
// iceberg-go takes each partition's rows out of a batch, and a take of only
// empty strings is a value buffer without bytes.
var auditPartitionedModes = []struct {
	name, with string
	settings   []string
}{
	{"v2-cow-partitioned", "PARTITIONED BY (k) WITH ('format-version' = '2')", nil},
	{"v3-mor-partitioned", "PARTITIONED BY (bucket(2, id), k) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')", nil},
}

// auditSession writes in batches of three rows (copySession's engine), so
// files straddle batches.
func auditSession(t *testing.T) *Session {
	t.Helper()
	s, _ := copySession(t)
	return s
}

func auditStep(t *testing.T, s *Session, q string) {
	t.Helper()
	mustQuery(t, s, q)
	auditFiles(t, s, q)
}

var (
	auditStrings = []string{"", "", "_u", "a", "zz", "ünïcödé", "a-string-longer-than-sixteen-chars", "\x7f", "0"}
	auditFloats  = []string{"'NaN'", "'-0'", "0", "'Infinity'", "'-Infinity'", "1.5", "-2.25", "1e300"}
)

// auditRows renders n rows of generated values as a VALUES list.
func auditRows(rng *rand.Rand, base, n int) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf("(%d, %s, %s, %s, %s, %d, %s)", base+i,
			auditPick(rng, quoteAll(auditStrings)), auditPick(rng, []string{"''::bytea", "'\\x00'::bytea", "'\\xff01'::bytea"}),
			auditPick(rng, auditFloats), auditPick(rng, []string{"'NaN'", "'-0'", "3.5", "'-Infinity'"}),
			rng.IntN(5)-2, auditPick(rng, []string{"'2024-01-01'", "'1970-01-01'", "'0001-01-01'"}))
	}
	return strings.Join(rows, ", ")
}

// auditCopyRows is n rows of COPY text format.
func auditCopyRows(rng *rand.Rand, base, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		str := auditStrings[rng.IntN(len(auditStrings))]
		if rng.IntN(4) == 0 {
			str = `\N`
		}
		fmt.Fprintf(&b, "%d\t%s\t\\\\x\t%s\t-0\t%d\t2024-02-29\n", base+i, str,
			[]string{"NaN", "-0", "0", "7"}[rng.IntN(4)], rng.IntN(3))
	}
	return b.String()
}

// auditPick returns one of vals, or NULL one time in five.
func auditPick(rng *rand.Rand, vals []string) string {
	if rng.IntN(5) == 0 {
		return "NULL"
	}
	return vals[rng.IntN(len(vals))]
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return out
}

// auditFiles checks every live data and Parquet delete file of table a.
func auditFiles(t *testing.T, s *Session, after string) {
	t.Helper()
	auditTable(t, s, "a", after)
}

// auditTable checks every live data and Parquet delete file of a table.
func auditTable(t *testing.T, s *Session, name, after string) {
	t.Helper()
	ctx := t.Context()
	tbl, err := s.engine.wh.LoadTable(ctx, lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, task := range tasks {
		files := append([]iceberg.DataFile{task.File}, task.DeleteFiles...)
		files = append(files, task.EqualityDeleteFiles...)
		for _, df := range files {
			if seen[df.FilePath()] || df.FileFormat() != iceberg.ParquetFile {
				continue
			}
			seen[df.FilePath()] = true
			if msg := auditFile(ctx, tbl, df); msg != "" {
				t.Fatalf("after %s: %s: %s", after, df.FilePath(), msg)
			}
		}
	}
}

// auditFile reads df whole and compares what it finds with its metadata.
func auditFile(ctx context.Context, tbl *table.Table, df iceberg.DataFile) string {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err.Error()
	}
	f, err := fs.Open(df.FilePath())
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return err.Error()
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return err.Error()
	}
	md := pr.MetaData()
	whole := map[int]*auditStat{}
	leaves := make([]int, md.Schema.NumColumns())
	for i := range leaves {
		leaves[i] = i
	}
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		tb, err := fr.ReadRowGroups(ctx, leaves, []int{rg})
		if err != nil {
			return err.Error()
		}
		for c := 0; c < int(tb.NumCols()); c++ {
			id := int(md.Schema.Column(c).SchemaNode().FieldID())
			st := auditColumn(tb.Column(c).Data().Chunks())
			if msg := auditRowGroupStats(md.RowGroup(rg), c, st); msg != "" {
				tb.Release()
				return fmt.Sprintf("row group %d column %s: %s", rg, md.Schema.Column(c).Name(), msg)
			}
			whole[id] = mergeAuditStat(whole[id], st)
		}
		tb.Release()
	}
	sc := tbl.Schema()
	if df.ContentType() == iceberg.EntryContentPosDeletes {
		sc = nil // file_path / pos: bounds checked without an Iceberg type below
	}
	for id, st := range whole {
		if msg := auditDataFileStats(df, sc, id, st); msg != "" {
			return fmt.Sprintf("field %d: %s", id, msg)
		}
	}
	return ""
}

// auditColumn computes the true statistics of a column's values, ordered as
// Iceberg orders them: NaN left out (counted apart), -0.0 below +0.0, strings
// and binary bytewise.
func auditColumn(chunks []arrow.Array) *auditStat {
	st := &auditStat{}
	for _, arr := range chunks {
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				st.nulls++
				continue
			}
			st.values++
			v := auditValue(arr, i)
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				st.nans++
				continue
			}
			if st.min == nil || auditCompare(v, st.min) < 0 {
				st.min = v
			}
			if st.max == nil || auditCompare(v, st.max) > 0 {
				st.max = v
			}
		}
	}
	return st
}

// auditValue is one cell as float64 (floats), int64 (integers, dates,
// times, timestamps), []byte (strings, binary) or bool.
func auditValue(arr arrow.Array, i int) any {
	switch a := arr.(type) {
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Time64:
		return int64(a.Value(i))
	case *array.String:
		return []byte(a.Value(i))
	case *array.Binary:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	}
	return nil
}

func auditCompare(a, b any) int {
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		if x == 0 && y == 0 {
			return cmp.Compare(auditSign(x), auditSign(y))
		}
		return cmp.Compare(x, y)
	case int64:
		return cmp.Compare(x, b.(int64))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case bool:
		return cmp.Compare(auditBool(x), auditBool(b.(bool)))
	}
	return 0
}

func auditSign(f float64) int {
	if math.Signbit(f) {
		return -1
	}
	return 1
}

func auditBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mergeAuditStat(a, b *auditStat) *auditStat {
	if a == nil {
		return b
	}
	out := &auditStat{nulls: a.nulls + b.nulls, nans: a.nans + b.nans, values: a.values + b.values, min: a.min, max: a.max}
	if b.min != nil && (out.min == nil || auditCompare(b.min, out.min) < 0) {
		out.min = b.min
	}
	if b.max != nil && (out.max == nil || auditCompare(b.max, out.max) > 0) {
		out.max = b.max
	}
	return out
}

// auditRowGroupStats checks one column chunk's footer statistics.
func auditRowGroupStats(rg *metadata.RowGroupMetaData, col int, st *auditStat) string {
	cc, err := rg.ColumnChunk(col)
	if err != nil {
		return err.Error()
	}
	stats, err := cc.Statistics()
	if err != nil || stats == nil {
		return "" // no statistics: nothing a reader could prune by
	}
	if stats.HasNullCount() && stats.NullCount() != st.nulls {
		return fmt.Sprintf("footer null count %d, file holds %d", stats.NullCount(), st.nulls)
	}
	if !stats.HasMinMax() {
		return ""
	}
	var lo, hi any
	switch s := stats.(type) {
	case *metadata.Int32Statistics:
		lo, hi = int64(s.Min()), int64(s.Max())
	case *metadata.Int64Statistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.Float32Statistics:
		lo, hi = float64(s.Min()), float64(s.Max())
	case *metadata.Float64Statistics:
		lo, hi = s.Min(), s.Max()
	case *metadata.ByteArrayStatistics:
		lo, hi = []byte(s.Min()), []byte(s.Max())
	default:
		return ""
	}
	return auditBounds("footer", lo, hi, st, false)
}

// auditBounds reports a lower bound above the true minimum or an upper bound
// below the true maximum. Exact bounds must equal the extremes.
func auditBounds(what string, lo, hi any, st *auditStat, exact bool) string {
	if st.min == nil {
		return "" // only NULLs and NaNs: no value a bound could exclude
	}
	if lo != nil && auditCompare(lo, st.min) > 0 {
		return fmt.Sprintf("%s lower bound %s above the smallest value %s", what, auditShow(lo), auditShow(st.min))
	}
	if hi != nil && auditCompare(hi, st.max) < 0 {
		return fmt.Sprintf("%s upper bound %s below the largest value %s", what, auditShow(hi), auditShow(st.max))
	}
	// Parquet's rule widens a zero bound to -0.0 below and +0.0 above, so
	// exactness ignores the sign of zero.
	if exact && lo != nil && auditCompare(lo, st.min) != 0 && !auditBothZero(lo, st.min) {
		return fmt.Sprintf("%s lower bound %s, smallest value %s", what, auditShow(lo), auditShow(st.min))
	}
	if exact && hi != nil && auditCompare(hi, st.max) != 0 && !auditBothZero(hi, st.max) {
		return fmt.Sprintf("%s upper bound %s, largest value %s", what, auditShow(hi), auditShow(st.max))
	}
	return ""
}

func auditBothZero(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	return ok1 && ok2 && x == 0 && y == 0
}

func auditShow(v any) string {
	if b, ok := v.([]byte); ok {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprint(v)
}

// auditDataFileStats checks the Iceberg metadata of one field of df.
func auditDataFileStats(df iceberg.DataFile, sc *iceberg.Schema, id int, st *auditStat) string {
	if n, ok := df.NullValueCounts()[id]; ok && n != st.nulls {
		return fmt.Sprintf("null_value_counts %d, file holds %d", n, st.nulls)
	}
	if n, ok := df.ValueCounts()[id]; ok && n != st.nulls+st.values {
		return fmt.Sprintf("value_counts %d, file holds %d", n, st.nulls+st.values)
	}
	if n, ok := df.NaNValueCounts()[id]; ok && n != st.nans {
		return fmt.Sprintf("nan_value_counts %d, file holds %d", n, st.nans)
	}
	if sc == nil {
		return ""
	}
	field, ok := sc.FindFieldByID(id)
	if !ok {
		return ""
	}
	lo, err := auditBound(field.Type, df.LowerBoundValues()[id])
	if err != nil {
		return "lower bound: " + err.Error()
	}
	hi, err := auditBound(field.Type, df.UpperBoundValues()[id])
	if err != nil {
		return "upper bound: " + err.Error()
	}
	// Strings and binary may be truncated (Iceberg's default metrics are
	// truncate(16)); other types' bounds are exact.
	_, isStr := field.Type.(iceberg.StringType)
	_, isBin := field.Type.(iceberg.BinaryType)
	return auditBounds("iceberg", lo, hi, st, !isStr && !isBin)
}

// auditBound decodes an Iceberg single-value bound into auditValue's kinds.
func auditBound(typ iceberg.Type, raw []byte) (any, error) {
	if raw == nil {
		return nil, nil
	}
	lit, err := iceberg.LiteralFromBytes(typ, raw)
	if err != nil {
		return nil, err
	}
	switch v := lit.Any().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	case iceberg.Date:
		return int64(v), nil
	case iceberg.Timestamp:
		return int64(v), nil
	case iceberg.Time:
		return int64(v), nil
	case string:
		return []byte(v), nil
	case []byte:
		return v, nil
	case bool:
		return v, nil
	}
	return nil, nil
}
