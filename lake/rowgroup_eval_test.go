package lake

import (
	"math"
	"testing"

	"github.com/apache/iceberg-go"
)

// TestRowGroupStatsEdges covers what the generated tables do not: a string
// maximum that may be a truncated prefix, NaN counts, unknown statistics.
func TestRowGroupStatsEdges(t *testing.T) {
	str := colStats{typ: iceberg.PrimitiveTypes.String, rows: 10, nulls: 0,
		lo: iceberg.StringLiteral("abc"), hi: iceberg.StringLiteral("abd"), hiPrefix: true, noNaN: true}
	s := func(v string) iceberg.Literal { return iceberg.StringLiteral(v) }
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"s > hi, hi may be a prefix", str.literal(iceberg.OpGT, s("abd")), true},
		{"s > hi extended", str.literal(iceberg.OpGT, s("abdzz")), true},
		{"s > above every extension", str.literal(iceberg.OpGT, s("abe")), false},
		{"s = hi extension", str.literal(iceberg.OpEQ, s("abdq")), true},
		{"s = below lo", str.literal(iceberg.OpEQ, s("abb")), false},
		{"starts_with hi extension", str.literal(iceberg.OpStartsWith, s("abdz")), true},
		{"starts_with above", str.literal(iceberg.OpStartsWith, s("abe")), false},
		{"starts_with below", str.literal(iceberg.OpStartsWith, s("abb")), false},
		{"not_starts_with common prefix", str.literal(iceberg.OpNotStartsWith, s("ab")), false},
		{"not_starts_with longer", str.literal(iceberg.OpNotStartsWith, s("abc")), true},
		{"s <> single value, strings", colStats{typ: str.typ, rows: 3, nulls: 0, lo: s("x"), hi: s("x"), hiPrefix: true, noNaN: true}.literal(iceberg.OpNEQ, s("x")), true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}

	f := func(v float64) iceberg.Literal { return iceberg.Float64Literal(v) }
	dbl := colStats{typ: iceberg.PrimitiveTypes.Float64, rows: 10, nulls: 0, lo: f(1), hi: f(2)}
	if !dbl.literal(iceberg.OpLT, f(0)) || !dbl.unary(iceberg.OpIsNan) || !dbl.literal(iceberg.OpNEQ, f(1)) {
		t.Error("a float column that may hold NaN: NaN < 0, is_nan and NaN <> 1 might hold")
	}
	if dbl.literal(iceberg.OpGT, f(2)) || dbl.literal(iceberg.OpEQ, f(0)) || dbl.set(iceberg.OpIn, newSortedLiterals([]iceberg.Literal{f(0), f(3)})) {
		t.Error("NaN is never > 2, = 0 or in (0, 3)")
	}
	if !dbl.literal(iceberg.OpEQ, f(math.NaN())) || !dbl.literal(iceberg.OpGT, f(math.NaN())) {
		t.Error("a NaN literal is not pruned on")
	}
	dbl.noNaN = true
	if dbl.literal(iceberg.OpLT, f(0)) || dbl.unary(iceberg.OpIsNan) {
		t.Error("without NaN: x < 0 and is_nan cannot hold in [1, 2]")
	}
	one := colStats{typ: iceberg.PrimitiveTypes.Float64, rows: 4, nulls: 0, lo: f(1), hi: f(1), noNaN: true}
	if one.literal(iceberg.OpNEQ, f(1)) || one.set(iceberg.OpNotIn, newSortedLiterals([]iceberg.Literal{f(1), f(5)})) {
		t.Error("every value is 1: x <> 1 and x NOT IN (1, 5) cannot hold")
	}
	one.nulls = 1
	if !one.literal(iceberg.OpNEQ, f(1)) || !one.literal(iceberg.OpLT, f(0)) || one.literal(iceberg.OpGT, f(1)) {
		t.Error("a NULL satisfies x <> 1 and x < 0 (nulls order first), never x > 1")
	}

	unknown := colStats{typ: iceberg.PrimitiveTypes.Int64, rows: 5, nulls: -1, noNaN: true}
	i := func(v int64) iceberg.Literal { return iceberg.Int64Literal(v) }
	for _, op := range []iceberg.Operation{iceberg.OpEQ, iceberg.OpNEQ, iceberg.OpLT, iceberg.OpGT} {
		if !unknown.literal(op, i(1)) {
			t.Errorf("no statistics: %s must be kept", op)
		}
	}
	if !unknown.unary(iceberg.OpIsNull) || !unknown.unary(iceberg.OpNotNull) {
		t.Error("no null count: IS NULL and NOT NULL must be kept")
	}
	allNull := colStats{typ: iceberg.PrimitiveTypes.Int64, rows: 5, nulls: 5, noNaN: true}
	if allNull.unary(iceberg.OpNotNull) || allNull.literal(iceberg.OpEQ, i(1)) || !allNull.literal(iceberg.OpLT, i(1)) {
		t.Error("all NULL: NOT NULL and = fail, < holds (nulls order first)")
	}
}
