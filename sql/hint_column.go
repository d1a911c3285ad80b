package sql

import "fmt"

// maxFuzzyDistance is PostgreSQL's bound on how far a misspelled column
// name may be from a suggestion (parse_relation.c).
const maxFuzzyDistance = 3

// columnHint is PostgreSQL's HINT for a column that does not exist: the
// nearest column names by Levenshtein distance (the qualifier's distance
// from the relation name added), one or two of them, or none when more
// tie or none is close enough.
func columnHint(sc *Scope, table, name string) string {
	best := maxFuzzyDistance + 1
	var matches []ScopeColumn
	for _, c := range sc.Columns {
		if c.Table == "" {
			continue // a USING merge: PostgreSQL suggests its sides
		}
		penalty := 0
		if table != "" {
			if penalty = levenshtein(table, c.Table); penalty > maxFuzzyDistance {
				continue
			}
		}
		d := levenshtein(c.Name, name)
		if d > len(name)/2 {
			continue
		}
		d += penalty
		switch {
		case d < best:
			best, matches = d, []ScopeColumn{c}
		case d == best && len(matches) > 0 && len(matches) < 3 && !sameColumn(matches, c):
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 1:
		return fmt.Sprintf("Perhaps you meant to reference the column %q.", matches[0].Table+"."+matches[0].Name)
	case 2:
		return fmt.Sprintf("Perhaps you meant to reference the column %q or the column %q.",
			matches[0].Table+"."+matches[0].Name, matches[1].Table+"."+matches[1].Name)
	}
	return ""
}

func sameColumn(cs []ScopeColumn, c ScopeColumn) bool {
	for _, x := range cs {
		if x.Table == c.Table && x.Name == c.Name {
			return true
		}
	}
	return false
}

// levenshtein is the edit distance of a and b in bytes (insertions,
// deletions and substitutions cost 1), as PostgreSQL's varstr_levenshtein.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
