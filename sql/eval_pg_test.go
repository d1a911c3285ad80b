package sql

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
)

var (
	diffSeed = flag.Int64("seed", 1, "seed for the PostgreSQL differential expression tests")
	diffN    = flag.Int("n", 200, "number of random expressions per differential test")
)

// startExprPostgres starts a throwaway PostgreSQL 15 cluster (C collation,
// TimeZone UTC) and connects over its unix socket.
func startExprPostgres(t *testing.T) *pgx.Conn {
	t.Helper()
	return pgtest.Start(t).Connect(t, "postgres")
}

// diffScope is the differential table: id is the row id.
func diffScope() *Scope {
	cols := []struct {
		name string
		t    Type
	}{
		{"id", Int64}, {"b", Int64}, {"i", Int32}, {"f", Float64}, {"n", Numeric(10, 2)},
		{"s", Text}, {"d", Date}, {"ts", Timestamp}, {"bo", Bool},
	}
	sc := &Scope{}
	for k, c := range cols {
		sc.Columns = append(sc.Columns, ScopeColumn{Name: c.name, T: c.t, FieldID: k + 1})
	}
	return sc
}

// diffRows generates rows as text forms (PostgreSQL input syntax); "" in a
// pool entry never appears for non-text columns, nil is NULL.
func diffRows(rng *rand.Rand, n int) [][]any {
	pools := [][]string{
		nil,
		{"0", "1", "-1", "5", "42", "-42", "3000000000", "-9000000000000000000", "9000000000000000000", "7"},
		{"0", "1", "-1", "2", "3", "5", "100", "-100", "2147483647", "-2147483648"},
		{"0", "1.5", "-2.25", "2.5", "3", "1e+300", "NaN", "Infinity", "-Infinity", "0.1", "-0.5", "5"},
		{"0.00", "1.50", "-2.25", "2.50", "99999999.99", "-1.00", "3.00", "5.00"},
		{"", "a", "ab", "abc", "a%b", "a_b", "O'Reilly", "ü", "Zeta", `ab\c`, "AB", "abd", "5", "2024-01-01"},
		{"2024-01-01", "2023-12-31", "1970-01-01", "2024-02-29", "1999-12-31"},
		{"2024-01-01 00:00:00", "2024-01-01 10:00:00", "2023-12-31 23:59:59.999999", "1970-01-01 00:00:00", "2024-06-15 12:30:00.5"},
		{"true", "false"},
	}
	rows := make([][]any, n)
	for r := range rows {
		row := make([]any, len(pools))
		row[0] = fmt.Sprint(r)
		for c := 1; c < len(pools); c++ {
			if rng.Float64() < 0.15 {
				continue
			}
			row[c] = pools[c][rng.Intn(len(pools[c]))]
		}
		rows[r] = row
	}
	return rows
}

func loadDiffTable(t *testing.T, conn *pgx.Conn, sc *Scope, rows [][]any) {
	t.Helper()
	var defs []string
	for _, c := range sc.Columns {
		defs = append(defs, c.Name+" "+c.T.String())
	}
	if _, code := pgRun(t, conn, "CREATE TABLE t ("+strings.Join(defs, ", ")+")"); code != "" {
		t.Fatalf("create table: %s", code)
	}
	for _, row := range rows {
		vals := make([]string, len(row))
		for k, v := range row {
			if v == nil {
				vals[k] = "NULL"
			} else {
				vals[k] = literalSQL(v.(string)) + "::" + sc.Columns[k].T.String()
			}
		}
		if _, code := pgRun(t, conn, "INSERT INTO t VALUES ("+strings.Join(vals, ", ")+")"); code != "" {
			t.Fatalf("insert %v: %s", row, code)
		}
	}
}

// pgRun runs query and returns its text rows or the SQLSTATE of its error.
func pgRun(t *testing.T, conn *pgx.Conn, query string) ([][]*string, string) {
	t.Helper()
	res, pe := pgtest.Exec(t, conn, query)
	if pe != nil {
		return nil, pe.Code
	}
	if len(res) != 1 {
		t.Fatalf("%s: %d results", query, len(res))
	}
	return pgtest.Text(res[0]), ""
}

// icebergRow is one batch row as Iceberg's evaluator reads struct fields.
type icebergRow []any

func (r icebergRow) Size() int          { return len(r) }
func (r icebergRow) Get(pos int) any    { return r[pos] }
func (r icebergRow) Set(pos int, v any) { r[pos] = v }

func icebergSchema(t *testing.T, sc *Scope) *iceberg.Schema {
	fields := make([]iceberg.NestedField, len(sc.Columns))
	for k, c := range sc.Columns {
		it, err := c.T.IcebergType()
		if err != nil {
			t.Fatal(err)
		}
		fields[k] = iceberg.NestedField{ID: c.FieldID, Name: c.Name, Type: it}
	}
	return iceberg.NewSchema(0, fields...)
}

func icebergRows(sc *Scope, batch arrow.RecordBatch) []icebergRow {
	out := make([]icebergRow, batch.NumRows())
	for r := range out {
		row := make(icebergRow, len(sc.Columns))
		for k, c := range sc.Columns {
			d := DatumAt(batch.Column(k), c.T, r)
			if d == nil {
				continue
			}
			switch c.T.Kind {
			case KindInt32:
				row[k] = int32(d.(int64))
			case KindDate:
				row[k] = iceberg.Date(d.(int64))
			case KindTimestamp:
				row[k] = iceberg.Timestamp(d.(int64))
			case KindNumeric:
				n, _ := d.(Decimal).Num128(c.T.Precision, c.T.Scale)
				row[k] = iceberg.Decimal{Val: n, Scale: c.T.Scale}
			default:
				row[k] = d
			}
		}
		out[r] = row
	}
	return out
}

func TestWhereMatchesPostgres(t *testing.T) {
	conn := startExprPostgres(t)
	rng := rand.New(rand.NewSource(*diffSeed))
	sc := diffScope()
	rows := diffRows(rng, 60)
	loadDiffTable(t, conn, sc, rows)
	batch := buildBatch(t, sc, rows)
	defer batch.Release()
	schema := icebergSchema(t, sc)
	irows := icebergRows(sc, batch)
	g := &exprGen{rng: rng}
	for k := 0; k < *diffN; k++ {
		w := g.boolExpr(3)
		checkWhere(t, conn, sc, batch, schema, irows, w)
	}
}

// checkWhere compares Match and the Iceberg translation with PostgreSQL.
func checkWhere(t *testing.T, conn *pgx.Conn, sc *Scope, batch arrow.RecordBatch, schema *iceberg.Schema, irows []icebergRow, w genExpr) {
	t.Helper()
	pgRows, pgCode := pgRun(t, conn, "SELECT id FROM t WHERE "+w.pg+" ORDER BY id")
	e, err := bindAST(parseExprNode(t, w.my), sc, nil)
	var got []bool
	if err == nil {
		got, err = Match(context.Background(), e, batch, nil)
	}
	if pgCode != "" || err != nil {
		if sqlCode(err) != pgCode {
			t.Errorf("WHERE %s\n  ours %q (%v), PostgreSQL %q", w.pg, sqlCode(err), err, pgCode)
		}
		return
	}
	want := make([]bool, len(got))
	for _, r := range pgRows {
		var id int
		fmt.Sscan(*r[0], &id)
		want[id] = true
	}
	for id := range got {
		if got[id] != want[id] {
			t.Errorf("WHERE %s (ours: %s)\n  row %d: Match %v, PostgreSQL %v", w.pg, w.my, id, got[id], want[id])
			return
		}
	}
	tr := Translate(context.Background(), e, sc, nil)
	eval, err := iceberg.ExpressionEvaluator(schema, tr.Filter, true)
	if err != nil {
		t.Errorf("WHERE %s: filter %s does not bind: %v", w.pg, tr.Filter, err)
		return
	}
	for id, row := range irows {
		ok, err := eval(row)
		if err != nil {
			t.Fatalf("evaluate %s: %v", tr.Filter, err)
		}
		if want[id] && !ok {
			t.Errorf("WHERE %s: filter %s excludes matching row %d", w.pg, tr.Filter, id)
			return
		}
		if tr.Exact && ok != want[id] {
			t.Errorf("WHERE %s: exact filter %s is %v on row %d, WHERE is %v", w.pg, tr.Filter, ok, id, want[id])
			return
		}
	}
}

func TestScalarMatchesPostgres(t *testing.T) {
	conn := startExprPostgres(t)
	rng := rand.New(rand.NewSource(*diffSeed + 1000))
	sc := diffScope()
	rows := diffRows(rng, 40)
	loadDiffTable(t, conn, sc, rows)
	batch := buildBatch(t, sc, rows)
	defer batch.Release()
	g := &exprGen{rng: rng}
	for k := 0; k < *diffN; k++ {
		checkScalar(t, conn, sc, batch, g.scalarExpr(2))
	}
}

// checkScalar compares values row by row so that the first failing row
// decides the error, as in PostgreSQL's row-at-a-time execution.
func checkScalar(t *testing.T, conn *pgx.Conn, sc *Scope, batch arrow.RecordBatch, x genExpr) {
	t.Helper()
	e, bindErr := bindAST(parseExprNode(t, x.my), sc, nil)
	pgRows, pgCode := pgRun(t, conn, "SELECT ("+x.pg+") FROM t ORDER BY id")
	if bindErr != nil || pgCode != "" {
		if bindErr != nil {
			if sqlCode(bindErr) != pgCode {
				t.Errorf("SELECT %s\n  ours %q (%v), PostgreSQL %q", x.pg, sqlCode(bindErr), bindErr, pgCode)
			}
			return
		}
	}
	for id := 0; id < int(batch.NumRows()); id++ {
		var want *string
		code := ""
		if pgCode != "" {
			r, c := pgRun(t, conn, fmt.Sprintf("SELECT (%s) FROM t WHERE id = %d", x.pg, id))
			if code = c; c == "" {
				want = r[0][0]
			}
		} else {
			want = pgRows[id][0]
		}
		slice := batch.NewSlice(int64(id), int64(id+1))
		arr, err := Eval(context.Background(), e, slice, nil)
		slice.Release()
		if code != "" || err != nil {
			if sqlCode(err) != code {
				t.Errorf("SELECT %s (ours: %s) row %d: ours %q (%v), PostgreSQL %q", x.pg, x.my, id, sqlCode(err), err, code)
				return
			}
			continue
		}
		var got *string
		if d := DatumAt(arr, e.Type(), 0); d != nil {
			s := string(AppendText(nil, e.Type(), arr, 0))
			got = &s
		}
		arr.Release()
		if (got == nil) != (want == nil) || got != nil && !sameText(e.Type(), *got, *want) {
			t.Errorf("SELECT %s (ours: %s) row %d: ours %s, PostgreSQL %s", x.pg, x.my, id, show(got), show(want))
			return
		}
	}
}

// sameText compares output text; numeric compares by value because an Arrow
// decimal column has one scale where PostgreSQL keeps one per value.
// Floats compare by value too: float text output is format.go's to test
// (it differs from PostgreSQL at exact ties such as 2^62-2^31, see the report).
func sameText(t Type, got, want string) bool {
	if got == want {
		return true
	}
	if t.Kind == KindFloat64 || t.Kind == KindFloat32 {
		g, err1 := CoerceText(got, Float64)
		w, err2 := CoerceText(want, Float64)
		return err1 == nil && err2 == nil && floatCmp(g.(float64), w.(float64)) == 0
	}
	if t.Kind != KindNumeric {
		return false
	}
	g, ok1 := ParseDecimal(got)
	w, ok2 := ParseDecimal(want)
	return ok1 && ok2 && g.Cmp(w) == 0
}

func show(s *string) string {
	if s == nil {
		return "NULL"
	}
	return fmt.Sprintf("%q", *s)
}

var _ = math.NaN
