package lake

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// Row-group pruning tests: tables of 10-row row groups, two data files
// (ids 0..119 and 120..199, so 12 + 8 row groups), position deletes (v2) or
// deletion vectors (v3) on both.

const rgRows = 10

var rgDeletedIDs = []int64{3, 15, 41, 55, 77, 95, 119, 120, 150, 151, 199}

// rgCols: id is clustered; most columns follow it (so row groups have
// narrow ranges) with NULLs, NaNs and empty strings mixed in; i is NULL for
// the whole row group 40..49.
func rgCols() []testCol {
	return []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }},
		{"i", iceberg.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, func(i int) any {
			if i/rgRows == 4 || i%13 == 7 {
				return nil
			}
			return int32(i/3 - 20)
		}},
		{"d", iceberg.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64, func(i int) any {
			switch {
			case i%19 == 0:
				return nil
			case i%17 == 3:
				return math.NaN()
			}
			return float64(i)*0.5 - 10
		}},
		{"f", iceberg.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float32, nullEvery(7, func(i int) any { return float32(i) / 4 })},
		{"dec", iceberg.DecimalTypeOf(9, 2), &arrow.Decimal128Type{Precision: 9, Scale: 2},
			nullEvery(11, func(i int) any { return decimal128.FromI64(int64(i*125 - 4000)) })},
		{"wide", iceberg.DecimalTypeOf(30, 3), &arrow.Decimal128Type{Precision: 30, Scale: 3},
			nullEvery(9, func(i int) any { return decimal128.FromI64(int64(50000 - i*777)) })},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, func(i int) any {
			switch {
			case i%23 == 4:
				return nil
			case i%29 == 5:
				return ""
			}
			return fmt.Sprintf("k%04d", i)
		}},
		{"bin", iceberg.PrimitiveTypes.Binary, arrow.BinaryTypes.Binary, nullEvery(8, func(i int) any { return []byte{byte(i / 16), byte(i)} })},
		{"dt", iceberg.PrimitiveTypes.Date, arrow.FixedWidthTypes.Date32, nullEvery(14, func(i int) any { return arrow.Date32(19000 + i) })},
		{"tm", iceberg.PrimitiveTypes.Time, arrow.FixedWidthTypes.Time64us, nullEvery(13, func(i int) any { return arrow.Time64(int64(i) * 60_000_000) })},
		{"ts", iceberg.PrimitiveTypes.Timestamp, &arrow.TimestampType{Unit: arrow.Microsecond},
			nullEvery(12, func(i int) any { return arrow.Timestamp(1_600_000_000_000_000 + int64(i)*3_600_000_000) })},
		{"tstz", iceberg.PrimitiveTypes.TimestampTz, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			nullEvery(15, func(i int) any { return arrow.Timestamp(1_700_000_000_000_000 - int64(i)*60_000_000) })},
		{"b", iceberg.PrimitiveTypes.Bool, arrow.FixedWidthTypes.Boolean, nullEvery(6, func(i int) any { return i < 60 })},
		{"u", iceberg.PrimitiveTypes.UUID, extensions.NewUUIDType(), nullEvery(5, func(i int) any { return uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}) })},
	}
}

// rgTable is a table of rgCols with 10-row row groups and the deletes of
// rgDeletedIDs; it returns the table and its live rows.
func rgTable(t *testing.T, v int, extraProps ...string) (*table.Table, []row) {
	t.Helper()
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := rgCols()
	ident := Ident("public", "rg")
	props := map[string]string{"format-version": fmt.Sprint(v), "write.parquet.row-group-limit": fmt.Sprint(rgRows)}
	for i := 0; i+1 < len(extraProps); i += 2 {
		props[extraProps[i]] = extraProps[i+1]
	}
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, props); err != nil {
		t.Fatal(err)
	}
	appendRows(t, w, ident, cols, genRows(cols, 0, 120))
	base := appendRows(t, w, ident, cols, genRows(cols, 120, 200))
	ids, files := fileIDs(t, base)
	var dels []iceberg.DataFile
	for _, first := range []int64{0, 120} {
		df := fileWithFirstID(t, ids, files, first)
		var pos []int64
		for _, id := range rgDeletedIDs {
			if p := slices.Index(ids[df.FilePath()], id); p >= 0 {
				pos = append(pos, int64(p))
			}
		}
		name := fmt.Sprintf("del-%d", first)
		if v >= 3 {
			dels = append(dels, writeDV(t, base, name, df, pos))
		} else {
			dels = append(dels, writePosDeletes(t, base, name, df, pos))
		}
	}
	tbl, err := CommitChange(ctx, w.Catalog(), base, FileChange{AddDeletes: dels})
	if err != nil {
		t.Fatal(err)
	}
	var live []row
	for _, r := range genRows(cols, 0, 200) {
		if !slices.Contains(rgDeletedIDs, r["id"].(int64)) {
			live = append(live, r)
		}
	}
	return tbl, live
}

// modelPred is a filter with an independent model of it: Go code over the
// generated values, in the semantics of iceberg-go's row evaluator (nulls
// order first, floats by cmp.Compare, NaN first).
type modelPred struct {
	expr iceberg.BooleanExpression
	eval func(row) bool
}

func (p modelPred) String() string { return p.expr.String() }

func andP(a, b modelPred) modelPred {
	return modelPred{iceberg.NewAnd(a.expr, b.expr), func(r row) bool { return a.eval(r) && b.eval(r) }}
}

func orP(a, b modelPred) modelPred {
	return modelPred{iceberg.NewOr(a.expr, b.expr), func(r row) bool { return a.eval(r) || b.eval(r) }}
}

func notP(a modelPred) modelPred {
	return modelPred{iceberg.NewNot(a.expr), func(r row) bool { return !a.eval(r) }}
}

// modelCmp orders two non-null values of one column.
func modelCmp(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case int32:
		return cmp.Compare(x, b.(int32))
	case float64:
		return cmp.Compare(x, b.(float64))
	case float32:
		return cmp.Compare(x, b.(float32))
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case arrow.Date32:
		return cmp.Compare(x, b.(arrow.Date32))
	case arrow.Timestamp:
		return cmp.Compare(x, b.(arrow.Timestamp))
	case arrow.Time64:
		return cmp.Compare(x, b.(arrow.Time64))
	case bool:
		return cmp.Compare(boolInt(x), boolInt(b.(bool)))
	case uuid.UUID:
		y := b.(uuid.UUID)
		return bytes.Compare(x[:], y[:])
	}
	panic(fmt.Sprintf("no order for %T", a))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// modelLit is v as an Iceberg literal of column c's type.
func modelLit(c testCol, v any) iceberg.Literal {
	switch x := v.(type) {
	case decimal128.Num:
		return iceberg.NewLiteral(iceberg.Decimal{Val: x, Scale: int(c.it.(iceberg.DecimalType).Scale())})
	case arrow.Date32:
		return iceberg.NewLiteral(iceberg.Date(x))
	case arrow.Timestamp:
		return iceberg.NewLiteral(iceberg.Timestamp(x))
	case arrow.Time64:
		return iceberg.NewLiteral(iceberg.Time(x))
	case int64:
		return iceberg.NewLiteral(x)
	case int32:
		return iceberg.NewLiteral(x)
	case float64:
		return iceberg.NewLiteral(x)
	case float32:
		return iceberg.NewLiteral(x)
	case string:
		return iceberg.NewLiteral(x)
	case []byte:
		return iceberg.NewLiteral(x)
	case bool:
		return iceberg.NewLiteral(x)
	case uuid.UUID:
		return iceberg.NewLiteral(x)
	}
	panic(fmt.Sprintf("no literal for %T", v))
}

// cmpPred is "c op v" with its model: NULL is below every value.
func cmpPred(c testCol, op iceberg.Operation, v any) modelPred {
	eval := func(r row) bool {
		x := r[c.name]
		if x == nil {
			return op == iceberg.OpLT || op == iceberg.OpLTEQ || op == iceberg.OpNEQ
		}
		n := modelCmp(x, v)
		switch op {
		case iceberg.OpEQ:
			return n == 0
		case iceberg.OpNEQ:
			return n != 0
		case iceberg.OpLT:
			return n < 0
		case iceberg.OpLTEQ:
			return n <= 0
		case iceberg.OpGT:
			return n > 0
		}
		return n >= 0
	}
	return modelPred{iceberg.LiteralPredicate(op, iceberg.Reference(c.name), modelLit(c, v)), eval}
}

func inPred(c testCol, not bool, vs ...any) modelPred {
	lits := make([]iceberg.Literal, len(vs))
	for i, v := range vs {
		lits[i] = modelLit(c, v)
	}
	op := iceberg.OpIn
	if not {
		op = iceberg.OpNotIn
	}
	eval := func(r row) bool {
		x := r[c.name]
		found := x != nil && slices.ContainsFunc(vs, func(v any) bool { return modelCmp(x, v) == 0 })
		return found != not
	}
	return modelPred{iceberg.SetPredicate(op, iceberg.Reference(c.name), lits), eval}
}

func nullPred(c testCol, isNull bool) modelPred {
	ref := iceberg.Reference(c.name)
	if isNull {
		return modelPred{iceberg.IsNull(ref), func(r row) bool { return r[c.name] == nil }}
	}
	return modelPred{iceberg.NotNull(ref), func(r row) bool { return r[c.name] != nil }}
}

func nanPred(c testCol, isNaN bool) modelPred {
	eval := func(r row) bool {
		var f float64
		switch v := r[c.name].(type) {
		case float64:
			f = v
		case float32:
			f = float64(v)
		}
		return math.IsNaN(f) == isNaN
	}
	if isNaN {
		return modelPred{iceberg.IsNaN(iceberg.Reference(c.name)), eval}
	}
	return modelPred{iceberg.NotNaN(iceberg.Reference(c.name)), eval}
}

func prefixPred(c testCol, prefix string, not bool) modelPred {
	eval := func(r row) bool {
		s, ok := r[c.name].(string)
		return (ok && strings.HasPrefix(s, prefix)) != not
	}
	if not {
		return modelPred{iceberg.NotStartsWith(iceberg.Reference(c.name), prefix), eval}
	}
	return modelPred{iceberg.StartsWith(iceberg.Reference(c.name), prefix), eval}
}

// guarded is a range comparison as the SQL translator writes it: with
// not_null (and not_nan for floats), so that it means the same under the
// row evaluator (null and NaN order first) and manifest pruning (where
// they satisfy no range); only then does Scan's file pruning keep it exact.
func guarded(c testCol, op iceberg.Operation, v any) modelPred {
	p := andP(cmpPred(c, op, v), nullPred(c, false))
	switch c.it.(type) {
	case iceberg.Float32Type, iceberg.Float64Type:
		p = andP(p, nanPred(c, false))
	}
	return p
}

// predGen draws random predicates over the generated rows' values; with
// guard, range comparisons are guarded.
type predGen struct {
	rnd   *rand.Rand
	cols  []testCol
	rows  []row
	guard bool
}

func (g *predGen) cmp(c testCol, op iceberg.Operation, v any) modelPred {
	if g.guard && op != iceberg.OpEQ && op != iceberg.OpNEQ {
		return guarded(c, op, v)
	}
	return cmpPred(c, op, v)
}

func (g *predGen) value(c testCol) any {
	for {
		if v := g.rows[g.rnd.IntN(len(g.rows))][c.name]; v != nil {
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				continue // NaN literals are tested through is_nan
			}
			return v
		}
	}
}

func (g *predGen) atom() modelPred {
	c := g.cols[g.rnd.IntN(len(g.cols))]
	switch k := g.rnd.IntN(12); {
	case k < 6:
		ops := []iceberg.Operation{iceberg.OpEQ, iceberg.OpNEQ, iceberg.OpLT, iceberg.OpLTEQ, iceberg.OpGT, iceberg.OpGTEQ}
		return g.cmp(c, ops[k], g.value(c))
	case k == 6: // between
		a, b := g.value(c), g.value(c)
		if modelCmp(a, b) > 0 {
			a, b = b, a
		}
		return andP(g.cmp(c, iceberg.OpGTEQ, a), g.cmp(c, iceberg.OpLTEQ, b))
	case k == 7 || k == 8:
		return inPred(c, k == 8, g.value(c), g.value(c), g.value(c))
	case k == 9:
		return nullPred(c, g.rnd.IntN(2) == 0)
	}
	switch c.name {
	case "s":
		s := g.value(c).(string)
		return prefixPred(c, s[:min(len(s), 1+g.rnd.IntN(4))], g.rnd.IntN(2) == 0)
	case "d", "f":
		return nanPred(c, g.rnd.IntN(2) == 0)
	}
	return cmpPred(c, iceberg.OpEQ, g.value(c))
}

func (g *predGen) pred(depth int) modelPred {
	if depth == 0 || g.rnd.IntN(3) == 0 {
		return g.atom()
	}
	switch g.rnd.IntN(3) {
	case 0:
		return andP(g.pred(depth-1), g.pred(depth-1))
	case 1:
		return orP(g.pred(depth-1), g.pred(depth-1))
	}
	return notP(g.pred(depth - 1))
}

// scanPred scans tbl with p's filter and returns the rows Scan produced
// (not yet re-checked) and the scan's statistics.
func scanPred(t *testing.T, tbl *table.Table, p modelPred) ([]row, ScanStats) {
	t.Helper()
	var st ScanStats
	_, got := scanAll(t, tbl, ScanOptions{Filter: p.expr, Stats: &st})
	return got, st
}

// readPruned reads every data file of tbl through row-group pruning alone
// (no manifest pruning, whose reading of nulls in ranges differs from the
// row evaluator's), unfiltered as Scan reads.
func readPruned(t *testing.T, tbl *table.Table, p modelPred) ([]row, ScanStats) {
	t.Helper()
	ctx := context.Background()
	scan := tbl.Scan()
	defer scan.Close()
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := newRowGroupFilter(tbl.Schema(), p.expr)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	st := ScanStats{DataFiles: len(tasks)}
	parts := make([]scanPart, len(tasks))
	for i := range tasks {
		parts[i].task = tasks[i]
	}
	if !f.trivial() {
		pages := newPageRead(tbl.Metadata().Properties(), tbl.Schema(), false)
		if parts, err = pruneRowGroups(ctx, writeFS(t, tbl), f, pages, tasks, &st); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	pr, err := newPageReader(ctx, tbl, tbl.Schema(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return collectRows(t, readParts(ctx, scan, parts, pr)), st
}

func filterRows(rows []row, keep func(row) bool) []row {
	var out []row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// diffRows describes how got differs from want as sets of rows keyed by
// id ("" when they are equal).
func diffRows(got, want []row) string {
	sortByID(got)
	sortByID(want)
	if len(got) != len(want) {
		return fmt.Sprintf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameRow(got[i], want[i]) {
			return fmt.Sprintf("row %v: got %v, want %v", want[i]["id"], got[i], want[i])
		}
	}
	return ""
}

// sameRow compares rows value by value, a NaN equal to a NaN.
func sameRow(a, b row) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		af, aok := av.(float64)
		bf, bok := b[k].(float64)
		if aok && bok && math.IsNaN(af) && math.IsNaN(bf) {
			continue
		}
		if !reflect.DeepEqual(av, b[k]) {
			return false
		}
	}
	return true
}

// structRow is a model row as iceberg-go's row evaluator reads it.
type structRow []any

func (r structRow) Size() int          { return len(r) }
func (r structRow) Get(pos int) any    { return r[pos] }
func (r structRow) Set(pos int, v any) { r[pos] = v }

func toStructRow(sc *iceberg.Schema, r row) structRow {
	out := make(structRow, sc.NumFields())
	for i, f := range sc.Fields() {
		switch v := r[f.Name].(type) {
		case decimal128.Num:
			out[i] = iceberg.Decimal{Val: v, Scale: f.Type.(iceberg.DecimalType).Scale()}
		default:
			out[i] = v
		}
	}
	return out
}

// checkModel: the model agrees with iceberg-go's row evaluator, whose
// semantics ScanOptions.Filter has, on every row.
func checkModel(t *testing.T, sc *iceberg.Schema, rows []row, p modelPred) {
	t.Helper()
	eval, err := iceberg.ExpressionEvaluator(sc, p.expr, true)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	for _, r := range rows {
		got, err := eval(toStructRow(sc, r))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got != p.eval(r) {
			t.Fatalf("%s: model says %v for row %d, iceberg-go's evaluator %v", p, p.eval(r), r["id"], got)
		}
	}
}

// checkPred reads p with read and checks that its rows, re-checked with the
// model, are the model's rows of the live table; that no deleted row comes
// back; that the row groups read bound the rows returned (ranges that read
// more than their row groups would break it).
func checkPred(t *testing.T, tbl *table.Table, live []row, p modelPred,
	read func(*testing.T, *table.Table, modelPred) ([]row, ScanStats),
) ScanStats {
	t.Helper()
	checkModel(t, tbl.Schema(), live, p)
	got, st := read(t, tbl, p)
	for _, r := range got {
		if slices.Contains(rgDeletedIDs, r["id"].(int64)) {
			t.Fatalf("%s: deleted row %d returned", p, r["id"])
		}
	}
	// A filter that binds to true (not null on a required column) is not
	// pruned by, and counts no row groups.
	if st.RowGroups > 0 && len(got) > st.RowGroupsRead*rgRows || st.RowGroupsRead > st.RowGroups {
		t.Fatalf("%s: %d rows from %d of %d row groups", p, len(got), st.RowGroupsRead, st.RowGroups)
	}
	if msg := diffRows(filterRows(got, p.eval), filterRows(live, p.eval)); msg != "" {
		t.Fatalf("%s: %s (stats %+v)", p, msg, st)
	}
	return st
}

// TestRowGroupPruningModel checks row-group pruning alone on every file
// with generated predicates in the row evaluator's semantics, where nulls
// and NaN satisfy x < c.
func TestRowGroupPruningModel(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			tbl, live := rgTable(t, v)
			cols := rgCols()
			g := &predGen{rnd: rand.New(rand.NewPCG(1, uint64(v))), cols: cols, rows: genRows(cols, 0, 200)}
			read, total := 0, 0
			for range 150 {
				st := checkPred(t, tbl, live, g.pred(2), readPruned)
				read, total = read+st.RowGroupsRead, total+st.RowGroups
			}
			if read >= total {
				t.Errorf("generated predicates read %d of %d row groups", read, total)
			}
			t.Logf("generated predicates read %d of %d row groups", read, total)
		})
	}
}

// TestScanRowGroupPruning checks Scan (manifest and row-group pruning) with
// filters shaped as the SQL translator shapes them, and that selective ones
// read fewer row groups than the files have.
func TestScanRowGroupPruning(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			tbl, live := rgTable(t, v)
			cols := rgCols()
			col := func(name string) testCol {
				return cols[slices.IndexFunc(cols, func(c testCol) bool { return c.name == name })]
			}
			hour := func(i int64) arrow.Timestamp { return arrow.Timestamp(1_600_000_000_000_000 + i*3_600_000_000) }
			selective := []modelPred{
				cmpPred(col("id"), iceberg.OpEQ, int64(57)),
				cmpPred(col("id"), iceberg.OpLT, int64(12)),
				andP(guarded(col("ts"), iceberg.OpGTEQ, hour(130)), guarded(col("ts"), iceberg.OpLTEQ, hour(140))),
				guarded(col("tstz"), iceberg.OpGT, arrow.Timestamp(1_700_000_000_000_000-15*60_000_000)),
				guarded(col("dec"), iceberg.OpGTEQ, decimal128.FromI64(180*125-4000)),
				guarded(col("wide"), iceberg.OpGT, decimal128.FromI64(50000-20*777)),
				cmpPred(col("dt"), iceberg.OpEQ, arrow.Date32(19000+101)),
				inPred(col("id"), false, int64(5), int64(95), int64(150)),
				prefixPred(col("s"), "k01", false),
				cmpPred(col("s"), iceberg.OpEQ, "k0033"),
				cmpPred(col("bin"), iceberg.OpEQ, []byte{3, 50}),
				nullPred(col("i"), true),
				guarded(col("i"), iceberg.OpLT, int32(-15)),
				guarded(col("d"), iceberg.OpGT, float64(85)),
				// Not f < c: iceberg-go records no NaN counts, so a float
				// column may always hold NaN, which orders below 3.
				guarded(col("f"), iceberg.OpGT, float32(45)),
				cmpPred(col("tm"), iceberg.OpEQ, arrow.Time64(77*60_000_000)),
				orP(cmpPred(col("id"), iceberg.OpEQ, int64(3)), cmpPred(col("id"), iceberg.OpGTEQ, int64(195))),
				notP(cmpPred(col("id"), iceberg.OpGTEQ, int64(10))),
				notP(orP(cmpPred(col("id"), iceberg.OpLT, int64(100)), cmpPred(col("id"), iceberg.OpGT, int64(110)))),
				andP(cmpPred(col("b"), iceberg.OpNEQ, true), nullPred(col("b"), false)),
			}
			for _, p := range selective {
				st := checkPred(t, tbl, live, p, scanPred)
				if st.RowGroupsRead >= st.RowGroups || st.DataFiles == 0 {
					t.Errorf("%s: read %d of %d row groups in %d files, want fewer", p, st.RowGroupsRead, st.RowGroups, st.DataFiles)
				}
			}
			g := &predGen{rnd: rand.New(rand.NewPCG(2, uint64(v))), cols: cols, rows: genRows(cols, 0, 200), guard: true}
			for range 60 {
				checkPred(t, tbl, live, g.pred(2), scanPred)
			}
		})
	}
}

// TestScanRowGroupPoint: a point predicate on the clustered id reads one
// row group (exactly its live rows come back, the deleted ones stay
// deleted), and far-apart ids read separate runs.
func TestScanRowGroupPoint(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			tbl, _ := rgTable(t, v)
			checkPointReads(t, tbl)
		})
	}
}

// TestScanRowGroupPointRanged: a file bigger than read.split.target-size
// is planned as byte-range tasks (PlanFiles splits it at its row groups);
// each is pruned within its range, so a point predicate still reads
// exactly its row group (it read every row group of the range before),
// and the ranges of a file together read each of its live rows once.
func TestScanRowGroupPointRanged(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			tbl, _ := rgTable(t, v, "read.split.target-size", "1500")
			tasks, err := planFiles(context.Background(), tbl, ScanOptions{}, tbl.Schema(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ranged := 0
			for _, task := range tasks {
				if task.Start > 0 || (task.Length > 0 && task.Length < task.File.FileSizeBytes()) {
					ranged++
				}
			}
			if ranged < 2 {
				t.Fatalf("%d tasks, %d a byte range: the test would prove nothing", len(tasks), ranged)
			}
			checkPointReads(t, tbl)
			_, rows := scanAll(t, tbl, ScanOptions{})
			var ids []int64
			for _, r := range rows {
				ids = append(ids, r["id"].(int64))
			}
			slices.Sort(ids)
			var want []int64
			for id := int64(0); id < 200; id++ {
				if !slices.Contains(rgDeletedIDs, id) {
					want = append(want, id)
				}
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("whole scan of the split files: %d ids, want %d", len(ids), len(want))
			}
		})
	}
}

// checkPointReads runs point and range predicates on the clustered id of
// rgTable's table: each reads the row groups holding its ids and no more,
// and exactly their live rows.
func checkPointReads(t *testing.T, tbl *table.Table) {
	t.Helper()
	id := rgCols()[0]
	for _, tc := range []struct {
		pred   modelPred
		groups []int64 // first ids of the row groups read
	}{
		{cmpPred(id, iceberg.OpEQ, int64(57)), []int64{50}},
		{cmpPred(id, iceberg.OpEQ, int64(150)), []int64{150}},
		{inPred(id, false, int64(5), int64(95), int64(150)), []int64{0, 90, 150}},
		{andP(cmpPred(id, iceberg.OpGTEQ, int64(118)), cmpPred(id, iceberg.OpLTEQ, int64(121))), []int64{110, 120}},
	} {
		got, st := scanPred(t, tbl, tc.pred)
		if st.RowGroupsRead != len(tc.groups) || st.RowGroups < 8 {
			t.Fatalf("%s: read %d of %d row groups, want %d", tc.pred, st.RowGroupsRead, st.RowGroups, len(tc.groups))
		}
		var want []int64
		for _, first := range tc.groups {
			for id := first; id < first+rgRows; id++ {
				if !slices.Contains(rgDeletedIDs, id) {
					want = append(want, id)
				}
			}
		}
		var ids []int64
		for _, r := range got {
			ids = append(ids, r["id"].(int64))
		}
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Fatalf("%s: read ids %v, want %v", tc.pred, ids, want)
		}
	}
}
