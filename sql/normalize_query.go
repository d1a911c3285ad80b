package sql

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// AliasColumnSep separates a derived table's alias from its column names in
// the alias tidb sees: FROM (SELECT ...) AS s(a, b) reaches the query engine
// as the alias "s\x1fa\x1fb" (tidb has no column alias lists; no identifier
// PostgreSQL accepts holds this byte).
const AliasColumnSep = "\x1f"

// FullJoinWord is the join word FULL [OUTER] JOIN reaches tidb as: tidb has
// no full joins, and STRAIGHT_JOIN (MySQL's, never PostgreSQL's) parses with
// an ON clause into a Join the query engine tells apart by StraightJoin.
const FullJoinWord = "straight_join"

// NaturalMarker is the ON condition a NATURAL FULL JOIN reaches tidb with.
const NaturalMarker = "__natural"

// queryPrepass rewrites, token by token, the query forms of PostgreSQL that
// tidb's grammar lacks: VALUES lists as queries, FULL JOIN, and column
// alias lists of derived tables.
func queryPrepass(in []token) []token {
	return nestedNulls(aggregateFilters(aggregateOrders(derivedColumnAliases(fullJoins(valuesQueries(in))))))
}

// valuesQueries turns VALUES (a, b), (c, d) standing as a query into
// SELECT a AS column1, b AS column2 UNION ALL SELECT c, d: the same rows,
// names and column types (PostgreSQL resolves a VALUES list's column types
// as UNION does). INSERT's VALUES is left alone.
func valuesQueries(in []token) []token {
	out := make([]token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if !t.is("values") || !queryStartsAt(in, k) {
			out = append(out, t)
			continue
		}
		rows, end := valuesRows(in, k+1)
		if rows == nil {
			out = append(out, t)
			continue
		}
		out = append(out, valuesSelect(t, rows)...)
		k = end - 1
	}
	return out
}

// queryStartsAt reports whether in[k] begins a query: at the start, after
// an opening parenthesis, or after a set operation.
func queryStartsAt(in []token, k int) bool {
	if k == 0 {
		// A statement's own VALUES is rewritten by TopLevelQuery: at
		// the start of a slice it may be INSERT's.
		return false
	}
	prev := in[k-1]
	return prev.isPunct("(") || prev.is("union") || prev.is("intersect") || prev.is("except") || prev.is("all") || prev.is("distinct")
}

// valuesRows splits the parenthesised rows from in[k]; end is the index
// after the last row. rows is nil when in[k] does not start a row.
func valuesRows(in []token, k int) (rows [][]token, end int) {
	for {
		if k >= len(in) || !in[k].isPunct("(") {
			return nil, k
		}
		e := matchParenTok(in, k)
		if e < 0 {
			return nil, k
		}
		rows = append(rows, in[k+1:e])
		k = e + 1
		if k >= len(in) || !in[k].isPunct(",") {
			return rows, k
		}
		k++
	}
}

func valuesSelect(at token, rows [][]token) []token {
	word := func(w string) token { return token{kind: tkIdent, val: w, pos: at.pos, end: at.end} }
	punct := func(p string) token { return token{kind: tkPunct, val: p, pos: at.pos, end: at.end} }
	var out []token
	for r, row := range rows {
		if r > 0 {
			out = append(out, word("union"), word("all"))
		}
		out = append(out, word("select"))
		for c, item := range splitTopLevel(row) {
			if c > 0 {
				out = append(out, punct(","))
			}
			out = append(out, item...)
			if r == 0 {
				out = append(out, word("as"), token{kind: tkQIdent, val: "column" + strconv.Itoa(c+1), pos: at.pos, end: at.end})
			}
		}
	}
	return out
}

// splitTopLevel splits tokens at the commas outside parentheses.
func splitTopLevel(toks []token) [][]token {
	var out [][]token
	depth, start := 0, 0
	for k, t := range toks {
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case depth == 0 && t.isPunct(","):
			out = append(out, toks[start:k])
			start = k + 1
		}
	}
	return append(out, toks[start:])
}

// fullJoins rewrites FULL [OUTER] JOIN as FullJoinWord.
func fullJoins(in []token) []token {
	out := make([]token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if t.is(FullJoinWord) {
			// The user's own word is a name to PostgreSQL, never a join.
			t.kind = tkQIdent
		}
		if t.is("full") {
			j := k + 1
			if j < len(in) && in[j].is("outer") {
				j++
			}
			if j < len(in) && in[j].is("join") {
				natural := len(out) > 0 && out[len(out)-1].is("natural")
				if natural {
					out = out[:len(out)-1]
				}
				out = append(out, token{kind: tkIdent, val: FullJoinWord, pos: t.pos, end: in[j].end})
				k = j
				if natural {
					// tidb has no NATURAL with STRAIGHT_JOIN: the right item
					// gets ON __natural(), which the engine reads as NATURAL.
					e := fromItemEnd(in, j+1)
					out = append(out, in[j+1:e]...)
					out = append(out, token{kind: tkIdent, val: "on", pos: t.pos, end: t.end},
						token{kind: tkIdent, val: NaturalMarker, pos: t.pos, end: t.end},
						token{kind: tkPunct, val: "(", pos: t.pos, end: t.end}, token{kind: tkPunct, val: ")", pos: t.pos, end: t.end})
					k = e - 1
				}
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// derivedColumnAliases folds (subquery) [AS] s(a, b), and t [AS] s(a, b)
// of a table, into the alias "s" AliasColumnSep "a" AliasColumnSep "b".
func derivedColumnAliases(in []token) []token {
	out := make([]token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		out = append(out, t)
		if !t.isPunct(")") || !closesSubquery(out) {
			if !endsTableName(in, k) {
				continue
			}
		}
		j := k + 1
		if j < len(in) && in[j].is("as") {
			j++
		}
		if j+1 >= len(in) || !isName(in[j]) || !in[j+1].isPunct("(") {
			continue
		}
		e := matchParenTok(in, j+1)
		if e < 0 {
			continue
		}
		names := []string{in[j].val}
		ok := true
		for _, item := range splitTopLevel(in[j+2 : e]) {
			if len(item) != 1 || !isName(item[0]) {
				ok = false
				break
			}
			names = append(names, item[0].val)
		}
		if !ok {
			continue
		}
		out = append(out, token{kind: tkIdent, val: "as", pos: in[j].pos, end: in[j].end},
			token{kind: tkQIdent, val: strings.Join(names, AliasColumnSep), pos: in[j].pos, end: in[e].end})
		k = e
	}
	return out
}

// endsTableName reports whether in[k] ends a table name in FROM (FROM,
// JOIN or a comma, then name or schema.name): t AS x(a, b) names the
// table's columns too, as a derived table's alias does.
func endsTableName(in []token, k int) bool {
	if !isName(in[k]) {
		return false
	}
	j := k - 1
	if j >= 1 && in[j].isPunct(".") && isName(in[j-1]) {
		j -= 2
	}
	return j >= 0 && (in[j].is("from") || in[j].is("join") || in[j].isPunct(","))
}

// closesSubquery reports whether the ")" ending out closes a parenthesised query.
func closesSubquery(out []token) bool {
	depth := 0
	for k := len(out) - 1; k >= 0; k-- {
		switch {
		case out[k].isPunct(")"):
			depth++
		case out[k].isPunct("("):
			depth--
			if depth == 0 {
				return k+1 < len(out) && (out[k+1].is("select") || out[k+1].is("with") || out[k+1].isPunct("("))
			}
		}
	}
	return false
}

// isName reports a token that can be an alias: a quoted identifier, or a
// word PostgreSQL does not reserve (WITH x AS (...) SELECT (a) is no alias).
func isName(t token) bool {
	return (t.kind == tkIdent && !fromClauseEnd[t.val] && !pgReserved[t.val]) || t.kind == tkQIdent
}

// topLevelQuery rewrites a statement that is a VALUES list or TABLE name
// into the SELECT it stands for.
func topLevelQuery(in []token) []token {
	if len(in) == 0 {
		return in
	}
	t := in[0]
	switch {
	case t.is("values"):
		if rows, end := valuesRows(in, 1); rows != nil {
			return append(valuesSelect(t, rows), in[end:]...)
		}
	case t.is("table") && len(in) > 1 && isName(in[1]):
		word := func(w string) token { return token{kind: tkIdent, val: w, pos: t.pos, end: t.end} }
		out := []token{word("select"), {kind: tkOp, val: "*", pos: t.pos, end: t.end}, word("from")}
		return append(out, in[1:]...)
	}
	return in
}

// aggregateOrders rewrites agg(args ORDER BY k1 [ASC|DESC] [NULLS FIRST|LAST],
// ...) into agg(args, __agg_order(k1, 'desc', 'first', ...)): tidb has no
// ORDER BY inside a call; the binder reads the keys back (AggOrder).
func aggregateOrders(in []token) []token {
	out := make([]token, 0, len(in))
	var opens []int // indices in out of the open parentheses
	for k := 0; k < len(in); k++ {
		t := in[k]
		switch {
		case t.isPunct("("):
			opens = append(opens, len(out))
			if k+1 < len(in) && in[k+1].is("distinct") && len(out) > 0 && plainCallName(out[len(out)-1]) {
				// tidb takes DISTINCT only in its own aggregates' calls.
				out[len(out)-1].val = distinctPrefix + out[len(out)-1].val
				out = append(out, t)
				k++
				continue
			}
		case t.isPunct(")") && len(opens) > 0:
			opens = opens[:len(opens)-1]
		case t.is("order") && k+1 < len(in) && in[k+1].is("by") && len(opens) > 0 && callParen(out, opens[len(opens)-1]):
			if e := matchCloseTok(in, k); e > 0 {
				out = plainAggregateCall(out, opens[len(opens)-1])
				out = append(out, token{kind: tkPunct, val: ",", pos: t.pos, end: t.end})
				out = append(out, aggOrderCall(in[k+2:e], t)...)
				k = e - 1
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// callParen reports whether out[open] opens a function's argument list
// (not a subquery, a window's OVER or WITHIN GROUP).
func callParen(out []token, open int) bool {
	if open == 0 || open+1 >= len(out) {
		return false
	}
	name := out[open-1]
	if name.kind != tkIdent && name.kind != tkQIdent || name.is("over") || name.is("group") || name.is("as") ||
		name.is("in") || name.is("exists") || name.is("any") || name.is("all") || name.is("some") {
		return false
	}
	first := out[open+1]
	return !first.is("select") && !first.is("with") && !first.is("values")
}

// matchCloseTok is the index of the ")" closing the parenthesis open at in[k].
func matchCloseTok(in []token, k int) int {
	depth := 0
	for j := k; j < len(in); j++ {
		switch {
		case in[j].isPunct("(") || in[j].isPunct("["):
			depth++
		case in[j].isPunct(")") || in[j].isPunct("]"):
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// aggOrderCall is __agg_order(key, 'asc'|'desc', 'first'|'last'|”, ...).
func aggOrderCall(keys []token, at token) []token {
	punct := func(v string) token { return token{kind: tkPunct, val: v, pos: at.pos, end: at.end} }
	str := func(v string) token { return token{kind: tkString, val: v, pos: at.pos, end: at.end} }
	out := []token{{kind: tkIdent, val: "__agg_order", pos: at.pos, end: at.end}, punct("(")}
	for i, key := range splitTopLevel(keys) {
		dir, nulls := "asc", ""
		if n := len(key); n >= 2 && key[n-2].is("nulls") && (key[n-1].is("first") || key[n-1].is("last")) {
			nulls, key = key[n-1].val, key[:n-2]
		}
		if n := len(key); n >= 1 && (key[n-1].is("asc") || key[n-1].is("desc")) {
			dir, key = key[n-1].val, key[:n-1]
		}
		if i > 0 {
			out = append(out, punct(","))
		}
		out = append(out, key...)
		out = append(out, punct(","), str(dir), punct(","), str(nulls))
	}
	return append(out, punct(")"))
}

// aggregateFilters rewrites agg(args) FILTER (WHERE cond) into
// agg(args, __agg_filter(cond)): tidb has no FILTER; the binder reads the
// condition back (AggCall.Filter), and the rows it rejects never reach the
// aggregate (array_agg keeps NULL inputs, so the condition cannot become a
// NULL argument). An aggregate used as a window function keeps the older
// form agg(CASE WHEN cond THEN arg END): every aggregate the window
// evaluator has ignores NULL inputs, so that is exact there.
func aggregateFilters(in []token) []token {
	out := make([]token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if !t.is("filter") || k+2 >= len(in) || !in[k+1].isPunct("(") || !in[k+2].is("where") ||
			len(out) == 0 || !out[len(out)-1].isPunct(")") {
			out = append(out, t)
			continue
		}
		e := matchParenTok(in, k+1)
		open := matchOpenTok(out, len(out)-1)
		if e < 0 || open < 1 {
			out = append(out, t)
			continue
		}
		if e+1 < len(in) && in[e+1].is("over") {
			out = append(out[:open+1], filteredArgs(out[open+1:len(out)-1], in[k+3:e], t)...)
		} else {
			out = plainAggregateCall(out, open)
			open = matchOpenTok(out, len(out)-1)
			if n := len(out); open == n-3 && out[n-2].val == "*" && out[open-1].val == "count" {
				// count(*) FILTER counts the rows the condition keeps.
				out[n-2] = token{kind: tkNumber, val: "1", pos: out[n-2].pos, end: out[n-2].end}
			}
			out = append(out[:len(out)-1], aggFilterCall(in[k+3:e], t)...)
		}
		out = append(out, token{kind: tkPunct, val: ")", pos: t.pos, end: t.end})
		k = e
	}
	return out
}

// aggFilterCall is ", __agg_filter(cond)", the argument carrying FILTER.
func aggFilterCall(cond []token, at token) []token {
	punct := func(v string) token { return token{kind: tkPunct, val: v, pos: at.pos, end: at.end} }
	out := []token{punct(","), {kind: tkIdent, val: "__agg_filter", pos: at.pos, end: at.end}, punct("(")}
	out = append(out, cond...)
	return append(out, punct(")"))
}

// plainCallName reports an aggregate's name that tidb parses as a plain
// call's: one it does not parse itself, or one of its own quoted.
func plainCallName(name token) bool {
	return plainAggregate(name.val) || name.kind == tkQIdent && tidbAggregate(name.val)
}

// plainAggregateCall makes the tidb aggregate whose argument list opens at
// out[open] a plain call: its name quoted (a quoted name is never tidb's
// keyword), or, over DISTINCT, renamed with distinctPrefix as the
// aggregates tidb parses as calls are.
func plainAggregateCall(out []token, open int) []token {
	name := out[open-1]
	if !tidbAggregate(name.val) || name.kind != tkIdent && name.kind != tkQIdent {
		return out
	}
	out[open-1].kind = tkQIdent
	if open+1 < len(out) && out[open+1].is("distinct") {
		out[open-1].val = distinctPrefix + name.val
		out = append(out[:open+1], out[open+2:]...)
	}
	return out
}

// matchOpenTok is the index of the "(" that the ")" at out[j] closes.
func matchOpenTok(out []token, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch {
		case out[k].isPunct(")"):
			depth++
		case out[k].isPunct("("):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// filteredArgs wraps an aggregate's first argument in CASE WHEN cond.
func filteredArgs(args, cond []token, at token) []token {
	word := func(w string) token { return token{kind: tkIdent, val: w, pos: at.pos, end: at.end} }
	items := splitTopLevel(args)
	first := items[0]
	var distinct []token
	if len(first) > 0 && (first[0].is("distinct") || first[0].is("all")) {
		distinct, first = first[:1], first[1:]
	}
	if len(first) == 1 && first[0].val == "*" {
		first = []token{{kind: tkNumber, val: "1", pos: at.pos, end: at.end}}
	}
	wrapped := append(append([]token{}, distinct...), word("case"), word("when"), token{kind: tkPunct, val: "(", pos: at.pos, end: at.end})
	wrapped = append(wrapped, cond...)
	wrapped = append(wrapped, token{kind: tkPunct, val: ")", pos: at.pos, end: at.end}, word("then"))
	wrapped = append(wrapped, first...)
	wrapped = append(wrapped, word("end"))
	for _, it := range items[1:] {
		wrapped = append(wrapped, token{kind: tkPunct, val: ",", pos: at.pos, end: at.end})
		wrapped = append(wrapped, it...)
	}
	return wrapped
}

// nestedNulls rewrites "key [ASC|DESC] NULLS FIRST|LAST" in ORDER BY lists
// below the statement's own (windows, subqueries, WITH queries; the front
// end strips the top level's itself) into "__nulls_first(key) [ASC|DESC]"
// or __nulls_last: tidb has no NULLS; the query's builder unwraps the
// marker (see OrderKey), so an ordinal or an output name stays one.
func nestedNulls(in []token) []token {
	out := append([]token(nil), in...)
	for k := 0; k < len(out); k++ {
		if !out[k].is("nulls") || k+1 >= len(out) || !(out[k+1].is("first") || out[k+1].is("last")) {
			continue
		}
		keyEnd := k
		if keyEnd > 0 && (out[keyEnd-1].is("asc") || out[keyEnd-1].is("desc")) {
			keyEnd--
		}
		start := sortKeyStart(out, keyEnd)
		if start < 0 || start >= keyEnd {
			continue
		}
		at := out[k]
		marker := "__nulls_last"
		if out[k+1].is("first") {
			marker = "__nulls_first"
		}
		repl := []token{{kind: tkIdent, val: marker, pos: at.pos, end: at.end}, {kind: tkPunct, val: "(", pos: at.pos, end: at.end}}
		repl = append(repl, out[start:keyEnd]...)
		repl = append(repl, token{kind: tkPunct, val: ")", pos: at.pos, end: at.end})
		repl = append(repl, out[keyEnd:k]...) // ASC or DESC
		rest := append([]token(nil), out[k+2:]...)
		out = append(append(out[:start], repl...), rest...)
		k = start + len(repl) - 1
	}
	return out
}

// orderKey unwraps a nested ORDER BY key's NULLS FIRST|LAST marker:
// nullsFirst is nil when the key has none.
func orderKey(n parse.Expr) (key parse.Expr, nullsFirst *bool) {
	call, ok := n.(*parse.FuncCall)
	if !ok || len(call.Args) != 1 || (call.Name != "__nulls_first" && call.Name != "__nulls_last") {
		return n, nil
	}
	first := call.Name == "__nulls_first"
	return call.Args[0], &first
}

// sortKeyStart is where the sort key ending before out[end] begins: after
// the "," or "BY" that precedes it at its own parenthesis level.
func sortKeyStart(out []token, end int) int {
	depth := 0
	for k := end - 1; k >= 0; k-- {
		switch {
		case out[k].isPunct(")"):
			depth++
		case out[k].isPunct("("):
			if depth == 0 {
				return -1
			}
			depth--
		case depth == 0 && (out[k].isPunct(",") || out[k].is("by")):
			return k + 1
		}
	}
	return -1
}

// fromItemEnd is the index after the FROM item starting at in[k]: a
// (qualified) name or a parenthesised query, then an optional alias.
func fromItemEnd(in []token, k int) int {
	switch {
	case k >= len(in):
		return k
	case in[k].isPunct("("):
		if e := matchParenTok(in, k); e > 0 {
			k = e + 1
		}
	default:
		k++
		for k+1 < len(in) && in[k].isPunct(".") && isName(in[k+1]) {
			k += 2
		}
	}
	if k < len(in) && in[k].is("as") {
		k++
	}
	if k < len(in) && isName(in[k]) {
		k++
	}
	return k
}
