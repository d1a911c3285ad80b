package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func TestNormalizeFromFunction(t *testing.T) {
	for _, q := range []string{
		"SELECT s FROM generate_series(1, 3) s, t WHERE a = s",
		"SELECT r FROM pg_catalog.generate_series(1, 3) AS s(r)",
		"SELECT * FROM t JOIN generate_series(1, 2) ON true",
		"SELECT array(select 1), ARRAY[1,2][1]",
		"SELECT extract(year from d) FROM t",
		"SELECT a AS DEFAULT, b AS user FROM t",
	} {
		st, err := ParseOne(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		sel := st.(*Select)
		if strings.Contains(q, "generate_series") && !sel.Complex {
			t.Errorf("%s: a function in FROM should make the query complex", q)
		}
	}
}

// TestBindCatalogForms binds the array and record forms catalog queries
// use, and refuses them over the wrong types with PostgreSQL's errors.
func TestBindCatalogForms(t *testing.T) {
	sc := &Scope{Columns: []ScopeColumn{{Name: "a", T: Text}}}
	for in, want := range map[string]Type{`ARRAY[1, 2]`: ArrayOf(Int32), `ARRAY['x']`: ArrayOf(Text), `ARRAY[1, 2][2]`: Int32} {
		e, err := parseExpr(in)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", in, err)
		}
		if got, err := bindAST(e, sc, nil); err != nil || got.Type() != want {
			t.Errorf("Bind(%q) = %v, %v; want type %s", in, got, err, want)
		}
	}
	cases := []struct {
		in      string
		code    pgerr.Code
		message string
	}{
		{`a[1]`, pgerr.DatatypeMismatch, "cannot subscript type text because it does not support subscripting"},
		{`(a).x`, pgerr.WrongObjectType, "column notation .x applied to type text, which is not a composite type"},
	}
	for _, c := range cases {
		e, err := parseExpr(c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		_, err = bindAST(e, sc, nil)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != c.code || se.Message != c.message {
			t.Errorf("Bind(%q): got %v, want %s %q", c.in, err, c.code, c.message)
		}
	}
}
