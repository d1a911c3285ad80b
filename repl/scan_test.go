package repl

import (
	"slices"
	"testing"
)

func TestScanStatements(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		stmts     []string
		rest      string
		state     lexState
		restToken bool
	}{
		{name: "empty", in: "", state: lexNormal},
		{name: "one", in: "select 1;", stmts: []string{"select 1;"}, state: lexNormal},
		{name: "leading blanks trimmed", in: "  \n\tselect 1;  ", stmts: []string{"select 1;"}, rest: "  ", state: lexNormal},
		{name: "two and a tail", in: "select 1; select 2;\nselect", stmts: []string{"select 1;", "select 2;"}, rest: "\nselect", state: lexNormal, restToken: true},
		{name: "semicolon in string", in: "select 'a;b';", stmts: []string{"select 'a;b';"}, state: lexNormal},
		{name: "doubled quote", in: "select 'it''s;';", stmts: []string{"select 'it''s;';"}, state: lexNormal},
		{name: "backslash is plain in standard strings", in: `select 'a\'; select 2;`, stmts: []string{`select 'a\';`, "select 2;"}, state: lexNormal},
		{name: "E string escapes quote", in: `select E'a\';b'; x`, stmts: []string{`select E'a\';b';`}, rest: " x", state: lexNormal, restToken: true},
		{name: "identifier ending in e is not E string", in: `select some'x\';`, stmts: []string{`select some'x\';`}, state: lexNormal},
		{name: "open string", in: "select 'abc;\n", rest: "select 'abc;\n", state: lexQuote, restToken: true},
		{name: "quoted identifier", in: `select "a;""b" from t;`, stmts: []string{`select "a;""b" from t;`}, state: lexNormal},
		{name: "open identifier", in: `select "a;`, rest: `select "a;`, state: lexIdent, restToken: true},
		{name: "line comment", in: "select 1 -- no; end\n;", stmts: []string{"select 1 -- no; end\n;"}, state: lexNormal},
		{name: "block comment nests", in: "select /* a /* b; */ c; */ 1;", stmts: []string{"select /* a /* b; */ c; */ 1;"}, state: lexNormal},
		{name: "open comment", in: "select 1 /* x; /* y */", rest: "select 1 /* x; /* y */", state: lexComment, restToken: true},
		{name: "dollar quote", in: "select $$a;b$$;", stmts: []string{"select $$a;b$$;"}, state: lexNormal},
		{name: "tagged dollar quote", in: "select $fn$ $$; $fn$;", stmts: []string{"select $fn$ $$; $fn$;"}, state: lexNormal},
		{name: "open dollar quote", in: "select $q$ a;", rest: "select $q$ a;", state: lexDollar, restToken: true},
		{name: "parameter is not a quote", in: "select $1; select $2;", stmts: []string{"select $1;", "select $2;"}, state: lexNormal},
		{name: "dollar inside identifier", in: "select a$b$c; x", stmts: []string{"select a$b$c;"}, rest: " x", state: lexNormal, restToken: true},
		{name: "parentheses hold semicolons", in: "select (1;\n", rest: "select (1;\n", state: lexParen, restToken: true},
		{name: "parentheses close", in: "select (1;2); y", stmts: []string{"select (1;2);"}, rest: " y", state: lexNormal, restToken: true},
		{name: "empty statements dropped", in: ";; select 1;;", stmts: []string{"select 1;"}, state: lexNormal},
		{name: "comment-only statement dropped", in: "-- hi\n; /* x */;", state: lexNormal},
		{name: "comment-only rest has no token", in: "select 1; -- bye\n", stmts: []string{"select 1;"}, rest: " -- bye\n", state: lexNormal},
		{name: "unicode", in: "select '日本;語'; ", stmts: []string{"select '日本;語';"}, rest: " ", state: lexNormal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scanStatements(tt.in)
			if !slices.Equal(got.stmts, tt.stmts) {
				t.Errorf("stmts = %q, want %q", got.stmts, tt.stmts)
			}
			if got.rest != tt.rest {
				t.Errorf("rest = %q, want %q", got.rest, tt.rest)
			}
			if got.state != tt.state {
				t.Errorf("state = %q, want %q", got.state, tt.state)
			}
			if got.restHasToken != tt.restToken {
				t.Errorf("restHasToken = %v, want %v", got.restHasToken, tt.restToken)
			}
		})
	}
}

// Feeding a script a byte at a time must find the same statements as
// scanning it whole: the scanner keeps no state between calls.
func TestScanStatementsIncremental(t *testing.T) {
	script := "select 'a;b', $$c;d$$; /* x; */ select (1;2);\nselect \"q;\" -- ;\n;select E'\\';';"
	whole := scanStatements(script).stmts
	var got []string
	pending := ""
	for i := 0; i < len(script); i++ {
		res := scanStatements(pending + script[i:i+1])
		got = append(got, res.stmts...)
		pending = res.rest
	}
	if !slices.Equal(got, whole) || len(whole) != 4 {
		t.Fatalf("incremental %q, whole %q (want 4 statements)", got, whole)
	}
}
