package sql

import (
	"context"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// fastRow is a random row of exprTestScope with the values that trip
// comparisons: NULLs, NaN, ±0, ±Inf, extreme ints, equal-but-differently
// scaled numerics, empty and non-ASCII strings.
func fastRow(rng *rand.Rand) []any {
	pick := func(vs ...any) any { return vs[rng.Intn(len(vs))] }
	null := func(v any) any {
		if rng.Intn(6) == 0 {
			return nil
		}
		return v
	}
	return []any{
		int64(rng.Intn(1000)),
		null(pick(int64(0), int64(1), int64(-1), int64(7), int64(42), int64(math.MaxInt64), int64(math.MinInt64), int64(rng.Intn(100)))),
		null(pick(int64(0), int64(3), int64(7), int64(-5), int64(math.MaxInt32), int64(math.MinInt32), int64(rng.Intn(100)))),
		null(pick(0.0, math.Copysign(0, -1), 2.5, -2.25, 7.0, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, rng.Float64()*100)),
		null(pick("2.50", "-2.25", "1.5", "0", "99999999.99", "3.00", fmt.Sprintf("%d.%02d", rng.Intn(1000), rng.Intn(100)))),
		null(pick("", "a", "ab", "abc", "AB", "ü", "Zeta", "5", "a%b", "O'Reilly")),
		null(pick("2024-01-01", "2023-12-31", "2024-01-02", "1970-01-01", "1969-12-31")),
		null(pick("2024-01-01 10:00:00", "2024-01-01 00:00:00", "2024-01-01 08:00:00", "1970-01-01 00:00:00")),
		null(pick(true, false)),
		null(pick(0.0, 2.5, float64(float32(0.1)), math.NaN(), math.Inf(-1), 7.0)),
		null(pick("2024-01-01 10:00:00+00", "2024-01-01 08:00:00+00")),
		null([16]byte{byte(rng.Intn(3))}),
		null(pick("", "a", "abcde", "ab")),
	}
}

// fastShapeExpr generates the WHERE shapes the fast path is meant for, in
// the front end's normalised form.
func fastShapeExpr(rng *rand.Rand, depth int) string {
	pick := func(vs ...string) string { return vs[rng.Intn(len(vs))] }
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	lit := map[string][]string{
		"b":  {"0", "7", "-1", "42", "9223372036854775807", "-9223372036854775808", "NULL", "2.5", "__param(1)"},
		"i":  {"0", "3", "7", "-5", "2147483647", "3000000000", "NULL", "1.50"},
		"f":  {"0", "2.5", "-2.25", "7", "__cast('NaN', 'float8')", "__cast('-Infinity', 'float8')", "__cast('Infinity', 'float8')", "1e300"},
		"r":  {"0", "2.5", "0.1", "7", "__cast('NaN', 'float4')"},
		"n":  {"2.5", "1.50", "-2.25", "0", "3", "99999999.99", "1.005", "__cast('NaN', 'numeric')"},
		"s":  {"''", "'a'", "'ab'", "'AB'", "'ü'", "'abc'", "NULL"},
		"v":  {"''", "'a'", "'abcde'"},
		"d":  {"'2024-01-01'", "__cast('2023-12-31', 'date')", "'1970-01-01'"},
		"ts": {"'2024-01-01 10:00:00'", "'2024-01-01'", "__cast('2024-01-01 08:00:00', 'timestamp')"},
		"tz": {"'2024-01-01 10:00:00+00'", "__cast('2024-01-01 08:00:00Z', 'timestamptz')"},
		"bo": {"__true()", "__false()"},
	}
	cols := []string{"b", "i", "f", "r", "n", "s", "v", "d", "ts", "tz", "bo"}
	col := cols[rng.Intn(len(cols))]
	one := func() string { return lit[col][rng.Intn(len(lit[col]))] }
	k := rng.Intn(10)
	if depth <= 0 {
		k = []int{0, 1, 2, 3, 4, 5, 7}[rng.Intn(7)]
	}
	switch k {
	case 0, 1:
		if rng.Intn(4) == 0 {
			// Two columns: one kind (ints of any width, strings with
			// varchar) or a pair the general path converts.
			pair := pick("b i", "i b", "id b", "s v", "v s", "n n", "d d", "ts ts", "d ts", "f r", "b n", "s s")
			l, r, _ := strings.Cut(pair, " ")
			return l + " " + pick(ops...) + " " + r
		}
		if rng.Intn(3) == 0 {
			return one() + " " + pick(ops...) + " " + col
		}
		return col + " " + pick(ops...) + " " + one()
	case 2:
		return col + pick(" IS NULL", " IS NOT NULL")
	case 3:
		items := []string{one()}
		for n := []int{0, 1, 2, 9}[rng.Intn(4)]; n > 0; n-- { // 10 items: a hash set
			items = append(items, one())
		}
		return fmt.Sprintf("%s %sIN (%s)", col, pick("", "NOT "), joinStrings(items))
	case 4:
		return fmt.Sprintf("%s %sBETWEEN %s AND %s", col, pick("", "NOT "), one(), one())
	case 5:
		return pick("bo", "NOT bo", "bo IS TRUE", "bo IS NOT FALSE", "bo IS NOT TRUE", "__true()", "NULL")
	case 6:
		return "NOT (" + fastShapeExpr(rng, depth-1) + ")"
	case 7:
		// No kernel: the general evaluator's part of a mixed AND or OR,
		// some raising errors (division by zero) on some rows.
		return pick("s LIKE 'a%'", "length(s) > 1", "b / i > 1", "i / (b - 7) < 2", "upper(v) = 'A'", "abs(i) < 5",
			"s LIKE '%b%'", "v NOT LIKE '%a'", "s LIKE 'a_'", "s NOT LIKE ''", "v LIKE '%'", "s LIKE NULL", "s ILIKE 'A%'")
	}
	return "(" + fastShapeExpr(rng, depth-1) + " " + pick("AND", "OR") + " " + fastShapeExpr(rng, depth-1) + ")"
}

func joinStrings(items []string) string {
	out := ""
	for k, it := range items {
		if k > 0 {
			out += ", "
		}
		out += it
	}
	return out
}

// TestMatchFastAgreesWithGeneral runs random predicates through the typed
// kernels and through the general evaluator on the same random batches; both
// must select exactly the same rows. The general path is itself checked
// against PostgreSQL by the differential tests.
func TestMatchFastAgreesWithGeneral(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	sc := exprTestScope()
	ctx := context.Background()
	var fast, total int
	gen := &exprGen{rng: rng}
	for iter := 0; iter < 3000; iter++ {
		var src string
		if iter%3 == 2 {
			src = gen.boolExpr(2).my
		} else {
			src = fastShapeExpr(rng, 2)
		}
		params := &Params{}
		e, err := bindExpr(t, src, sc, params)
		if err != nil || e.Type().Kind != KindBool {
			continue
		}
		rows := make([][]any, 1+rng.Intn(40))
		for r := range rows {
			rows[r] = fastRow(rng)
		}
		batch := buildBatch(t, sc, rows)
		args := make([]any, len(params.OIDs()))
		for k := range args {
			args[k] = fmt.Sprint(rng.Intn(10))
		}
		got, ferr, ok := NewMatcher(e, args).matchFastOnly(ctx, batch)
		want, gerr := newEvaluator(ctx, batch, args).matchGeneral(e)
		batch.Release()
		total++
		if !ok {
			continue
		}
		fast++
		switch {
		case ferr != nil && gerr == nil:
			t.Fatalf("%s: the fast path raised %v where the general path raises nothing", src, ferr)
		case ferr != nil:
		case gerr != nil:
			// A mixed AND or OR ran an argument that fails on fewer rows
			// than the written order would (allowed: see fastLogic);
			// a predicate wholly of kernels cannot fail.
			if f, _ := newEvaluator(ctx, nil, args).strictCompile(e); f {
				t.Fatalf("%s: general path fails (%v) where the kernels answered", src, gerr)
			}
		case !slices.Equal(got, want):
			t.Fatalf("%s (%s):\nrows %v\nfast    %v\ngeneral %v", src, e, rows, got, want)
		}
	}
	if fast < total/2 {
		t.Fatalf("fast path compiled only %d of %d predicates", fast, total)
	}
	t.Logf("%d of %d predicates took the fast path", fast, total)
}

// TestMatchFastShapes pins which common WHERE shapes compile to kernels, so
// a binder change that silently drops them to the slow path is noticed.
func TestMatchFastShapes(t *testing.T) {
	sc := exprTestScope()
	for _, src := range []string{
		"b = 7", "7 < b", "i >= 3 AND i < 100", "f > 2.5", "r < 1", "n = 2.5", "s = 'ab'", "v <> 'a'",
		"d >= '2024-01-01'", "ts < '2024-01-01 10:00:00'", "bo = __true()", "b IS NULL", "s IS NOT NULL",
		"i IN (1, 2, 3)", "s NOT IN ('a', 'b')", "b BETWEEN 1 AND 10", "NOT (b = 1 OR f IS NULL)", "bo",
		"b < i", "id >= b", "s = v", "n <> n", "d <= d", "ts > ts", "s LIKE 'ab%'", "v NOT LIKE '%a%b%'",
		"b > 1 AND s LIKE 'a_'",
	} {
		e := mustBind(t, src, sc)
		ev := newEvaluator(context.Background(), buildBatch(t, sc, [][]any{fastRow(rand.New(rand.NewSource(1)))}), nil)
		if _, ok := ev.matchFast(e); !ok {
			t.Errorf("%s (%s): no fast path", src, e)
		}
	}
}

// matchFastOnly is Match through the fast path alone: false when e has
// none; the error is what the path raised.
func (m *Matcher) matchFastOnly(ctx context.Context, batch arrow.RecordBatch) ([]bool, error, bool) {
	f, ok := newEvaluator(ctx, nil, m.params).compileFast(m.e)
	if !ok {
		return nil, nil, false
	}
	t := f(ctx, batch, nil)
	if t.err != nil {
		return nil, t.err, true
	}
	for i, null := range t.null {
		t.val[i] = t.val[i] && !null
	}
	return t.val, nil, true
}

// strictCompile reports whether e compiles to kernels alone.
func (ev *evaluator) strictCompile(e Expr) (bool, error) {
	ev.strictFast = true
	_, ok := ev.compileFast(e)
	return ok, nil
}
