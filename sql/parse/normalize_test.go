package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func TestNormalizeContract(t *testing.T) {
	cases := []struct{ in, want string }{
		// identifiers: unquoted fold, quoted keep case, tidb-only keywords are names
		{`Foo`, `col:foo`},
		{`"Foo"`, `col:Foo`},
		{`"S".T."C"`, `col:S.t.C`},
		{`key + "index"`, `(plus col:key col:index)`},
		{`"t$snapshots".x`, `col:t$snapshots.x`},
		// parameters
		{`$1`, `__param(1)`},
		{`$12 + 1`, `(plus __param(12) 1)`},
		// casts
		{`x::int`, `__cast(col:x, "int")`},
		{`x::NUMERIC(10, 2)`, `__cast(col:x, "numeric(10, 2)")`},
		{`x :: timestamp   with time zone`, `__cast(col:x, "timestamp with time zone")`},
		{`x::character varying(5)`, `__cast(col:x, "character varying(5)")`},
		{`x::regclass`, `__cast(col:x, "regclass")`},
		{`x::text[]`, `__cast(col:x, "text[]")`},
		{`x::double precision`, `__cast(col:x, "double precision")`},
		{`x::pg_catalog.int4`, `__cast(col:x, "pg_catalog.int4")`},
		{`CAST(x AS numeric(10,2))`, `__cast(col:x, "numeric(10,2)")`},
		{`cast(a + 1 as Timestamp With Time Zone)`, `__cast((plus col:a 1), "timestamp with time zone")`},
		{`cast(cast(a as text) as int)`, `__cast(__cast(col:a, "text"), "int")`},
		{`-1::int`, `(minus __cast(1, "int"))`},
		{`a.b::text`, `__cast(col:a.b, "text")`},
		{`(x+1)::text`, `__cast([(plus col:x 1)], "text")`},
		{`'x'::text::int`, `__cast(__cast("x", "text"), "int")`},
		{`f(a)::text`, `__cast(f(col:a), "text")`},
		{`a * b::int`, `(mul col:a __cast(col:b, "int"))`},
		{`$1::bigint`, `__cast(__param(1), "bigint")`},
		{`CASE WHEN a THEN 1 END::text`, `__cast(*parse.Case, "text")`},
		// typed literals
		{`date '2024-01-01'`, `__cast("2024-01-01", "date")`},
		{`timestamp '2024-01-01 10:00'`, `__cast("2024-01-01 10:00", "timestamp")`},
		{`timestamptz '2024-01-01 10:00+02'`, `__cast("2024-01-01 10:00+02", "timestamptz")`},
		{`interval '1 day'`, `__cast("1 day", "interval")`},
		{`timestamp with time zone '2024-01-01'`, `__cast("2024-01-01", "timestamp with time zone")`},
		// IS DISTINCT FROM
		{`a IS DISTINCT FROM b`, `(not [(nulleq col:a col:b)])`},
		{`a IS NOT DISTINCT FROM b`, `[(nulleq col:a col:b)]`},
		{`a + 1 IS DISTINCT FROM b * 2`, `(not [(nulleq [(plus col:a 1)] [(mul col:b 2)])])`},
		{`x = 1 AND a IS DISTINCT FROM b OR c`, `(or (and (eq col:x 1) (not [(nulleq col:a col:b)])) col:c)`},
		{`(a IS DISTINCT FROM $1)`, `[(not [(nulleq col:a __param(1))])]`},
		// booleans
		{`TRUE`, `__true()`},
		{`false OR a`, `(or __false() col:a)`},
		{`a IS TRUE`, `(is-true not=false col:a)`},
		{`a IS NOT FALSE`, `(is-false not=true col:a)`},
		{`a IS UNKNOWN`, `(isnull not=false col:a)`},
		{`a IS NOT UNKNOWN`, `(isnull not=true col:a)`},
		{`a ISNULL`, `(isnull not=false col:a)`},
		{`a NOTNULL`, `(isnull not=true col:a)`},
		// strings
		{`E'a\nb''c'`, "\"a\\nb'c\""},
		{`$$it's$$`, `"it's"`},
		{`'back\slash'`, `"back\\slash"`},
		{`'a' || 'b' || c`, `concat(concat("a", "b"), col:c)`},
		// LIKE family
		{`a ILIKE 'x%'`, `__ilike(col:a, "x%")`},
		{`a NOT ILIKE 'x%'`, `(not __ilike(col:a, "x%"))`},
		{`a || b ILIKE 'x%' ESCAPE '!'`, `__ilike(concat(col:a, col:b), "x%", "!")`},
		{`a ~~* 'x'`, `__ilike(col:a, "x")`},
		{`a !~~* 'x'`, `(not __ilike(col:a, "x"))`},
		{`a ~~ 'x'`, `(like not=false col:a "x" esc=\)`},
		{`a !~~ 'x'`, `(like not=true col:a "x" esc=\)`},
		{`a LIKE 'x!%' ESCAPE '!'`, `(like not=false col:a "x!%" esc=!)`},
		{`b = (a NOT ILIKE 'x')`, `(eq col:b [(not __ilike(col:a, "x"))])`},
		{`NOT a ILIKE 'x' AND b`, `(and (not __ilike(col:a, "x")) col:b)`},
		// comments vanish, other syntax is tidb-native
		{`a /* c */ + -- d` + "\n" + `1`, `(plus col:a 1)`},
		{`a IN (1, 2)`, `(in not=false col:a 1, 2)`},
		{`a BETWEEN 1 AND 2`, `(between not=false col:a 1 2)`},
	}
	for _, c := range cases {
		e, err := parseExpr(c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		if got := Shape(e); got != c.want {
			t.Errorf("ParseExpr(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

func TestNormalizeUnsupported(t *testing.T) {
	cases := []struct{ in, construct string }{
		{`a SIMILAR TO 'x'`, "SIMILAR TO"},
		{`2 ^ 3`, "operator ^"},
		{`a # b`, "operator #"},
		{`U&'d\0061t'`, "U&"},
		{`B'0101'`, "bit string"},
		{`j ? 'k'`, "operator ?"},
	}
	for _, c := range cases {
		_, err := parseExpr(c.in)
		var e *pgerr.Error
		if !errors.As(err, &e) || e.Code != pgerr.FeatureNotSupported || !strings.Contains(e.Message, c.construct) {
			t.Errorf("ParseExpr(%q): got %v, want 0A000 naming %q", c.in, err, c.construct)
		}
	}
	// a subquery after ANY is tidb-native and allowed
	if _, err := parseExpr(`a = ANY (SELECT 1)`); err != nil {
		t.Errorf("ANY (subquery): %v", err)
	}
}

func TestParseExprErrors(t *testing.T) {
	cases := []struct {
		in  string
		pos int
	}{
		{"1 +", 4},
		{"a b", 3},
		{"1, 2", 2},
		{"x::", 4},
		{"1; 2", 2},
	}
	for _, c := range cases {
		_, err := parseExpr(c.in)
		var e *pgerr.Error
		if !errors.As(err, &e) || e.Code != pgerr.SyntaxError || e.Position != c.pos {
			t.Errorf("ParseExpr(%q): got %#v, want 42601 at %d", c.in, err, c.pos)
		}
	}
}
