package parse

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// stripGroupingSets rewrites a GROUP BY with ROLLUP, CUBE or GROUPING SETS
// (which TiDB lacks) into a plain GROUP BY of every key it names, and
// records the grouping sets as key indexes in cl.
func (p *Parser) stripGroupingSets(toks []Token, cl *selectClauses) ([]Token, error) {
	start, end := groupByClause(toks)
	if start < 0 || !hasGroupingConstruct(toks[start:end]) {
		return toks, nil
	}
	keys, sets, err := groupingOf(toks[start:end])
	if err != nil {
		return nil, SyntaxErrorAt(p.query, toks[start])
	}
	cl.groupingSets = sets
	out := append([]Token(nil), toks[:start]...)
	if len(keys) == 0 {
		out = out[:len(out)-2] // no key at all: drop GROUP BY itself
	}
	out = appendKeys(out, keys)
	return append(out, toks[end:]...), nil
}

// groupingOf is a GROUP BY list's distinct keys and its grouping sets as
// indexes into them.
func groupingOf(list []Token) ([][]Token, [][]int, error) {
	g := &groupingParse{index: map[string]int{}}
	sets := [][]int{{}}
	for _, el := range SplitTopLevel(list) {
		elSets, err := g.element(el)
		if err != nil {
			return nil, nil, err
		}
		sets = crossSets(sets, elSets)
	}
	return g.keys, sets, nil
}

// appendKeys appends the keys to out, separated by commas.
func appendKeys(out []Token, keys [][]Token) []Token {
	for i, k := range keys {
		if i > 0 {
			out = append(out, Token{Kind: TokPunct, Val: ",", Pos: k[0].Pos, End: k[0].Pos})
		}
		out = append(out, k...)
	}
	return out
}

// groupingSetsMarker is the GROUP BY item that carries a nested query's
// grouping sets through TiDB (nestedGroupingSets): a call with one string,
// the sets separated by "|", each set's key indexes by ",".
const groupingSetsMarker = "__grouping_sets"

// nestedGroupingSets rewrites the GROUP BY of each query nested in toks (a
// derived table, a subquery, a CTE) that has ROLLUP, CUBE or GROUPING SETS
// into its keys and a marker item; the statement's own GROUP BY was read by
// stripGroupingSets.
func (p *Parser) nestedGroupingSets(toks []Token) ([]Token, error) {
	var out []Token
	for k := 0; k < len(toks); k++ {
		if !toks[k].Is("group") || k+1 >= len(toks) || !toks[k+1].Is("by") {
			out = append(out, toks[k])
			continue
		}
		end := nestedClauseEnd(toks, k+2)
		if !hasGroupingConstruct(toks[k+2 : end]) {
			out = append(out, toks[k])
			continue
		}
		keys, sets, err := groupingOf(toks[k+2 : end])
		if err != nil {
			return nil, SyntaxErrorAt(p.query, toks[k+2])
		}
		out = appendKeys(append(out, toks[k], toks[k+1]), keys)
		at := toks[k]
		if len(keys) > 0 {
			out = append(out, Token{Kind: TokPunct, Val: ",", Pos: at.Pos, End: at.Pos})
		}
		out = append(out, Token{Kind: TokIdent, Val: groupingSetsMarker, Pos: at.Pos, End: at.End},
			Token{Kind: TokPunct, Val: "(", Pos: at.Pos, End: at.Pos},
			Token{Kind: TokString, Val: encodeSets(sets), Pos: at.Pos, End: at.Pos},
			Token{Kind: TokPunct, Val: ")", Pos: at.Pos, End: at.Pos})
		k = end - 1
	}
	return out, nil
}

// nestedClauseEnd is where the GROUP BY list starting at toks[start] ends:
// at the next clause of its query, or the parenthesis closing the query.
func nestedClauseEnd(toks []Token, start int) int {
	depth := 0
	for j := start; j < len(toks); j++ {
		switch t := toks[j]; {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			if depth == 0 {
				return j
			}
			depth--
		case depth == 0 && (t.IsPunct(";") || AnyWord("having", "order", "limit", "offset", "fetch",
			"window", "union", "intersect", "except", "for")(t)):
			return j
		}
	}
	return len(toks)
}

// encodeSets is the marker's text of sets.
func encodeSets(sets [][]int) string {
	parts := make([]string, len(sets))
	for i, set := range sets {
		keys := make([]string, len(set))
		for j, k := range set {
			keys[j] = strconv.Itoa(k)
		}
		parts[i] = strings.Join(keys, ",")
	}
	return strings.Join(parts, "|")
}

// decodeSets reads encodeSets' text.
func decodeSets(text string) ([][]int, bool) {
	var sets [][]int
	for _, part := range strings.Split(text, "|") {
		set := []int{}
		if part != "" {
			for _, k := range strings.Split(part, ",") {
				i, err := strconv.Atoi(k)
				if err != nil {
					return nil, false
				}
				set = append(set, i)
			}
		}
		sets = append(sets, set)
	}
	return sets, true
}

// groupByClause is the span of the top-level GROUP BY list, or -1.
func groupByClause(toks []Token) (int, int) {
	start, end := -1, len(toks)
	eachTopLevel(toks, func(k int) int {
		switch {
		case start < 0 && toks[k].Is("group") && k+1 < len(toks) && toks[k+1].Is("by"):
			start = k + 2
		case start >= 0 && end == len(toks) && k >= start && AnyWord("having", "order", "limit", "offset", "fetch",
			"window", "union", "intersect", "except", "for")(toks[k]):
			end = k
		}
		return 0
	})
	return start, end
}

func hasGroupingConstruct(toks []Token) bool {
	found := false
	eachTopLevel(toks, func(k int) int {
		if k+1 < len(toks) && (toks[k].Is("rollup") || toks[k].Is("cube")) && toks[k+1].IsPunct("(") ||
			k+2 < len(toks) && toks[k].Is("grouping") && toks[k+1].Is("sets") && toks[k+2].IsPunct("(") {
			found = true
		}
		return 0
	})
	// An empty grouping set "()" stands where an element starts, not
	// after a function name.
	for k := 0; k+1 < len(toks); k++ {
		if toks[k].IsPunct("(") && toks[k+1].IsPunct(")") && (k == 0 || toks[k-1].IsPunct(",")) {
			found = true
		}
	}
	return found
}

// groupingParse collects the distinct keys of a GROUP BY, by their text.
type groupingParse struct {
	keys  [][]Token
	index map[string]int
}

func (g *groupingParse) key(toks []Token) int {
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteString(t.Val)
		sb.WriteByte(' ')
	}
	k := sb.String()
	if i, ok := g.index[k]; ok {
		return i
	}
	g.index[k] = len(g.keys)
	g.keys = append(g.keys, toks)
	return len(g.keys) - 1
}

// element is one GROUP BY element's grouping sets.
func (g *groupingParse) element(el []Token) ([][]int, error) {
	switch {
	case len(el) == 0:
		return nil, errBadGrouping
	case len(el) >= 2 && (el[0].Is("rollup") || el[0].Is("cube")) && el[1].IsPunct("("):
		units, err := g.units(inner(el, 1))
		if err != nil {
			return nil, err
		}
		if el[0].Is("rollup") {
			return rollupSets(units), nil
		}
		return cubeSets(units), nil
	case len(el) >= 3 && el[0].Is("grouping") && el[1].Is("sets") && el[2].IsPunct("("):
		var out [][]int
		for _, sub := range SplitTopLevel(inner(el, 2)) {
			list, err := g.element(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, list...)
		}
		return out, nil
	}
	units, err := g.units(el)
	if err != nil || len(units) != 1 {
		return nil, errBadGrouping
	}
	return [][]int{units[0]}, nil
}

var errBadGrouping = pgerr.Errorf(pgerr.SyntaxError, "syntax error in GROUP BY")

// inner is the tokens inside the parentheses opening at el[k].
func inner(el []Token, k int) []Token {
	e := MatchParen(el, k)
	if e < 0 {
		return nil
	}
	return el[k+1 : e]
}

// units reads a comma list whose items are keys or parenthesised key
// lists ("(a, b)" is one unit; "()" an empty one).
func (g *groupingParse) units(toks []Token) ([][]int, error) {
	var out [][]int
	for _, it := range SplitTopLevel(toks) {
		if len(it) == 0 {
			return nil, errBadGrouping
		}
		if it[0].IsPunct("(") && MatchParen(it, 0) == len(it)-1 {
			var unit []int
			if len(it) > 2 {
				for _, k := range SplitTopLevel(it[1 : len(it)-1]) {
					unit = append(unit, g.key(k))
				}
			}
			out = append(out, unit)
			continue
		}
		out = append(out, []int{g.key(it)})
	}
	return out, nil
}

// rollupSets is ROLLUP (u1, ..., un): every prefix, longest first.
func rollupSets(units [][]int) [][]int {
	var out [][]int
	for n := len(units); n >= 0; n-- {
		var set []int
		for _, u := range units[:n] {
			set = append(set, u...)
		}
		out = append(out, set)
	}
	return out
}

// cubeSets is CUBE (u1, ..., un): every subset.
func cubeSets(units [][]int) [][]int {
	var out [][]int
	for mask := (1 << len(units)) - 1; mask >= 0; mask-- {
		var set []int
		for i, u := range units {
			if mask&(1<<i) != 0 {
				set = append(set, u...)
			}
		}
		out = append(out, set)
	}
	return out
}

// crossSets combines two elements' grouping sets: every union of one of each.
func crossSets(a, b [][]int) [][]int {
	var out [][]int
	for _, x := range a {
		for _, y := range b {
			set := append(append([]int(nil), x...), y...)
			out = append(out, set)
		}
	}
	return out
}
