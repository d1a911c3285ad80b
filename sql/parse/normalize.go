// Normalisation: PostgreSQL text → text the TiDB parser accepts (SQL modes
// ANSI_QUOTES | NO_BACKSLASH_ESCAPES | PIPES_AS_CONCAT), token by token, each
// output token remembering the original token it stands for so that a TiDB
// syntax error is reported at PostgreSQL's position in the original text.
//
// The contract with the expression binder (binder code relies on exactly this):
//
//   - Unquoted identifiers are folded to lower case; quoted identifiers keep
//     their case; the converted tree keeps names as written. Unquoted
//     words that TiDB reserves but PostgreSQL does not (key, index, div, mod,
//     read, ...) are passed as quoted identifiers.
//   - $n → __param(n): a FuncCall named "__param", one integer literal.
//   - a numeric literal with an exponent, or longer than tidb's decimal holds
//     (it panics past 81 digits) → __numeric('digits'), read exactly.
//   - expr::type, CAST(expr AS type) and typed literals (date '2024-01-01',
//     timestamp '...', timestamptz '...', interval '...', and any other type
//     name followed by a string) → __cast(expr, 'type'), 'type' being the type
//     name as written, lower-cased, whitespace-collapsed (feed it to
//     ParseTypeName). :: binds tighter than any operator: -1::int is
//     -(__cast(1,'int')).
//   - a IS DISTINCT FROM b → NOT (a <=> b); a IS NOT DISTINCT FROM b →
//     (a <=> b). Operands that are not a single primary are parenthesised.
//   - TRUE/FALSE in expression position → __true() / __false(); IS [NOT]
//     TRUE/FALSE stay tidb IsTruthExpr; IS [NOT] UNKNOWN → IS [NOT] NULL;
//     ISNULL / NOTNULL → IS NULL / IS NOT NULL.
//   - E” strings (backslash escapes) and dollar-quoted strings → standard
//     '...' literals with ” doubling. U&” strings, B” and X” bit strings
//     → 0A000.
//   - x ILIKE p [ESCAPE e] → __ilike(x, p[, e]); x NOT ILIKE p → NOT
//     __ilike(x, p); ~~ / !~~ → LIKE / NOT LIKE; ~~* / !~~* → ILIKE as above.
//   - || is tidb's concat (a FuncCall "concat") via PIPES_AS_CONCAT; a
//     call of the function concat(...) → __concat(...). LIKE ... ESCAPE is
//     tidb-native.
//   - Where a rewrite needs parentheses to stay valid for TiDB (NOT after a
//     comparison operator, say), the result is wrapped in a Paren; binders
//     should look through Paren.
//   - x ~ p → x REGEXP p, x !~ p → x NOT REGEXP p (normalize_pg.go);
//     x ~* p → __iregex(x, p), x !~* p → NOT __iregex(x, p).
//   - EXTRACT(field FROM x) → __extract('field', x).
//   - Not supported (0A000, naming the construct): SIMILAR TO, array constructors and subscripts,
//     and the operators ^ # @ & & ?.
//   - j -> k → __json_get(j, k); j ->> k → __json_get_text(j, k).
package parse

import (
	"strings"
)

// ntok is one token of normalised text; src is the original token it stands
// for, used to position errors.
type ntok struct {
	text string
	Kind TokKind
	src  Token
}

// castFrame records an open parenthesis (or bracket); cast marks the one of
// CAST(, closer is extra text emitted when it closes (normalize_pg.go), query
// marks a parenthesised query and from that its FROM clause is being read.
type castFrame struct {
	cast    bool
	bracket bool
	closer  []string
	query   bool
	from    bool
}

// normalizer rewrites one statement's (or one expression's) tokens.
type normalizer struct {
	query  string
	in     []Token
	stop   Token // the token after in (a TokEOF at the end of the query)
	i      int
	out    []ntok
	frames []castFrame
	top    castFrame // the statement level, a query
	names  Names
}

// normalizeStop rewrites in (tokens of query, followed by stop) into
// TiDB-acceptable tokens.
func normalizeStop(query string, in []Token, stop Token, names Names) ([]ntok, error) {
	n := &normalizer{query: query, in: pgPrepass(in, names), stop: stop, top: castFrame{query: true}, names: names}
	n.out = make([]ntok, 0, len(n.in)+len(n.in)/8+8)
	for n.i < len(n.in) {
		if err := n.step(); err != nil {
			return nil, err
		}
	}
	return n.out, nil
}

func (n *normalizer) peek(k int) Token {
	if n.i+k < len(n.in) {
		return n.in[n.i+k]
	}
	return Token{Kind: TokEOF, Pos: -1}
}

func (n *normalizer) emit(text string, kind TokKind, src Token) {
	n.out = append(n.out, ntok{text: text, Kind: kind, src: src})
}

// maxTidbNumberLen is the longest number token handed to tidb's lexer, whose
// decimal panics past 81 digits; longer ones become __numeric('...'), and so
// do numbers with an exponent, which tidb reads as float64 (1.234567890123456789e5
// would lose digits; PostgreSQL reads it as an exact numeric).
const maxTidbNumberLen = 60

func (n *normalizer) step() error {
	t := n.in[n.i]
	switch t.Kind {
	case TokIdent:
		return n.word(t)
	case TokQIdent:
		if t.Str == StrUnicode {
			return UnsupportedAt(n.query, t, "U&\"\" identifiers are not supported")
		}
		if ok, err := n.typedLiteral(t); ok || err != nil {
			return err // "timestamp" '2024-01-01': a quoted type name's literal
		}
		n.emit(pgQuoteIdent(t.Val), TokQIdent, t)
	case TokString:
		if n.i > 0 && n.in[n.i-1].Kind == TokString {
			// only newline-separated constants continue each other (the lexer joined those)
			return SyntaxErrorAt(n.query, t)
		}
		if err := n.stringConst(t); err != nil {
			return err
		}
	case TokParam:
		n.emitCall("__param", t, ntok{text: t.Val, Kind: TokNumber, src: t})
	case TokNumber:
		if len(t.Val) > maxTidbNumberLen || strings.ContainsAny(t.Val, "eE") {
			n.emitCall("__numeric", t, ntok{text: pgQuoteString(t.Val), Kind: TokString, src: t})
			break
		}
		n.emit(t.Val, TokNumber, t)
	case TokPunct:
		return n.punct(t)
	case TokOp:
		return n.operator(t)
	}
	n.i++
	return nil
}

// emitCall appends name(args) standing for src; args are already
// comma-separated tokens.
func (n *normalizer) emitCall(name string, src Token, args ...ntok) {
	n.emit(name, TokIdent, src)
	n.emit("(", TokPunct, src)
	n.out = append(n.out, args...)
	n.emit(")", TokPunct, src)
}

func (n *normalizer) stringConst(t Token) error {
	switch t.Str {
	case StrUnicode:
		return UnsupportedAt(n.query, t, "U&'' string constants are not supported")
	case StrBit, StrHex:
		return UnsupportedAt(n.query, t, "bit string constants are not supported")
	}
	n.emit(pgQuoteString(t.Val), TokString, t)
	return nil
}

func (n *normalizer) punct(t Token) error {
	switch t.Val {
	case "(":
		n.frames = append(n.frames, castFrame{query: n.subqueryAt(n.i + 1)})
	case ")":
		return n.closeFrame(t, false)
	case "[":
		return n.subscript(t)
	case "]":
		return n.closeFrame(t, true)
	case ".":
		if ok, err := n.fieldSelect(t); ok || err != nil {
			return err
		}
	case "::":
		return n.doubleColon(t)
	case ":":
		return SyntaxErrorAt(n.query, t)
	}
	n.emit(t.Val, TokPunct, t)
	n.i++
	return nil
}

func (n *normalizer) operator(t Token) error {
	switch t.Val {
	case "~~":
		n.emit("like", TokIdent, t)
	case "!~~":
		n.emit("not", TokIdent, t)
		n.emit("like", TokIdent, t)
	case "~~*":
		return n.ilike(t, false)
	case "!~~*":
		return n.ilike(t, true)
	case "~":
		n.emit("regexp", TokIdent, t)
	case "!~":
		n.emit("not", TokIdent, t)
		n.emit("regexp", TokIdent, t)
	case "~*", "!~*":
		return n.iregex(t, t.Val == "!~*")
	case "->", "->>":
		return n.jsonGet(t)
	case "+", "-", "*", "/", "%", "<", ">", "=", "<=", ">=", "<>", "!=", "||", "<<", ">>", "|", "&":
		n.emit(t.Val, TokOp, t)
	default:
		return UnsupportedAt(n.query, t, "operator %s is not supported", t.Val)
	}
	n.i++
	return nil
}

// word handles an unquoted identifier or keyword.
func (n *normalizer) word(t Token) error {
	next := n.peek(1)
	switch t.Val {
	case "true", "false":
		n.emitCall("__"+t.Val, t)
		n.i++
		return nil
	case "cast":
		if next.IsPunct("(") {
			n.emit("__cast", TokIdent, t)
			n.emit("(", TokPunct, next)
			n.frames = append(n.frames, castFrame{cast: true})
			n.i += 2
			return nil
		}
	case "as":
		if k := len(n.frames); k > 0 && n.frames[k-1].cast {
			return n.castAs(t)
		}
	case "is":
		return n.isClause(t)
	case "isnull", "notnull":
		if t.Val == "notnull" {
			n.emit("is", TokIdent, t)
			n.emit("not", TokIdent, t)
		} else {
			n.emit("is", TokIdent, t)
		}
		n.emit("null", TokIdent, t)
		n.i++
		return nil
	case "concat":
		// || reaches tidb as concat(...) too (PIPES_AS_CONCAT), but
		// PostgreSQL's concat() skips NULL arguments where || is NULL: the
		// function keeps a name of its own.
		if t.Kind == TokIdent && next.IsPunct("(") {
			n.emit("__concat", TokIdent, t)
			n.i++
			return nil
		}
	case "stddev", "variance", "std", "cardinality":
		// tidb reads these as stddev_pop / var_pop (MySQL's meaning);
		// PostgreSQL's are the sample forms and it has no std(): passed
		// as plain function calls, bound by name. cardinality is a tidb
		// keyword that cannot start a call.
		if t.Kind == TokIdent && next.IsPunct("(") {
			n.emit(pgQuoteIdent(t.Val), TokQIdent, t)
			n.i++
			return nil
		}
	case "ilike":
		return n.ilike(t, false)
	case "not":
		if next.Is("ilike") {
			n.i++
			return n.ilike(t, true)
		}
	case "session_user", "user", "current_catalog", "current_schema":
		// SQL's parameterless function keywords PostgreSQL reserves (tidb
		// knows current_user and current_role itself); a name after AS or
		// a dot stays one.
		if prev := n.prevText(); t.Kind == TokIdent && !next.IsPunct("(") && prev != "as" && prev != "." {
			n.emitCall(t.Val, t)
			n.i++
			return nil
		}
	case "similar":
		return UnsupportedAt(n.query, t, "SIMILAR TO is not supported")
	case "nextval", "currval", "setval", "lastval":
		// tidb's grammar has its own NEXTVAL(sequence): a string argument
		// would be a syntax error.
		if t.Kind == TokIdent && next.IsPunct("(") {
			return UnsupportedAt(n.query, t, "sequence function %s() is not supported: there are no sequences", t.Val)
		}
	case "within":
		if next.Is("group") {
			return UnsupportedAt(n.query, t, "WITHIN GROUP (ordered-set aggregates) is not supported")
		}
	case "over":
		if err := n.windowedCall(t); err != nil {
			return err
		}
	case "extract":
		if ok, err := n.extract(t); ok || err != nil {
			return err
		}
	case "array":
		if next.IsPunct("[") || next.IsPunct("(") {
			return n.arrayConstructor(t, next)
		}
	case "any", "some", "all":
		if next.IsPunct("(") && !n.subqueryAt(n.i+2) && n.afterOperator() {
			return n.arrayQuantifier(t)
		}
	}
	if ok, err := n.fromFunction(t); ok || err != nil {
		return err
	}
	n.trackFrom(t)
	if ok, err := n.typedLiteral(t); ok || err != nil {
		return err
	}
	n.emitWord(t, next)
	n.i++
	return nil
}

// emitWord passes a word on, quoting it when TiDB reserves it but PostgreSQL
// would take it as a plain identifier here.
func (n *normalizer) emitWord(t, next Token) {
	afterAs := len(n.out) > 0 && n.out[len(n.out)-1].Kind == TokIdent && n.out[len(n.out)-1].text == "as"
	if t.Val == "groups" && frameStart(next) {
		n.emit(t.Val, TokIdent, t) // a window frame's unit, as ROWS and RANGE
		return
	}
	if t.Val == "by" && !n.afterByKeyword() {
		n.emit(pgQuoteIdent(t.Val), TokQIdent, t) // a column: BY is reserved in TiDB only
		return
	}
	if t.Val == "partition" && !next.Is("by") {
		n.emit(pgQuoteIdent(t.Val), TokQIdent, t) // a column (t$files, t$delete_debt), not PARTITION BY
		return
	}
	if tidbReserved[t.Val] && (!tidbPassthrough[t.Val] || afterAs && t.Val != "select") && !next.IsPunct("(") {
		n.emit(pgQuoteIdent(t.Val), TokQIdent, t)
		return
	}
	n.emit(t.Val, TokIdent, t)
}

// byKeywords are the words PostgreSQL's grammar puts BY after.
var byKeywords = map[string]bool{"order": true, "group": true, "partition": true, "partitioned": true,
	"generated": true, "owned": true, "matched": true}

// afterByKeyword reports whether the last word out is one BY follows.
func (n *normalizer) afterByKeyword() bool {
	if len(n.out) == 0 {
		return false
	}
	last := n.out[len(n.out)-1]
	return last.Kind == TokIdent && byKeywords[last.text]
}

// subqueryAt reports whether in[k] starts a subquery.
func (n *normalizer) subqueryAt(k int) bool {
	return k < len(n.in) && (n.in[k].Is("select") || n.in[k].Is("with") || n.in[k].Is("values"))
}

// afterOperator reports whether the last output token is a binary operator.
func (n *normalizer) afterOperator() bool {
	return len(n.out) > 0 && n.out[len(n.out)-1].Kind == TokOp
}

// is handles IS [NOT] DISTINCT FROM / UNKNOWN / TRUE / FALSE / NULL.
func (n *normalizer) isClause(t Token) error {
	j := n.i + 1
	neg := j < len(n.in) && n.in[j].Is("not")
	if neg {
		j++
	}
	if j >= len(n.in) {
		n.emit("is", TokIdent, t)
		n.i++
		return nil
	}
	next := n.in[j]
	switch {
	case next.Is("distinct") && j+1 < len(n.in) && n.in[j+1].Is("from"):
		return n.distinctFrom(t, neg, j+2)
	case next.Is("unknown"):
		n.emit("is", TokIdent, t)
		if neg {
			n.emit("not", TokIdent, n.in[n.i+1])
		}
		n.emit("null", TokIdent, next)
		n.i = j + 1
		return nil
	case next.Is("true") || next.Is("false"):
		n.emit("is", TokIdent, t)
		if neg {
			n.emit("not", TokIdent, n.in[n.i+1])
		}
		n.emit(next.Val, TokIdent, next)
		n.i = j + 1
		return nil
	}
	n.emit("is", TokIdent, t)
	n.i++
	return nil
}

func pgQuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func pgQuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// frameStart reports whether next can follow a window frame's unit
// (GROUPS BETWEEN ..., GROUPS UNBOUNDED PRECEDING, GROUPS 2 PRECEDING,
// GROUPS CURRENT ROW): groups is otherwise an ordinary name.
func frameStart(next Token) bool {
	return next.Is("between") || next.Is("unbounded") || next.Is("current") || next.Kind == TokNumber || next.Kind == TokParam
}

// windowedCall refuses, as 0A000, the aggregate calls before OVER that tidb
// cannot parse as window functions (it would call them a syntax error): the
// aggregates it parses as plain calls (array_agg, string_agg, bool_and,
// ...) and calls with ORDER BY or DISTINCT inside.
func (n *normalizer) windowedCall(over Token) error {
	end := len(n.out) - 1
	if end < 1 || n.out[end].Kind != TokPunct || n.out[end].text != ")" {
		return nil
	}
	open, depth := -1, 0
	for j := end; j >= 0 && open < 0; j-- {
		switch {
		case n.out[j].Kind == TokPunct && n.out[j].text == ")":
			depth++
		case n.out[j].Kind == TokPunct && n.out[j].text == "(":
			if depth--; depth == 0 {
				open = j
			}
		}
	}
	if open < 1 {
		return nil
	}
	name := n.out[open-1].src.Val
	depth = 0
	for _, a := range n.out[open+1 : end] {
		switch {
		case a.Kind == TokPunct && a.text == "(":
			depth++
		case a.Kind == TokPunct && a.text == ")":
			depth--
		case depth == 0 && a.Kind == TokIdent && a.text == "__agg_order":
			// The windowed call's own ORDER BY, not one of an aggregate
			// among its arguments (lag(string_agg(x, ',' ORDER BY x)) OVER).
			return UnsupportedAt(n.query, over, "aggregate ORDER BY is not implemented for window functions")
		}
	}
	if strings.EqualFold(name, "lag") || strings.EqualFold(name, "lead") {
		return n.shiftOffset(name, open, end, over)
	}
	switch {
	case strings.HasPrefix(name, DistinctPrefix):
		return UnsupportedAt(n.query, over, "DISTINCT is not implemented for window functions")
	case plainAggregate(n.names, name):
		return UnsupportedAt(n.query, over, "%s as a window function is not supported", name)
	}
	return nil
}

// prevText is the text of the last token out, "" at the start.
func (n *normalizer) prevText() string {
	if len(n.out) == 0 {
		return ""
	}
	return strings.ToLower(n.out[len(n.out)-1].text)
}
