package parse

// PostgreSQL forms catalog clients send (psql, pgjdbc, SQLAlchemy) that TiDB
// cannot parse, rewritten to internal calls Bind knows:
//
//   - a ~ b → a REGEXP b; a !~ b → a NOT REGEXP b.
//   - OPERATOR(pg_catalog.op) → op; COLLATE name → dropped (one collation, C).
//   - x op ANY|SOME|ALL (array) → x op __any(array) / __all(array).
//   - ARRAY[a, b] → __array(a, b); ARRAY(subquery) → __array_sub((subquery)).
//   - x[i] → __subscript(x, i); (x).f → __field((x), 'f').
//   - a function in FROM, f(args) [AS] s[(c)] → (SELECT f(args) AS c) AS s,
//     c defaulting to s and s to the function's name, as PostgreSQL names them;
//     the file functions (read_csv, read_parquet) keep a whole column list
//     s(a, b, ...) and take name => value options as name = value.

import "strings"

// pgPrepass drops COLLATE clauses and unwraps OPERATOR(schema.op).
func pgPrepass(in []Token, names Names) []Token {
	out := make([]Token, 0, len(in))
	for k := 0; k < len(in); k++ {
		t := in[k]
		if t.Is("collate") && k+1 < len(in) && (in[k+1].Kind == TokIdent || in[k+1].Kind == TokQIdent) {
			k++
			for k+2 < len(in) && in[k+1].IsPunct(".") && (in[k+2].Kind == TokIdent || in[k+2].Kind == TokQIdent) {
				k += 2
			}
			continue
		}
		if t.Is("operator") && k+1 < len(in) && in[k+1].IsPunct("(") {
			j := k + 2
			for j+1 < len(in) && (in[j].Kind == TokIdent || in[j].Kind == TokQIdent) && in[j+1].IsPunct(".") {
				j += 2
			}
			if j+1 < len(in) && in[j].Kind == TokOp && in[j+1].IsPunct(")") {
				out = append(out, in[j])
				k = j + 1
				continue
			}
		}
		if catalogQualifiedCall(in, k) {
			k++ // pg_catalog . f ( ... ): the call as tidb parses f's own
			continue
		}
		out = append(out, t)
	}
	return queryPrepass(out, names)
}

// catalogQualifiedCall reports pg_catalog . name ( at in[k]: PostgreSQL's
// built-in functions, aggregates and window functions live in pg_catalog,
// so the qualifier names the call tidb parses unqualified (count(*),
// max(DISTINCT x), rank() OVER ...). COALESCE, NULLIF, GREATEST and LEAST
// are syntax, no functions of pg_catalog: qualified, they stay calls the
// binder refuses as PostgreSQL does.
func catalogQualifiedCall(in []Token, k int) bool {
	if k+3 >= len(in) || !in[k].Is("pg_catalog") || !in[k+1].IsPunct(".") || !in[k+3].IsPunct("(") ||
		in[k+2].Kind != TokIdent && in[k+2].Kind != TokQIdent {
		return false
	}
	if k > 0 && in[k-1].IsPunct(".") {
		return false // db.pg_catalog.f
	}
	switch in[k+2].Val {
	case "coalesce", "nullif", "greatest", "least":
		return false
	}
	return true
}

// cur is the innermost open frame, or the statement level.
func (n *normalizer) cur() *castFrame {
	if k := len(n.frames); k > 0 {
		return &n.frames[k-1]
	}
	return &n.top
}

// closeFrame handles ')' and ']'.
func (n *normalizer) closeFrame(t Token, bracket bool) error {
	k := len(n.frames)
	if k == 0 {
		if bracket {
			return SyntaxErrorAt(n.query, t)
		}
		n.emit(")", TokPunct, t)
		n.i++
		return nil
	}
	f := n.frames[k-1]
	if f.bracket != bracket {
		return SyntaxErrorAt(n.query, t)
	}
	n.frames = n.frames[:k-1]
	n.emit(")", TokPunct, t)
	for _, c := range f.closer {
		n.emit(c, TokPunct, t)
	}
	n.i++
	return nil
}

// subscript rewrites primary[i] to __subscript(primary, i).
func (n *normalizer) subscript(t Token) error {
	s := primaryStart(n.out)
	if s == len(n.out) {
		return SyntaxErrorAt(n.query, t)
	}
	inner := append([]ntok(nil), n.out[s:]...)
	n.out = n.out[:s]
	n.emit("__subscript", TokIdent, t)
	n.emit("(", TokPunct, t)
	n.out = append(n.out, inner...)
	n.emit(",", TokPunct, t)
	n.frames = append(n.frames, castFrame{bracket: true})
	n.i++
	return nil
}

// arrayConstructor rewrites ARRAY[...] and ARRAY(subquery).
func (n *normalizer) arrayConstructor(t, next Token) error {
	if next.IsPunct("[") {
		n.emit("__array", TokIdent, t)
		n.emit("(", TokPunct, next)
		n.frames = append(n.frames, castFrame{bracket: true})
		n.i += 2
		return nil
	}
	n.emit("__array_sub", TokIdent, t)
	n.emit("(", TokPunct, next)
	n.emit("(", TokPunct, next)
	n.frames = append(n.frames, castFrame{query: true, closer: []string{")"}})
	n.i += 2
	return nil
}

// arrayQuantifier rewrites op ANY|SOME|ALL (array) to op __any(array).
func (n *normalizer) arrayQuantifier(t Token) error {
	name := "__any"
	if t.Val == "all" {
		name = "__all"
	}
	n.emit(name, TokIdent, t)
	n.i++
	return nil
}

// fieldSelect rewrites (x).f to __field((x), 'f').
func (n *normalizer) fieldSelect(t Token) (bool, error) {
	last := len(n.out) - 1
	next := n.peek(1)
	if last < 0 || n.out[last].text != ")" || (next.Kind != TokIdent && next.Kind != TokQIdent) {
		return false, nil
	}
	s := matchBack(n.out, last, "(", ")")
	if s < 0 {
		return false, nil
	}
	group := append([]ntok(nil), n.out[s:]...)
	n.out = n.out[:s]
	n.emit("__field", TokIdent, t)
	n.emit("(", TokPunct, t)
	n.out = append(n.out, group...)
	n.emit(",", TokPunct, t)
	n.emit(pgQuoteString(next.Val), TokString, next)
	n.emit(")", TokPunct, t)
	n.i += 2
	return true, nil
}

// trackFrom follows whether the current query level is in its FROM clause.
func (n *normalizer) trackFrom(t Token) {
	f := n.cur()
	if !f.query {
		return
	}
	switch t.Val {
	case "from":
		f.from = true
	case "where", "group", "order", "having", "limit", "offset", "fetch", "union", "intersect", "except", "window", "for":
		f.from = false
	}
}

// fromClauseEnd are words that cannot be a FROM item's alias.
var fromClauseEnd = Words(`where join left right inner outer cross natural full on using order group having limit
	offset fetch union intersect except window for straight_join`)

// fromFunction rewrites a function call in table position of a FROM clause
// into a derived table with one column.
func (n *normalizer) fromFunction(t Token) (bool, error) {
	if !n.cur().from || n.i == 0 || t.Kind != TokIdent {
		return false, nil
	}
	prev := n.in[n.i-1]
	if !prev.Is("from") && !prev.Is("join") && !prev.Is(fullJoinWord) && !prev.IsPunct(",") {
		return false, nil
	}
	if t.Val == "lateral" || t.Val == "only" || t.Val == "select" || t.Val == "values" {
		return false, nil
	}
	j := n.i
	for n.at(j+1).IsPunct(".") && (n.at(j+2).Kind == TokIdent || n.at(j+2).Kind == TokQIdent) {
		j += 2
	}
	if !n.at(j + 1).IsPunct("(") {
		return false, nil
	}
	e := MatchParen(n.in, j+1)
	if e < 0 {
		return false, nil
	}
	fname := n.in[j].Val
	files := fileFunctions[fname]
	if files {
		namedArguments(n.in[j+2 : e])
	}
	call, err := n.sub(n.i, e+1)
	if err != nil {
		return true, err
	}
	k := e + 1
	if n.at(k).Is("as") {
		k++
	}
	alias, col := "", ""
	if a := n.at(k); (a.Kind == TokIdent && !fromClauseEnd[a.Val]) || a.Kind == TokQIdent {
		alias = a.Val
		k++
		if n.at(k).IsPunct("(") && (n.at(k+1).Kind == TokIdent || n.at(k+1).Kind == TokQIdent) {
			col = n.at(k + 1).Val
			if c := MatchParen(n.in, k); c > 0 {
				if files {
					// A file's columns are many: keep every name, as a
					// derived table's alias list is kept.
					alias = foldColumnAliases(alias, n.in[k+1:c])
					col = ""
				}
				k = c + 1
			}
		}
	}
	if alias == "" {
		alias = fname
	}
	if col == "" {
		col = alias
	}
	if n.impliedLateral(n.i - 1) {
		// A function after the first FROM item may read the items before
		// it, as PostgreSQL's functions in FROM always may.
		n.emit("lateral", TokIdent, t)
	}
	n.emit("(", TokPunct, t)
	n.emit("select", TokIdent, t)
	n.out = append(n.out, call...)
	n.emit("as", TokIdent, t)
	n.emit(pgQuoteIdent(col), TokQIdent, t)
	n.emit(")", TokPunct, t)
	n.emit("as", TokIdent, t)
	n.emit(pgQuoteIdent(alias), TokQIdent, t)
	n.i = k
	return true, nil
}

// fileFunctions read files in FROM (engine's FileReader); their
// columns come from the files, and they take named options.
var fileFunctions = Words("read_csv read_csv_auto read_parquet parquet_scan")

// namedArguments turns PostgreSQL's name => value into DuckDB's
// name = value, which the parser takes.
func namedArguments(args []Token) {
	for i := range args {
		if args[i].Kind == TokOp && args[i].Val == "=>" {
			args[i].Val = "="
		}
	}
}

// foldColumnAliases is alias AliasColumnSep a AliasColumnSep b for the
// names of a column alias list; other tokens (commas) are skipped.
func foldColumnAliases(alias string, list []Token) string {
	names := []string{alias}
	for _, t := range list {
		if t.Kind == TokIdent || t.Kind == TokQIdent {
			names = append(names, t.Val)
		}
	}
	return strings.Join(names, AliasColumnSep)
}

// impliedLateral reports whether the FROM item after in[k] (a comma or
// JOIN) may be LATERAL: not after RIGHT or FULL JOIN, which cannot take a
// lateral reference.
func (n *normalizer) impliedLateral(k int) bool {
	prev := n.in[k]
	if prev.IsPunct(",") {
		return true
	}
	if !prev.Is("join") {
		return false
	}
	j := k - 1
	if j >= 0 && n.in[j].Is("outer") {
		j--
	}
	return j < 0 || !(n.in[j].Is("right") || n.in[j].Is("full"))
}
