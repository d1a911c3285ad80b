package parse

import (
	"strings"
	"testing"
)

func TestNormalizeCatalogForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{`a OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default`, "regexp"},
		{`a !~ '^pg_'`, "not-regexp"},
		{`a = ANY (b)`, "(eq col:a __any(col:b))"},
		{`'d' = any(stxkind)`, "(eq __cast('d', ...)) "},
		{`ARRAY[1, 2]`, "__array(1, 2)"},
		{`a[1]`, "__subscript(col:a, 1)"},
		{`(current_schemas(true))[1]`, "__subscript([current_schemas(__true())], 1)"},
		{`(x).n`, `__field([col:x], "n")`},
		{`a ~* 'x'`, `__iregex(col:a, "x")`},
		{`a !~* 'x'`, `(not __iregex(col:a, "x"))`},
		{`j -> 'a' ->> 1 = 'x'`, `(eq __json_get_text(__json_get(col:j, "a"), 1) "x")`},
		{`j -> -1 || 'b'`, `concat(__json_get(col:j, (minus 1)), "b")`},
	}
	for _, c := range cases {
		e, err := parseExpr(c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		got := Shape(e)
		switch c.want {
		case "regexp", "not-regexp":
			r, ok := e.(*Regexp)
			if !ok || r.Not != (c.want == "not-regexp") {
				t.Errorf("ParseExpr(%q) = %T, want %s", c.in, e, c.want)
			}
		case "(eq __cast('d', ...)) ":
			if !strings.Contains(got, "__any(col:stxkind)") {
				t.Errorf("ParseExpr(%q) = %s", c.in, got)
			}
		default:
			if got != c.want {
				t.Errorf("ParseExpr(%q)\n got  %s\n want %s", c.in, got, c.want)
			}
		}
	}
}

func TestNormalizeExtract(t *testing.T) {
	for in, want := range map[string]string{
		`extract(year from d)`:       `__extract("year", col:d)`,
		`EXTRACT(Epoch FROM ts + 1)`: `__extract("epoch", (plus col:ts 1))`,
		`extract('dow' from d)`:      `__extract("dow", col:d)`,
		`extract("DOY" from now())`:  `__extract("DOY", now())`,
	} {
		e, err := parseExpr(in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", in, err)
			continue
		}
		if got := Shape(e); got != want {
			t.Errorf("ParseExpr(%q) = %s, want %s", in, got, want)
		}
	}
}
