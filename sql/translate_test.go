package sql

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"
)

func TestTranslateFilters(t *testing.T) {
	cases := []struct {
		where    string
		filter   string // Filter.String()
		exact    bool
		residual string // "" when none
	}{
		{"i = 5", "Equal(term=Reference(name='i'), literal=5)", true, ""},
		{"5 < i", "GreaterThan(term=Reference(name='i'), literal=5)", true, ""},
		{"i = 3000000000", "AlwaysFalse()", true, ""},
		{"i < 3000000000", "NotNull(term=Reference(name='i'))", true, ""},
		{"i < 2.5", "And(left=LessThanEqual(term=Reference(name='i'), literal=2), right=NotNull(term=Reference(name='i')))", true, ""},
		{"i > 2.5", "GreaterThanEqual(term=Reference(name='i'), literal=3)", true, ""},
		{"i = 2.5", "AlwaysFalse()", true, ""},
		{"i <> 5", "And(left=NotEqual(term=Reference(name='i'), literal=5), right=NotNull(term=Reference(name='i')))", true, ""},
		{"not (i = 5)", "And(left=NotEqual(term=Reference(name='i'), literal=5), right=NotNull(term=Reference(name='i')))", true, ""},
		{"i not in (1, NULL)", "AlwaysFalse()", true, ""},
		{"i in (1, 2.5, NULL)", "Equal(term=Reference(name='i'), literal=1)", true, ""},
		{"n = 1.005", "AlwaysFalse()", true, ""},
		{"n >= 1.005", "GreaterThanEqual(term=Reference(name='n'), literal=1.01)", true, ""},
		{"f > 1", "Or(left=GreaterThan(term=Reference(name='f'), literal=1), right=IsNaN(term=Reference(name='f')))", true, ""},
		{"f < 1", "And(left=And(left=LessThan(term=Reference(name='f'), literal=1), right=NotNaN(term=Reference(name='f'))), right=NotNull(term=Reference(name='f')))", true, ""},
		{"f = __cast('NaN', 'float8')", "IsNaN(term=Reference(name='f'))", true, ""},
		{"s like 'ab%'", "StartsWith(term=Reference(name='s'), literal=ab)", true, ""},
		{"s like 'ab\\%%'", "StartsWith(term=Reference(name='s'), literal=ab%)", true, ""},
		{"s like 'ab%c'", "StartsWith(term=Reference(name='s'), literal=ab)", false, "t.s LIKE 'ab%c'"},
		{"i = 5 and lower(s) = 'x'", "Equal(term=Reference(name='i'), literal=5)", false, "lower(t.s) = 'x'"},
		{"i = 5 or lower(s) = 'x'", "AlwaysTrue()", false, "(t.i = 5) OR (lower(t.s) = 'x')"},
		{"i <> b", "AlwaysTrue()", false, "t.i <> t.b"},
		{"bo", "Equal(term=Reference(name='bo'), literal=true)", true, ""},
		{"not bo", "Equal(term=Reference(name='bo'), literal=false)", true, ""},
		{"not (i = 1 or s = 'a')", "And(left=And(left=NotEqual(term=Reference(name='i'), literal=1), right=NotNull(term=Reference(name='i'))), right=And(left=NotEqual(term=Reference(name='s'), literal=a), right=NotNull(term=Reference(name='s'))))", true, ""},
		{"i is null", "IsNull(term=Reference(name='i'))", true, ""},
		{"not (i <=> NULL)", "NotNull(term=Reference(name='i'))", true, ""},
	}
	sc := exprTestScope()
	for _, c := range cases {
		tr := Translate(context.Background(), mustBind(t, c.where, sc), sc, nil)
		res := ""
		if tr.Residual != nil {
			res = tr.Residual.String()
		}
		if tr.Filter.String() != c.filter || tr.Exact != c.exact || res != c.residual {
			t.Errorf("%s:\n got  %s exact=%v residual=%q\n want %s exact=%v residual=%q", c.where, tr.Filter, tr.Exact, res, c.filter, c.exact, c.residual)
		}
	}
}

func TestTranslateParamsAndJSON(t *testing.T) {
	sc := exprTestScope()
	params := &Params{}
	e, err := bindExpr(t, "ts >= __param(1) and b = __param(2)", sc, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := params.OIDs(); len(got) != 2 || got[0] != OIDTimestamp || got[1] != OIDInt8 {
		t.Fatalf("inferred param OIDs %v", got)
	}
	tr := Translate(context.Background(), e, sc, []any{"2024-01-01 10:00:00", int64(7)})
	if !tr.Exact {
		t.Fatalf("not exact: %s", tr.Filter)
	}
	fields := []iceberg.NestedField{
		{ID: 2, Name: "b", Type: iceberg.PrimitiveTypes.Int64},
		{ID: 8, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
	}
	js, err := FilterJSON(tr.Filter, iceberg.NewSchema(0, fields...))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"and","left":{"type":"gt-eq","term":"ts","value":"2024-01-01T10:00:00"},"right":{"type":"eq","term":"b","value":7}}`
	if string(js) != want {
		t.Errorf("json %s\nwant %s", js, want)
	}
}
