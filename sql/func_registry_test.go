package sql

import (
	"strings"
	"testing"
)

// TestRegistryEntries: the registry's entries fit together. An alias names
// an entry of its kind that computes calls itself; every scalar entry is
// called, computed or listed in pg_proc, and computes by rows or by
// batches, not both; aggregates and window functions carry their binding;
// signatures are written as format_type writes argument types, each once.
func TestRegistryEntries(t *testing.T) {
	for _, f := range Functions() {
		if f.Alias != "" {
			to, ok := LookupFunction(f.Alias)
			switch {
			case !ok:
				t.Errorf("%s: alias of %s, which is no entry", f.Name, f.Alias)
			case to.Kind != f.Kind || !to.Implemented() || to.Alias != "":
				t.Errorf("%s: alias of %s, which does not compute calls of its kind itself", f.Name, f.Alias)
			}
		}
		switch f.Kind {
		case ScalarFunc:
			if !f.Callable() && !f.Implemented() && len(f.Signatures) == 0 {
				t.Errorf("%s: neither called, computed nor in pg_proc", f.Name)
			}
			if f.row != nil && f.batch != nil {
				t.Errorf("%s: computes both by rows and by batches", f.Name)
			}
		case AggregateFunc:
			if f.Alias == "" && f.agg == nil {
				t.Errorf("%s: an aggregate without its binding", f.Name)
			}
		case WindowFunc:
			if f.win == nil {
				t.Errorf("%s: a window function without its binding", f.Name)
			}
		}
		if f.Windowed && f.Kind != AggregateFunc {
			t.Errorf("%s: windowed, but no aggregate", f.Name)
		}
		seen := map[string]bool{}
		for _, s := range f.Signatures {
			if seen[s] {
				t.Errorf("%s(%s) listed twice", f.Name, s)
			}
			seen[s] = true
			if strings.Contains(s, ", ") || strings.TrimSpace(s) != s {
				t.Errorf("%s(%s): argument types are written type,type", f.Name, s)
			}
		}
	}
}

// TestRegistryFoldsByEntry: the folder reads volatility and strictness
// from the registry: a strict function over a NULL constant is NULL, one
// that is not strict sees the NULL; an immutable call over constants is
// folded, a stable or volatile one is not.
func TestRegistryFoldsByEntry(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"upper(NULL)", "NULL"},
		{"upper('a')", "'A'"},
		{"concat_ws(',', 'a', NULL)", "'a'"},
		{"quote_nullable(NULL)", "'NULL'"},
		{"num_nulls(NULL::int, 1)", "1"},
		{"to_char(1, NULL)", "NULL"},
		{"to_char(1, '9')", "to_char(1, '9')"},
		{"pg_typeof(1)", "pg_typeof(1)"},
		{"random() < 2", "random() < 2"},
		{"version() IS NULL", "version() IS NULL"},
	} {
		n, err := parseExpr(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		e, err := bindAST(n, &Scope{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := e.String(); got != c.want {
			t.Errorf("%s bound as %s, want %s", c.expr, got, c.want)
		}
	}
}
