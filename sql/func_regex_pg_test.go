package sql

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// Regular expressions: patterns assembled from ARE fragments (classes,
// brackets, bounds, groups, alternation, anchors, escapes, greedy and
// non-greedy quantifiers, invalid ones), applied to subjects with NULLs,
// empty strings, newlines and multibyte characters, through every
// operator and function form with flags and positions.

var (
	reSubjects = []string{"'abc'", "''", "'aBc abc'", "'foo123bar45'", "'ünï cødé'", "E'line1\\nline2'", "'a.b*c'",
		"'xyzzy'", "NULL", "'The Quick brown fox'", "'aaa'", "'2024-01-15'", "'a_b-c'", "'ABC'", "'   '"}
	reFragments = []string{"a", "b", "c", ".", "x", "[a-c]", "[^a]", "[[:digit:]]", "[[:alpha:]]+", "[[:upper:]]", "\\d+",
		"\\w", "\\s", "\\S+", "\\y", "^", "$", "(b|c)", "(a)(b)?", "(?:ab)", "a*", "b+?", "c?", "a{2}", "a{1,2}", "[.]",
		"\\.", "ü", "[ü-ÿ]", "Q", "q", "\\n", "(", ")", "[z-a]", "{", "a{300}", "**", "\\q", "[[:foo:]]", "o", "\\D",
		"[\\d_]", "|", "e\\y", "\\Ab", "1\\Z"}
	reFlags = []string{"''", "'g'", "'i'", "'gi'", "'n'", "'x'", "'q'", "'z'", "'c'", "NULL"}
)

func (g *exprGen) rePattern() string {
	var b strings.Builder
	for k := 1 + g.rng.Intn(3); k > 0; k-- {
		b.WriteString(reFragments[g.rng.Intn(len(reFragments))])
	}
	return literalSQL(b.String())
}

// corpusRegex is n random calls of each form.
func corpusRegex() []string {
	g := &exprGen{rng: rand.New(rand.NewSource(12))}
	forms := []func() string{
		func() string {
			return g.pick(reSubjects...) + " " + g.pick("~", "~*", "!~", "!~*") + " " + g.rePattern()
		},
		func() string {
			return "regexp_replace(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", " + g.pick("'X'", "'[\\&]'", "'<\\1>'", "''", "'\\\\'") + ")"
		},
		func() string {
			return "regexp_replace(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", 'X', " + g.pick(reFlags...) + ")"
		},
		func() string {
			return "regexp_replace(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", '-', " + g.pick("1", "2", "5", "0", "100") + ", " + g.pick("0", "1", "2", "-1") + ", " + g.pick(reFlags...) + ")"
		},
		func() string {
			return "regexp_like(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", " + g.pick(reFlags...) + ")"
		},
		func() string {
			return "regexp_count(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", " + g.pick("1", "3", "0", "20") + ", " + g.pick(reFlags...) + ")"
		},
		func() string {
			return "regexp_substr(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", " + g.pick("1", "2", "0") + ", " + g.pick("1", "2", "0") + ", " + g.pick(reFlags...) + ", " + g.pick("0", "1", "2", "-1") + ")"
		},
		func() string {
			return "(regexp_match(" + g.pick(reSubjects...) + ", " + g.rePattern() + ", " + g.pick(reFlags...) + "))[" + g.pick("1", "2", "0", "3") + "]"
		},
		func() string {
			return "translate(" + g.pick(reSubjects...) + ", " + g.pick("'abc'", "'aa'", "''", "'ü'", "NULL", "'xyz'") + ", " + g.pick("'X'", "''", "'123'", "'é'") + ")"
		},
		func() string { return "position(" + g.pick(reSubjects...) + " IN " + g.pick(reSubjects...) + ")" },
	}
	var out []string
	for _, f := range forms {
		for k := 0; k < 250; k++ {
			out = append(out, f())
		}
	}
	return out
}

// TestRegexRefusals: what RE2 cannot express is 0A000, never a wrong answer.
func TestRegexRefusals(t *testing.T) {
	for _, p := range []string{`\m`, `(?=a)`, `(?<!a)b`, `(a)\1`, `[[.a.]]`} {
		_, err := compilePGRegex(p, regexFlags{})
		if sqlCode(err) != string(pgerr.FeatureNotSupported) {
			t.Errorf("%s: %v, want 0A000", p, err)
		}
	}
}
