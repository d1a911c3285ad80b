package sql

import "testing"

// The messages of calls and operators that no candidate fits, or that
// several fit, compared with PostgreSQL word for word (the other corpora
// count message differences without failing): argument types with typmods
// (named without them), untyped literals that binding had already given a
// type (named unknown), the SQL syntax that stands for a function (named
// with its schema), and the other messages that name types the same way.

var (
	// sigTyped are values whose types carry a typmod or print differently
	// with one.
	sigTyped = []string{"'x'::varchar(5)", "'x'::char(3)", "'x'::bpchar", "1::numeric(5,2)",
		"array['x'::varchar(3)]", "array[1::numeric(4,1)]", "true"}
	// sigArgs are second arguments of every kind, typed or not.
	sigArgs = []string{"1.5", "9000000000", "'y'::varchar(2)", "1::numeric(3,1)", "'z'", "NULL"}
)

// corpusSignatures are calls and operators of the functions that bind
// argument by argument. Operators get typed operands only: with an untyped
// one magmalake reads the literal as the other side's type first.
func corpusSignatures() []string {
	var out []string
	for _, f := range []string{"sha224", "lower", "length", "abs", "to_hex", "md5"} {
		out = append(out, cross(f, append([]string{"'\\x01'::bytea"}, sigTyped...))...)
	}
	firsts := append([]string{"'abc'", "NULL"}, sigTyped...)
	for _, f := range []string{"substr", "left", "repeat", "lpad", "date_trunc", "date_part", "round"} {
		out = append(out, cross(f, firsts, sigArgs)...)
	}
	for _, op := range []string{"+", "<", "~~", "~", "->"} {
		for _, l := range sigTyped {
			for _, r := range sigArgs[:4] {
				out = append(out, l+" "+op+" "+r)
			}
		}
	}
	for _, x := range append([]string{"'x'"}, sigTyped...) {
		out = append(out, "- "+x, "NOT "+x, x+" AND true", "extract(year from "+x+")", "trim("+x+")",
			"'\\x01'::bytea::"+typeOfLiteral(x), "coalesce("+x+", 1::numeric(5,2))",
			"CASE WHEN "+x+" THEN 1 END", "date '2024-01-01' + "+x)
	}
	return out
}

// typeOfLiteral is the type name a sigTyped value is cast to, or text.
func typeOfLiteral(x string) string {
	for i := len(x) - 1; i > 0; i-- {
		if x[i] == ':' && x[i-1] == ':' {
			return x[i+1:]
		}
	}
	return "text"
}

// checkMessages compares exprs with PostgreSQL, messages included.
func checkMessages(t *testing.T, want []string, exprs []string) {
	t.Helper()
	bad := 0
	for i, x := range exprs {
		if got := corpusOurs(x); got != want[i] {
			if bad++; bad <= 40 || *corpusAll {
				t.Errorf("SELECT %s\n  ours        %s\n  PostgreSQL  %s", x, got, want[i])
			}
		}
	}
	t.Logf("%d expressions compared: %d differ", len(exprs), bad)
}
