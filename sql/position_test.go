package sql

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// charPos is the 1-based character position of the first occurrence of at
// in q, computed independently of the lexer.
func charPos(q, at string) int {
	i := strings.Index(q, at)
	if i < 0 {
		return 0
	}
	return utf8.RuneCountInString(q[:i]) + 1
}

func TestLocated(t *testing.T) {
	cases := []struct {
		q, at string // at: the text the position must point at ("" = none)
		err   *pgerr.Error
	}{
		{"SELECT * FROM nope", "nope", UndefinedTable("", "nope")},
		{"SELECT nope.a FROM nope AS n", "nope AS", UndefinedTable("", "nope")},
		{"SELECT 'é' FROM s.nope", "s.nope", UndefinedTable("s", "nope")},
		{`SELECT "Nope" FROM t`, `"Nope"`, UndefinedColumn("", "Nope")},
		{"SELECT x AS nope, nope FROM t", ", nope", UndefinedColumn("", "nope")},
		{"SELECT nope(1), t.nope FROM t", "t.nope", UndefinedColumn("t", "nope")},
		{"SELECT 'nope', nope FROM t", ", nope", UndefinedColumn("", "nope")},
		{"DROP TABLE nope", "", UndefinedTable("", "nope")},
		{"COPY nope TO STDOUT", "", UndefinedTable("", "nope")},
		{"COPY (SELECT * FROM nope) TO STDOUT", "nope", UndefinedTable("", "nope")},
		{"CREATE TABLE x AS SELECT * FROM nope", "nope", UndefinedTable("", "nope")},
	}
	for _, c := range cases {
		want := 0
		if c.at != "" {
			want = charPos(c.q, c.at)
			if strings.HasPrefix(c.at, ", ") {
				want += 2
			}
		}
		var se *pgerr.Error
		if !errors.As(Located(c.q, c.err), &se) {
			t.Fatalf("%s: Located lost the *Error", c.q)
		}
		if se.Position != want {
			t.Errorf("%s: position %d, want %d", c.q, se.Position, want)
		}
		if c.err.Position != 0 {
			t.Errorf("%s: Located changed its argument", c.q)
		}
	}
}

func TestInQuery(t *testing.T) {
	q := "SELECT 'ä';  /* x */ SELECT * FROM nope"
	stmts, err := Split(q)
	if err != nil || len(stmts) != 2 {
		t.Fatalf("split: %q %v", stmts, err)
	}
	var se *pgerr.Error
	errors.As(InQuery(q, 1, Located(stmts[1], UndefinedTable("", "nope"))), &se)
	if want := charPos(q, "nope"); se == nil || se.Position != want {
		t.Fatalf("position %v, want %d", se, want)
	}
	if got := InQuery(q, 1, errors.New("plain")); got.Error() != "plain" {
		t.Fatalf("a non-SQL error changed: %v", got)
	}
}
