package sql

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
)

// Regressions found by the PostgreSQL differential tests.

// Iceberg's row evaluator orders null below every value, so "x < c" alone
// would be true for null rows: the translation guards it with not_null.
func TestRegressTranslateLessThanExcludesNull(t *testing.T) {
	sc := exprTestScope()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 3, Name: "i", Type: iceberg.PrimitiveTypes.Int32})
	for _, where := range []string{"i < 5", "i <= 5", "i not between 6 and 9", "not (i >= 5)"} {
		tr := Translate(context.Background(), mustBind(t, where, sc), sc, nil)
		eval, err := iceberg.ExpressionEvaluator(schema, tr.Filter, true)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := eval(icebergRow{nil})
		if err != nil || ok {
			t.Errorf("%s: filter %s keeps a null row (err %v)", where, tr.Filter, err)
		}
	}
}

func TestRegressEvalEdges(t *testing.T) {
	row := []any{int64(1), nil, int64(0), "NaN", "1.50", nil, "5874897-12-31"}
	cases := []struct{ expr, want string }{
		{"f / i", "NaN"}, // PostgreSQL lets NaN / 0 through
		{"d + 1", "ERR:" + string(pgerr.DatetimeFieldOverflow)},                                                 // date out of range
		{"__cast(__cast('Infinity', 'float8'), 'numeric(6,1)')", "ERR:" + string(pgerr.NumericValueOutOfRange)}, // not 0A000
		{"__cast(n, 'numeric')", "1.50"},                                                                        // unconstrained numeric keeps the scale
	}
	for _, c := range cases {
		v, err := evalRow(t, c.expr, row)
		got := "NULL"
		if err != nil {
			got = "ERR:" + sqlCode(err)
		} else if v != nil {
			e, _ := bindExpr(t, c.expr, exprTestScope(), nil)
			got = formatDatum(v, e.Type())
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}
