package sql

import (
	"strings"
	"testing"
)

// Constant operators are evaluated once at bind time (issue 19): a
// thousand-term constant sum in a WHERE compares with one constant per row.
func TestFoldConstants(t *testing.T) {
	scope := &Scope{Columns: []ScopeColumn{{Name: "id", T: Int64}}}
	for _, c := range []struct {
		expr string
		want string // the bound expression
	}{
		{strings.Repeat("0+", 1000) + "7", "7"},
		{"id = " + strings.Repeat("1+", 999) + "1", "id = 1000"},
		{"2.5::numeric * 2 > 4 AND NOT false", "true"},
		{"id + (1 + 2)", "id + 3"},
		// Folding that fails is left to the executor: CASE may never
		// evaluate it, as in PostgreSQL.
		{"CASE WHEN id > 0 THEN 1 ELSE 1 / 0 END", "CASE WHEN id > 0 THEN 1 ELSE 1 / 0 END"},
		// Immutable functions fold; volatile ones do not.
		{"abs(-1) + 1", "2"},
		{"random() + 1", "random() + 1"},
		// A strict operator or function with a NULL constant operand is
		// NULL, whatever its other operand (issue 48, item 9).
		{"id / 0 = NULL", "NULL"},
		{"abs(id / 0 + NULL)", "NULL"},
		{"coalesce(NULL, id, id / 0)", "coalesce(id, id / 0)"},
		{"false AND id / 0 = 1", "false"},
		{"id / 0 IS NULL", "(id / 0) IS NULL"},
	} {
		node, err := parseExpr(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		e, err := bindAST(node, scope, &Params{})
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := e.String(); got != c.want {
			t.Errorf("%.60s: bound as %s, want %s", c.expr, got, c.want)
		}
	}
}
