package sql

import (
	"math/rand"
	"testing"
)

// TestLikeSegmentsAgreeWithWalk: a pattern of literals and %s matched by
// substring search answers as the wildcard walk does, on random patterns
// and texts over a small alphabet (non-ASCII included), so overlaps and
// repeats are common.
func TestLikeSegmentsAgreeWithWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	alpha := []rune("ab%ü")
	gen := func(n int, pct bool) string {
		var r []rune
		for range rng.Intn(n) {
			c := alpha[rng.Intn(len(alpha))]
			if c == '%' && !pct {
				c = 'a'
			}
			r = append(r, c)
		}
		return string(r)
	}
	fast := 0
	for n := 0; n < 200000; n++ {
		pat, text := gen(7, true), gen(9, false)
		p, err := compileLike(pat, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if p.segs == nil {
			t.Fatalf("%q: no segments", pat)
		}
		fast++
		got, _ := p.match(text, false)
		p.segs = nil
		want, _ := p.match(text, false)
		if got != want {
			t.Fatalf("%q LIKE %q: segments %v, walk %v", text, pat, got, want)
		}
	}
	for _, pat := range []string{"a_b", `a\%`, "%_%"} {
		if p, _ := compileLike(pat, `\`, false); p.segs != nil && pat != `a\%` {
			t.Fatalf("%q: segments for a pattern with _", pat)
		}
	}
}
