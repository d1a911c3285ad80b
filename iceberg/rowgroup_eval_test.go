package iceberg

import (
	"math"
	"testing"

	ice "github.com/apache/iceberg-go"
)

// TestRowGroupStatsEdges covers what the generated tables do not: a string
// maximum that may be a truncated prefix, NaN counts, unknown statistics.
func TestRowGroupStatsEdges(t *testing.T) {
	str := colStats{typ: ice.PrimitiveTypes.String, rows: 10, nulls: 0,
		lo: ice.StringLiteral("abc"), hi: ice.StringLiteral("abd"), hiPrefix: true, noNaN: true}
	s := func(v string) ice.Literal { return ice.StringLiteral(v) }
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"s > hi, hi may be a prefix", str.literal(ice.OpGT, s("abd")), true},
		{"s > hi extended", str.literal(ice.OpGT, s("abdzz")), true},
		{"s > above every extension", str.literal(ice.OpGT, s("abe")), false},
		{"s = hi extension", str.literal(ice.OpEQ, s("abdq")), true},
		{"s = below lo", str.literal(ice.OpEQ, s("abb")), false},
		{"starts_with hi extension", str.literal(ice.OpStartsWith, s("abdz")), true},
		{"starts_with above", str.literal(ice.OpStartsWith, s("abe")), false},
		{"starts_with below", str.literal(ice.OpStartsWith, s("abb")), false},
		{"not_starts_with common prefix", str.literal(ice.OpNotStartsWith, s("ab")), false},
		{"not_starts_with longer", str.literal(ice.OpNotStartsWith, s("abc")), true},
		{"s <> single value, strings", colStats{typ: str.typ, rows: 3, nulls: 0, lo: s("x"), hi: s("x"), hiPrefix: true, noNaN: true}.literal(ice.OpNEQ, s("x")), true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}

	f := func(v float64) ice.Literal { return ice.Float64Literal(v) }
	dbl := colStats{typ: ice.PrimitiveTypes.Float64, rows: 10, nulls: 0, lo: f(1), hi: f(2)}
	if !dbl.literal(ice.OpLT, f(0)) || !dbl.unary(ice.OpIsNan) || !dbl.literal(ice.OpNEQ, f(1)) {
		t.Error("a float column that may hold NaN: NaN < 0, is_nan and NaN <> 1 might hold")
	}
	if dbl.literal(ice.OpGT, f(2)) || dbl.literal(ice.OpEQ, f(0)) || dbl.set(ice.OpIn, []ice.Literal{f(0), f(3)}) {
		t.Error("NaN is never > 2, = 0 or in (0, 3)")
	}
	if !dbl.literal(ice.OpEQ, f(math.NaN())) || !dbl.literal(ice.OpGT, f(math.NaN())) {
		t.Error("a NaN literal is not pruned on")
	}
	dbl.noNaN = true
	if dbl.literal(ice.OpLT, f(0)) || dbl.unary(ice.OpIsNan) {
		t.Error("without NaN: x < 0 and is_nan cannot hold in [1, 2]")
	}
	one := colStats{typ: ice.PrimitiveTypes.Float64, rows: 4, nulls: 0, lo: f(1), hi: f(1), noNaN: true}
	if one.literal(ice.OpNEQ, f(1)) || one.set(ice.OpNotIn, []ice.Literal{f(1), f(5)}) {
		t.Error("every value is 1: x <> 1 and x NOT IN (1, 5) cannot hold")
	}
	one.nulls = 1
	if !one.literal(ice.OpNEQ, f(1)) || !one.literal(ice.OpLT, f(0)) || one.literal(ice.OpGT, f(1)) {
		t.Error("a NULL satisfies x <> 1 and x < 0 (nulls order first), never x > 1")
	}

	unknown := colStats{typ: ice.PrimitiveTypes.Int64, rows: 5, nulls: -1, noNaN: true}
	i := func(v int64) ice.Literal { return ice.Int64Literal(v) }
	for _, op := range []ice.Operation{ice.OpEQ, ice.OpNEQ, ice.OpLT, ice.OpGT} {
		if !unknown.literal(op, i(1)) {
			t.Errorf("no statistics: %s must be kept", op)
		}
	}
	if !unknown.unary(ice.OpIsNull) || !unknown.unary(ice.OpNotNull) {
		t.Error("no null count: IS NULL and NOT NULL must be kept")
	}
	allNull := colStats{typ: ice.PrimitiveTypes.Int64, rows: 5, nulls: 5, noNaN: true}
	if allNull.unary(ice.OpNotNull) || allNull.literal(ice.OpEQ, i(1)) || !allNull.literal(ice.OpLT, i(1)) {
		t.Error("all NULL: NOT NULL and = fail, < holds (nulls order first)")
	}
}
