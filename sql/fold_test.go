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
		// Functions are not folded (some are volatile).
		{"abs(-1) + 1", "abs((-1)) + 1"},
	} {
		node, err := ParseExpr(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		e, err := Bind(node, scope, &Params{})
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := e.String(); got != c.want {
			t.Errorf("%.60s: bound as %s, want %s", c.expr, got, c.want)
		}
	}
}
