package parse

import (
	"strconv"
	"strings"
)

// AliasColumnSep separates a derived table's alias from its column names in
// the alias tidb sees: FROM (SELECT ...) AS s(a, b) reaches the query engine
// as the alias "s\x1fa\x1fb" (tidb has no column alias lists; no identifier
// PostgreSQL accepts holds this byte).
const AliasColumnSep = "\x1f"

// fullJoinWord is the join word FULL [OUTER] JOIN reaches tidb as: tidb has
// no full joins, and STRAIGHT_JOIN (MySQL's, never PostgreSQL's) parses with
// an ON clause into a Join the query engine tells apart by StraightJoin.
const fullJoinWord = "straight_join"

// naturalMarker is the ON condition a NATURAL FULL JOIN reaches tidb with.
const naturalMarker = "__natural"

// queryPrepass rewrites, token by token, the query forms of PostgreSQL that
// tidb's grammar lacks: VALUES lists as queries, FULL JOIN, and column
// alias lists of derived tables.
func queryPrepass(in []Token, names Names) []Token {
	return nestedNulls(aggregateFilters(aggregateOrders(derivedColumnAliases(fullJoins(valuesQueries(in))), names), names))
}

// valuesQueries turns VALUES (a, b), (c, d) standing as a query into
// SELECT a AS column1, b AS column2 UNION ALL SELECT c, d: the same rows,
// names and column types (PostgreSQL resolves a VALUES list's column types
// as UNION does). INSERT's VALUES is left alone.
func valuesQueries(in []Token) []Token {
	out := make([]Token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if !t.Is("values") || !queryStartsAt(in, k) {
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
func queryStartsAt(in []Token, k int) bool {
	if k == 0 {
		// A statement's own VALUES is rewritten by TopLevelQuery: at
		// the start of a slice it may be INSERT's.
		return false
	}
	prev := in[k-1]
	return prev.IsPunct("(") || prev.Is("union") || prev.Is("intersect") || prev.Is("except") || prev.Is("all") || prev.Is("distinct")
}

// valuesRows splits the parenthesised rows from in[k]; end is the index
// after the last row. rows is nil when in[k] does not start a row.
func valuesRows(in []Token, k int) (rows [][]Token, end int) {
	for {
		if k >= len(in) || !in[k].IsPunct("(") {
			return nil, k
		}
		e := MatchParen(in, k)
		if e < 0 {
			return nil, k
		}
		rows = append(rows, in[k+1:e])
		k = e + 1
		if k >= len(in) || !in[k].IsPunct(",") {
			return rows, k
		}
		k++
	}
}

func valuesSelect(at Token, rows [][]Token) []Token {
	word := func(w string) Token { return Token{Kind: TokIdent, Val: w, Pos: at.Pos, End: at.End} }
	punct := func(p string) Token { return Token{Kind: TokPunct, Val: p, Pos: at.Pos, End: at.End} }
	var out []Token
	for r, row := range rows {
		if r > 0 {
			out = append(out, word("union"), word("all"))
		}
		out = append(out, word("select"))
		for c, item := range SplitTopLevel(row) {
			if c > 0 {
				out = append(out, punct(","))
			}
			out = append(out, item...)
			if r == 0 {
				out = append(out, word("as"), Token{Kind: TokQIdent, Val: "column" + strconv.Itoa(c+1), Pos: at.Pos, End: at.End})
			}
		}
	}
	return out
}

// SplitTopLevel splits tokens at the commas outside parentheses.
func SplitTopLevel(toks []Token) [][]Token {
	var out [][]Token
	depth, start := 0, 0
	for k, t := range toks {
		switch {
		case t.IsPunct("(") || t.IsPunct("["):
			depth++
		case t.IsPunct(")") || t.IsPunct("]"):
			depth--
		case depth == 0 && t.IsPunct(","):
			out = append(out, toks[start:k])
			start = k + 1
		}
	}
	return append(out, toks[start:])
}

// fullJoins rewrites FULL [OUTER] JOIN as fullJoinWord.
func fullJoins(in []Token) []Token {
	out := make([]Token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if t.Is(fullJoinWord) {
			// The user's own word is a name to PostgreSQL, never a join.
			t.Kind = TokQIdent
		}
		if t.Is("full") {
			j := k + 1
			if j < len(in) && in[j].Is("outer") {
				j++
			}
			if j < len(in) && in[j].Is("join") {
				natural := len(out) > 0 && out[len(out)-1].Is("natural")
				if natural {
					out = out[:len(out)-1]
				}
				out = append(out, Token{Kind: TokIdent, Val: fullJoinWord, Pos: t.Pos, End: in[j].End})
				k = j
				if natural {
					// tidb has no NATURAL with STRAIGHT_JOIN: the right item
					// gets ON __natural(), which the engine reads as NATURAL.
					e := fromItemEnd(in, j+1)
					out = append(out, in[j+1:e]...)
					out = append(out, Token{Kind: TokIdent, Val: "on", Pos: t.Pos, End: t.End},
						Token{Kind: TokIdent, Val: naturalMarker, Pos: t.Pos, End: t.End},
						Token{Kind: TokPunct, Val: "(", Pos: t.Pos, End: t.End}, Token{Kind: TokPunct, Val: ")", Pos: t.Pos, End: t.End})
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
func derivedColumnAliases(in []Token) []Token {
	out := make([]Token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		out = append(out, t)
		if !t.IsPunct(")") || !closesSubquery(out) {
			if !endsTableName(in, k) {
				continue
			}
		}
		j := k + 1
		if j < len(in) && in[j].Is("as") {
			j++
		}
		if j+1 >= len(in) || !isName(in[j]) || !in[j+1].IsPunct("(") {
			continue
		}
		e := MatchParen(in, j+1)
		if e < 0 {
			continue
		}
		names := []string{in[j].Val}
		ok := true
		for _, item := range SplitTopLevel(in[j+2 : e]) {
			if len(item) != 1 || !isName(item[0]) {
				ok = false
				break
			}
			names = append(names, item[0].Val)
		}
		if !ok {
			continue
		}
		out = append(out, Token{Kind: TokIdent, Val: "as", Pos: in[j].Pos, End: in[j].End},
			Token{Kind: TokQIdent, Val: strings.Join(names, AliasColumnSep), Pos: in[j].Pos, End: in[e].End})
		k = e
	}
	return out
}

// endsTableName reports whether in[k] ends a table name in FROM (FROM,
// JOIN or a comma, then name or schema.name): t AS x(a, b) names the
// table's columns too, as a derived table's alias does.
func endsTableName(in []Token, k int) bool {
	if !isName(in[k]) {
		return false
	}
	j := k - 1
	if j >= 1 && in[j].IsPunct(".") && isName(in[j-1]) {
		j -= 2
	}
	return j >= 0 && (in[j].Is("from") || in[j].Is("join") || in[j].IsPunct(","))
}

// closesSubquery reports whether the ")" ending out closes a parenthesised query.
func closesSubquery(out []Token) bool {
	depth := 0
	for k := len(out) - 1; k >= 0; k-- {
		switch {
		case out[k].IsPunct(")"):
			depth++
		case out[k].IsPunct("("):
			depth--
			if depth == 0 {
				return k+1 < len(out) && (out[k+1].Is("select") || out[k+1].Is("with") || out[k+1].IsPunct("("))
			}
		}
	}
	return false
}

// isName reports a token that can be an alias: a quoted identifier, or a
// word PostgreSQL does not reserve (WITH x AS (...) SELECT (a) is no alias).
func isName(t Token) bool {
	return (t.Kind == TokIdent && !fromClauseEnd[t.Val] && !IsReserved(t.Val)) || t.Kind == TokQIdent
}

// TopLevelQuery rewrites a statement that is a VALUES list or TABLE name
// into the SELECT it stands for.
func TopLevelQuery(in []Token) []Token {
	if len(in) == 0 {
		return in
	}
	t := in[0]
	switch {
	case t.Is("values"):
		if rows, end := valuesRows(in, 1); rows != nil {
			return append(valuesSelect(t, rows), in[end:]...)
		}
	case t.Is("table") && len(in) > 1 && isName(in[1]):
		word := func(w string) Token { return Token{Kind: TokIdent, Val: w, Pos: t.Pos, End: t.End} }
		out := []Token{word("select"), {Kind: TokOp, Val: "*", Pos: t.Pos, End: t.End}, word("from")}
		return append(out, in[1:]...)
	}
	return in
}

// aggregateOrders rewrites agg(args ORDER BY k1 [ASC|DESC] [NULLS FIRST|LAST],
// ...) into agg(args, __agg_order(k1, 'desc', 'first', ...)): tidb has no
// ORDER BY inside a call; the binder reads the keys back (AggOrder).
func aggregateOrders(in []Token, names Names) []Token {
	out := make([]Token, 0, len(in))
	var opens []int // indices in out of the open parentheses
	for k := 0; k < len(in); k++ {
		t := in[k]
		switch {
		case t.IsPunct("("):
			opens = append(opens, len(out))
			if k+1 < len(in) && in[k+1].Is("distinct") && len(out) > 0 && plainCallName(out[len(out)-1], names) {
				// tidb takes DISTINCT only in its own aggregates' calls.
				out[len(out)-1].Val = DistinctPrefix + out[len(out)-1].Val
				out = append(out, t)
				k++
				continue
			}
		case t.IsPunct(")") && len(opens) > 0:
			opens = opens[:len(opens)-1]
		case t.Is("order") && k+1 < len(in) && in[k+1].Is("by") && len(opens) > 0 && callParen(out, opens[len(opens)-1]):
			if e := matchCloseTok(in, k); e > 0 {
				out = plainAggregateCall(out, opens[len(opens)-1], names)
				out = append(out, Token{Kind: TokPunct, Val: ",", Pos: t.Pos, End: t.End})
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
func callParen(out []Token, open int) bool {
	if open == 0 || open+1 >= len(out) {
		return false
	}
	name := out[open-1]
	if name.Kind != TokIdent && name.Kind != TokQIdent || name.Is("over") || name.Is("group") || name.Is("as") ||
		name.Is("in") || name.Is("exists") || name.Is("any") || name.Is("all") || name.Is("some") {
		return false
	}
	first := out[open+1]
	return !first.Is("select") && !first.Is("with") && !first.Is("values")
}

// matchCloseTok is the index of the ")" closing the parenthesis open at in[k].
func matchCloseTok(in []Token, k int) int {
	depth := 0
	for j := k; j < len(in); j++ {
		switch {
		case in[j].IsPunct("(") || in[j].IsPunct("["):
			depth++
		case in[j].IsPunct(")") || in[j].IsPunct("]"):
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// aggOrderCall is __agg_order(key, 'asc'|'desc', 'first'|'last'|”, ...).
func aggOrderCall(keys []Token, at Token) []Token {
	punct := func(v string) Token { return Token{Kind: TokPunct, Val: v, Pos: at.Pos, End: at.End} }
	str := func(v string) Token { return Token{Kind: TokString, Val: v, Pos: at.Pos, End: at.End} }
	out := []Token{{Kind: TokIdent, Val: "__agg_order", Pos: at.Pos, End: at.End}, punct("(")}
	for i, key := range SplitTopLevel(keys) {
		dir, nulls := "asc", ""
		if n := len(key); n >= 2 && key[n-2].Is("nulls") && (key[n-1].Is("first") || key[n-1].Is("last")) {
			nulls, key = key[n-1].Val, key[:n-2]
		}
		if n := len(key); n >= 1 && (key[n-1].Is("asc") || key[n-1].Is("desc")) {
			dir, key = key[n-1].Val, key[:n-1]
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
func aggregateFilters(in []Token, names Names) []Token {
	out := make([]Token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if !t.Is("filter") || k+2 >= len(in) || !in[k+1].IsPunct("(") || !in[k+2].Is("where") ||
			len(out) == 0 || !out[len(out)-1].IsPunct(")") {
			out = append(out, t)
			continue
		}
		e := MatchParen(in, k+1)
		open := matchOpenTok(out, len(out)-1)
		if e < 0 || open < 1 {
			out = append(out, t)
			continue
		}
		if e+1 < len(in) && in[e+1].Is("over") {
			out = append(out[:open+1], filteredArgs(out[open+1:len(out)-1], in[k+3:e], t)...)
		} else {
			out = plainAggregateCall(out, open, names)
			open = matchOpenTok(out, len(out)-1)
			if n := len(out); open == n-3 && out[n-2].Val == "*" && out[open-1].Val == "count" {
				// count(*) FILTER counts the rows the condition keeps.
				out[n-2] = Token{Kind: TokNumber, Val: "1", Pos: out[n-2].Pos, End: out[n-2].End}
			}
			out = append(out[:len(out)-1], aggFilterCall(in[k+3:e], t)...)
		}
		out = append(out, Token{Kind: TokPunct, Val: ")", Pos: t.Pos, End: t.End})
		k = e
	}
	return out
}

// aggFilterCall is ", __agg_filter(cond)", the argument carrying FILTER.
func aggFilterCall(cond []Token, at Token) []Token {
	punct := func(v string) Token { return Token{Kind: TokPunct, Val: v, Pos: at.Pos, End: at.End} }
	out := []Token{punct(","), {Kind: TokIdent, Val: "__agg_filter", Pos: at.Pos, End: at.End}, punct("(")}
	out = append(out, cond...)
	return append(out, punct(")"))
}

// plainCallName reports an aggregate's name that tidb parses as a plain
// call's: one it does not parse itself, or one of its own quoted.
func plainCallName(name Token, names Names) bool {
	return plainAggregate(names, name.Val) || name.Kind == TokQIdent && tidbAggregate(names, name.Val)
}

// plainAggregateCall makes the tidb aggregate whose argument list opens at
// out[open] a plain call: its name quoted (a quoted name is never tidb's
// keyword), or, over DISTINCT, renamed with DistinctPrefix as the
// aggregates tidb parses as calls are.
func plainAggregateCall(out []Token, open int, names Names) []Token {
	name := out[open-1]
	if !tidbAggregate(names, name.Val) || name.Kind != TokIdent && name.Kind != TokQIdent {
		return out
	}
	out[open-1].Kind = TokQIdent
	if open+1 < len(out) && out[open+1].Is("distinct") {
		out[open-1].Val = DistinctPrefix + name.Val
		out = append(out[:open+1], out[open+2:]...)
	}
	return out
}

// matchOpenTok is the index of the "(" that the ")" at out[j] closes.
func matchOpenTok(out []Token, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch {
		case out[k].IsPunct(")"):
			depth++
		case out[k].IsPunct("("):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// filteredArgs wraps an aggregate's first argument in CASE WHEN cond.
func filteredArgs(args, cond []Token, at Token) []Token {
	word := func(w string) Token { return Token{Kind: TokIdent, Val: w, Pos: at.Pos, End: at.End} }
	items := SplitTopLevel(args)
	first := items[0]
	var distinct []Token
	if len(first) > 0 && (first[0].Is("distinct") || first[0].Is("all")) {
		distinct, first = first[:1], first[1:]
	}
	if len(first) == 1 && first[0].Val == "*" {
		first = []Token{{Kind: TokNumber, Val: "1", Pos: at.Pos, End: at.End}}
	}
	wrapped := append(append([]Token{}, distinct...), word("case"), word("when"), Token{Kind: TokPunct, Val: "(", Pos: at.Pos, End: at.End})
	wrapped = append(wrapped, cond...)
	wrapped = append(wrapped, Token{Kind: TokPunct, Val: ")", Pos: at.Pos, End: at.End}, word("then"))
	wrapped = append(wrapped, first...)
	wrapped = append(wrapped, word("end"))
	for _, it := range items[1:] {
		wrapped = append(wrapped, Token{Kind: TokPunct, Val: ",", Pos: at.Pos, End: at.End})
		wrapped = append(wrapped, it...)
	}
	return wrapped
}

// nestedNulls rewrites "key [ASC|DESC] NULLS FIRST|LAST" in ORDER BY lists
// below the statement's own (windows, subqueries, WITH queries; the front
// end strips the top level's itself) into "__nulls_first(key) [ASC|DESC]"
// or __nulls_last: tidb has no NULLS; the query's builder unwraps the
// marker (see OrderKey), so an ordinal or an output name stays one.
func nestedNulls(in []Token) []Token {
	out := append([]Token(nil), in...)
	for k := 0; k < len(out); k++ {
		if !out[k].Is("nulls") || k+1 >= len(out) || !(out[k+1].Is("first") || out[k+1].Is("last")) {
			continue
		}
		keyEnd := k
		if keyEnd > 0 && (out[keyEnd-1].Is("asc") || out[keyEnd-1].Is("desc")) {
			keyEnd--
		}
		start := sortKeyStart(out, keyEnd)
		if start < 0 || start >= keyEnd {
			continue
		}
		at := out[k]
		marker := "__nulls_last"
		if out[k+1].Is("first") {
			marker = "__nulls_first"
		}
		repl := []Token{{Kind: TokIdent, Val: marker, Pos: at.Pos, End: at.End}, {Kind: TokPunct, Val: "(", Pos: at.Pos, End: at.End}}
		repl = append(repl, out[start:keyEnd]...)
		repl = append(repl, Token{Kind: TokPunct, Val: ")", Pos: at.Pos, End: at.End})
		repl = append(repl, out[keyEnd:k]...) // ASC or DESC
		rest := append([]Token(nil), out[k+2:]...)
		out = append(append(out[:start], repl...), rest...)
		k = start + len(repl) - 1
	}
	return out
}

// sortKeyStart is where the sort key ending before out[end] begins: after
// the "," or "BY" that precedes it at its own parenthesis level.
func sortKeyStart(out []Token, end int) int {
	depth := 0
	for k := end - 1; k >= 0; k-- {
		switch {
		case out[k].IsPunct(")"):
			depth++
		case out[k].IsPunct("("):
			if depth == 0 {
				return -1
			}
			depth--
		case depth == 0 && (out[k].IsPunct(",") || out[k].Is("by")):
			return k + 1
		}
	}
	return -1
}

// fromItemEnd is the index after the FROM item starting at in[k]: a
// (qualified) name or a parenthesised query, then an optional alias.
func fromItemEnd(in []Token, k int) int {
	switch {
	case k >= len(in):
		return k
	case in[k].IsPunct("("):
		if e := MatchParen(in, k); e > 0 {
			k = e + 1
		}
	default:
		k++
		for k+1 < len(in) && in[k].IsPunct(".") && isName(in[k+1]) {
			k += 2
		}
	}
	if k < len(in) && in[k].Is("as") {
		k++
	}
	if k < len(in) && isName(in[k]) {
		k++
	}
	return k
}

// DistinctPrefix marks agg(DISTINCT ...) of the aggregates TiDB parses as
// plain calls: the normaliser renames the call.
const DistinctPrefix = "__distinct_"

// grammarAggregates are the aggregates TiDB's grammar parses itself whose
// reading magmalake takes (TiDB would read stddev and variance as the
// population forms, where PostgreSQL means the sample forms).
var grammarAggregates = Words(`count sum avg min max stddev_samp stddev_pop var_samp var_pop`)

// tidbAggregate reports an aggregate TiDB's grammar parses itself, taking
// no argument beyond the aggregated one: given a marker argument
// (__agg_order, __agg_filter) the normaliser makes it a plain call.
func tidbAggregate(names Names, name string) bool {
	return grammarAggregates[name] && names.IsAggregate(name)
}

// plainAggregate reports an aggregate TiDB parses as a plain call.
func plainAggregate(names Names, name string) bool {
	return !grammarAggregates[name] && names.IsAggregate(name)
}
