package parse

import (
	"errors"
	"reflect"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}},
		{";; SELECT 1 ;;  ; ", []string{"SELECT 1"}},
		{"SELECT 'a;b'; SELECT 2", []string{"SELECT 'a;b'", "SELECT 2"}},
		{"SELECT 'it''s;'; SELECT 3", []string{"SELECT 'it''s;'", "SELECT 3"}},
		{`SELECT E'a\';b'; SELECT 4`, []string{`SELECT E'a\';b'`, "SELECT 4"}},
		{"SELECT $$a;b$$; SELECT 5", []string{"SELECT $$a;b$$", "SELECT 5"}},
		{"SELECT $fn$ $$; $fn$; SELECT 6", []string{"SELECT $fn$ $$; $fn$", "SELECT 6"}},
		{`SELECT "a;""b"; SELECT 7`, []string{`SELECT "a;""b"`, "SELECT 7"}},
		{"SELECT 1 -- c;\n; SELECT 8", []string{"SELECT 1", "SELECT 8"}},
		{"SELECT /* a /* nested; */ ; */ 9; SELECT 10", []string{"SELECT /* a /* nested; */ ; */ 9", "SELECT 10"}},
		{"-- only a comment", nil},
		{"/* x */ ; -- y", nil},
		{"SELECT $1; SELECT 11", []string{"SELECT $1", "SELECT 11"}},
		{"SELECT 'a'\n'b;'; SELECT 12", []string{"SELECT 'a'\n'b;'", "SELECT 12"}},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if err != nil {
			t.Errorf("Split(%q): %v", c.in, err)
			continue
		}
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitUnterminated(t *testing.T) {
	cases := []struct {
		in, msg string
		pos     int
	}{
		{"SELECT 1; SELECT 'abc", `unterminated quoted string at or near "'abc"`, 18},
		{"SELECT E'ab\\'", `unterminated quoted string at or near "E'ab\'"`, 8},
		{"SELECT $$abc", `unterminated dollar-quoted string at or near "$$abc"`, 8},
		{"SELECT $t$abc$$", `unterminated dollar-quoted string at or near "$t$abc$$"`, 8},
		{`SELECT "abc`, `unterminated quoted identifier at or near ""abc"`, 8},
		{"SELECT /* a /* b */", `unterminated /* comment at or near "/* a /* b */"`, 8},
		{"SELECT 'é' || 'x", `unterminated quoted string at or near "'x"`, 15},
	}
	for _, c := range cases {
		_, err := Split(c.in)
		var e *pgerr.Error
		if !errors.As(err, &e) {
			t.Errorf("Split(%q): got %v, want *Error", c.in, err)
			continue
		}
		if e.Code != pgerr.SyntaxError || e.Message != c.msg || e.Position != c.pos {
			t.Errorf("Split(%q): got %s %q at %d, want 42601 %q at %d", c.in, e.Code, e.Message, e.Position, c.msg, c.pos)
		}
	}
}

func TestLexDecodesStrings(t *testing.T) {
	cases := []struct{ in, want string }{
		{`'it''s'`, "it's"},
		{`'back\slash'`, `back\slash`},
		{`E'a\nb\tc\\d\'e'`, "a\nb\tc\\d'e"},
		{`E'\x41\101\u00e9\U0001F600'`, "AAé😀"},
		{`e'q''q'`, "q'q"},
		{`$$a'b$$`, "a'b"},
		{`$x$ $$ $x$`, " $$ "},
		{"'a'\n  'b'", "ab"},
	}
	for _, c := range cases {
		toks, err := Lex(c.in)
		if err != nil || len(toks) != 1 || toks[0].Kind != TokString {
			t.Errorf("lex %q: %v %+v", c.in, err, toks)
			continue
		}
		if toks[0].Val != c.want {
			t.Errorf("lex %q = %q, want %q", c.in, toks[0].Val, c.want)
		}
	}
}

func TestLexOperators(t *testing.T) {
	// PostgreSQL: a multi-character operator ends in + or - only if it
	// contains one of ~ ! @ # % ^ & | ` ?; "--" and "/*" start comments.
	cases := []struct {
		in   string
		want []string
	}{
		{"a<=-1", []string{"a", "<=", "-", "1"}},
		{"a@-1", []string{"a", "@-", "1"}},
		{"a*-- c\n2", []string{"a", "*", "2"}},
		{"a::text", []string{"a", "::", "text"}},
		{"x !~~* y", []string{"x", "!~~*", "y"}},
		{"$12+1.5e3", []string{"12", "+", "1.5e3"}},
		{"Foo\"Bar\"", []string{"foo", "Bar"}},
	}
	for _, c := range cases {
		toks, err := Lex(c.in)
		if err != nil {
			t.Errorf("lex %q: %v", c.in, err)
			continue
		}
		var got []string
		for _, tk := range toks {
			got = append(got, tk.Val)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("lex %q = %q, want %q", c.in, got, c.want)
		}
	}
}
