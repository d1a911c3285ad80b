package parse

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// splitByLexer is Split without the plain-statement shortcut.
func splitByLexer(query string) ([]string, error) {
	spans, err := SplitTokens(query, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range spans {
		out = append(out, s.text(query))
	}
	return out, nil
}

// The shortcut must agree with the lexer on every query, including those
// it hands over (quotes, comments, inner semicolons, odd bytes).
func TestSplitPlainAgreesWithLexer(t *testing.T) {
	fixed := []string{
		"SELECT 1;", "SELECT 1", "  SELECT 1 ;; ; ", "select a.b, c::int FROM t WHERE x>=1", ";",
		" ", "", "SELECT 1; SELECT 2", "SELECT '1;'", "SELECT 1 -- c;", "SELECT 1 /* ; */", "SELECT $1",
		"SELECT 1\v", "SELECT é", "SELECT 1\n\t;\r\n",
	}
	alphabet := []string{"SELECT", " ", "1", "a", "_", ".", ":", "::", ";", "(", ")", ",", "*", "+", "=", "<", ">",
		"'", "\"", "-", "--", "/", "/*", "*/", "$", "$$", "\t", "\n", "e", "E'", "é", "\x00", "?", "`"}
	rng := rand.New(rand.NewPCG(1, 2))
	queries := slices.Clone(fixed)
	for range 20000 {
		q := ""
		for range rng.IntN(12) {
			q += alphabet[rng.IntN(len(alphabet))]
		}
		queries = append(queries, q)
	}
	plain := 0
	for _, q := range queries {
		if _, ok := plainStatement(q); ok {
			plain++
		}
		got, gerr := Split(q)
		want, werr := splitByLexer(q)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("%q: error %v, lexer says %v", q, gerr, werr)
		}
		if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
			t.Fatalf("%q: %q, lexer says %q", q, got, want)
		}
	}
	if plain < 100 {
		t.Fatalf("only %d of %d queries took the shortcut: the test does not exercise it", plain, len(queries))
	}
}
