package parse

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
)

// at returns in[j], or the statement's stop token past the end.
func (n *normalizer) at(j int) Token {
	if j < len(n.in) {
		return n.in[j]
	}
	return n.stopTok()
}

func (n *normalizer) stopTok() Token {
	if n.stop.Kind == TokEOF && n.stop.Pos == 0 && len(n.in) > 0 {
		end := n.in[len(n.in)-1].End
		return Token{Kind: TokEOF, Pos: end, End: end}
	}
	return n.stop
}

// sub normalises in[j:k] on its own, with in[k] as its stop token.
func (n *normalizer) sub(j, k int) ([]ntok, error) {
	return normalizeStop(n.query, n.in[j:k], n.at(k), n.names)
}

// distinctFrom rewrites "left IS [NOT] DISTINCT FROM right"; j indexes the
// first token of right.
func (n *normalizer) distinctFrom(t Token, notDistinct bool, j int) error {
	ls := operandStart(n.out, true)
	if ls == len(n.out) {
		return SyntaxErrorAt(n.query, t)
	}
	k := operandEnd(n.in, j, false)
	if k == j {
		return SyntaxErrorAt(n.query, n.at(j))
	}
	right, err := n.sub(j, k)
	if err != nil {
		return err
	}
	left := parenthesize(append([]ntok(nil), n.out[ls:]...), t)
	right = parenthesize(right, t)
	wrap := !notDistinct && needsWrap(n.out[:ls])
	n.out = n.out[:ls]
	if wrap {
		n.emit("(", TokPunct, t)
	}
	if !notDistinct {
		n.emit("not", TokIdent, t)
	}
	n.emit("(", TokPunct, t)
	n.out = append(n.out, left...)
	n.emit("<=>", TokOp, t)
	n.out = append(n.out, right...)
	n.emit(")", TokPunct, t)
	if wrap {
		n.emit(")", TokPunct, t)
	}
	n.i = k
	return nil
}

// ilike rewrites "left [NOT] ILIKE right [ESCAPE e]"; n.i is the ILIKE token.
func (n *normalizer) ilike(t Token, neg bool) error {
	ls := operandStart(n.out, true)
	if ls == len(n.out) {
		return SyntaxErrorAt(n.query, t)
	}
	j := n.i + 1
	k := operandEnd(n.in, j, true)
	if k == j {
		return SyntaxErrorAt(n.query, n.at(j))
	}
	right, err := n.sub(j, k)
	if err != nil {
		return err
	}
	args := append(append([]ntok(nil), n.out[ls:]...), ntok{text: ",", Kind: TokPunct, src: t})
	args = append(args, right...)
	if n.at(k).Is("escape") {
		k2 := operandEnd(n.in, k+1, true)
		if k2 == k+1 {
			return SyntaxErrorAt(n.query, n.at(k+1))
		}
		esc, err := n.sub(k+1, k2)
		if err != nil {
			return err
		}
		args = append(append(args, ntok{text: ",", Kind: TokPunct, src: t}), esc...)
		k = k2
	}
	wrap := neg && needsWrap(n.out[:ls])
	n.out = n.out[:ls]
	if wrap {
		n.emit("(", TokPunct, t)
	}
	if neg {
		n.emit("not", TokIdent, t)
	}
	n.emitCall("__ilike", t, args...)
	if wrap {
		n.emit(")", TokPunct, t)
	}
	n.i = k
	return nil
}

// doubleColon rewrites "primary::type" to __cast(primary, 'type').
func (n *normalizer) doubleColon(t Token) error {
	s := primaryStart(n.out)
	if s == len(n.out) {
		return SyntaxErrorAt(n.query, t)
	}
	typ, next, err := n.typeName(n.i + 1)
	if err != nil {
		return err
	}
	inner := append([]ntok(nil), n.out[s:]...)
	n.out = n.out[:s]
	n.emitCall("__cast", t, append(inner, ntok{text: ",", Kind: TokPunct, src: t}, ntok{text: pgQuoteString(typ), Kind: TokString, src: t})...)
	n.i = next
	return nil
}

// castAs handles the AS of CAST(expr AS type).
func (n *normalizer) castAs(t Token) error {
	typ, next, err := n.typeName(n.i + 1)
	if err != nil {
		return err
	}
	if !n.at(next).IsPunct(")") {
		return SyntaxErrorAt(n.query, n.at(next))
	}
	n.emit(",", TokPunct, t)
	n.emit(pgQuoteString(typ), TokString, n.in[n.i+1])
	n.i = next
	return nil
}

// typedLiteral rewrites "type 'string'" to __cast('string', 'type').
func (n *normalizer) typedLiteral(t Token) (bool, error) {
	if !n.names.IsTypeName(t.Val) && t.Val != "interval" {
		return false, nil
	}
	typ, next, err := n.typeName(n.i)
	if err != nil {
		return false, nil
	}
	lit := n.at(next)
	if lit.Kind != TokString || lit.Str == StrBit || lit.Str == StrHex || lit.Str == StrUnicode {
		return false, nil
	}
	end := next + 1
	if typ == "interval" {
		// interval '7' day: the fields follow the literal.
		for isIntervalField(n.at(end)) {
			typ += " " + n.at(end).Val
			end++
		}
	}
	n.emitCall("__cast", t, ntok{text: pgQuoteString(lit.Val), Kind: TokString, src: lit},
		ntok{text: ",", Kind: TokPunct, src: t}, ntok{text: pgQuoteString(typ), Kind: TokString, src: t})
	n.i = end
	return true, nil
}

// typeName reads a PostgreSQL type name starting at in[j]: qualified names,
// multi-word names, modifiers, WITH[OUT] TIME ZONE, interval fields and []
// suffixes. It returns the name as written, lower-cased and
// whitespace-collapsed, and the index after it.
func (n *normalizer) typeName(j int) (string, int, error) {
	start := j
	w := n.at(j)
	if w.Kind != TokIdent && w.Kind != TokQIdent || w.Kind == TokIdent && IsReserved(w.Val) {
		return "", j, SyntaxErrorAt(n.query, w)
	}
	j++
	if n.at(j).IsPunct(".") && (n.at(j+1).Kind == TokIdent || n.at(j+1).Kind == TokQIdent) {
		j += 2
	}
	base := n.in[j-1].Val
	switch {
	case base == "double" && n.at(j).Is("precision"),
		(base == "character" || base == "char" || base == "bit") && n.at(j).Is("varying"):
		j++
	}
	if n.at(j).IsPunct("(") {
		k := MatchParen(n.in, j)
		if k < 0 {
			return "", j, SyntaxErrorAt(n.query, n.stopTok())
		}
		j = k + 1
	}
	if (base == "timestamp" || base == "time") && (n.at(j).Is("with") || n.at(j).Is("without")) &&
		n.at(j+1).Is("time") && n.at(j+2).Is("zone") {
		j += 3
	}
	if base == "interval" {
		for isIntervalField(n.at(j)) {
			j++
		}
	}
	for n.at(j).IsPunct("[") {
		k := j + 1
		if n.at(k).Kind == TokNumber {
			k++
		}
		if !n.at(k).IsPunct("]") {
			return "", j, SyntaxErrorAt(n.query, n.at(k))
		}
		j = k + 1
	}
	return sourceText(n.query, n.in[start:j]), j, nil
}

func isIntervalField(t Token) bool {
	switch t.Val {
	case "year", "month", "day", "hour", "minute", "second", "to":
		return t.Kind == TokIdent
	}
	return false
}

// sourceText is toks as written, lower-cased but for quoted identifiers
// (a quoted type name is exact in case), with any gap between tokens
// collapsed to one space.
func sourceText(query string, toks []Token) string {
	var b strings.Builder
	for k, t := range toks {
		if k > 0 && t.Pos > toks[k-1].End {
			b.WriteByte(' ')
		}
		if t.Kind == TokQIdent {
			b.WriteString(query[t.Pos:t.End])
			continue
		}
		b.WriteString(strings.ToLower(query[t.Pos:t.End]))
	}
	return b.String()
}

// MatchParen returns the index of the ')' closing the '(' at in[j], or -1.
func MatchParen(in []Token, j int) int {
	depth := 0
	for k := j; k < len(in); k++ {
		switch {
		case in[k].IsPunct("("):
			depth++
		case in[k].IsPunct(")"):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// primaryStart returns where the primary expression ending out begins: a
// literal, a (qualified) name, a parenthesised group, a function call, or a
// CASE ... END. It returns len(out) when out does not end in a primary.
func primaryStart(out []ntok) int {
	j := len(out) - 1
	if j < 0 {
		return 0
	}
	t := out[j]
	switch {
	case t.text == ")":
		k := matchBack(out, j, "(", ")")
		if k < 0 {
			return len(out)
		}
		if k > 0 && isFuncName(out[k-1]) {
			k--
			for k >= 2 && out[k-1].text == "." {
				k -= 2
			}
		}
		return k
	case t.Kind == TokIdent && t.text == "end":
		if k := matchBack(out, j, "case", "end"); k >= 0 {
			return k
		}
		return len(out)
	case t.Kind == TokIdent && operandStopWords[t.text]:
		return len(out)
	case t.Kind == TokIdent || t.Kind == TokQIdent:
		k := j
		for k >= 2 && out[k-1].text == "." {
			k -= 2
		}
		return k
	case t.Kind == TokString || t.Kind == TokNumber:
		return j
	}
	return len(out)
}

// matchBack finds the opener matching the closer at out[j].
func matchBack(out []ntok, j int, open, close string) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch out[k].text {
		case close:
			depth++
		case open:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

func isFuncName(t ntok) bool {
	return t.Kind == TokQIdent || (t.Kind == TokIdent && !operandStopWords[t.text] && t.text != "case")
}

// operandStart returns where the operand ending out begins for an operator
// binding looser than arithmetic and concatenation: the scan stops at the
// enclosing '(' or ',', at boolean and clause keywords, and (stopCmp) at
// comparison operators.
func operandStart(out []ntok, stopCmp bool) int {
	depth := 0
	for k := len(out) - 1; k >= 0; k-- {
		t := out[k]
		switch {
		case t.text == ")" || (t.Kind == TokIdent && t.text == "end"):
			depth++
		case t.text == "(" || (t.Kind == TokIdent && t.text == "case"):
			if depth == 0 {
				return k + 1
			}
			depth--
		case depth > 0:
		case t.text == ",":
			return k + 1
		case t.Kind == TokIdent && operandStopWords[t.text]:
			return k + 1
		case t.Kind == TokOp && stopCmp && pgCmpOps[t.text]:
			return k + 1
		}
	}
	return 0
}

// operandEnd returns the index just past the operand starting at in[j].
func operandEnd(in []Token, j int, stopCmp bool) int {
	return scanOperand(in, j, func(t Token) bool {
		return t.Kind == TokOp && (pgLikeOps[t.Val] || (stopCmp && pgCmpOps[t.Val]))
	})
}

// scanOperand returns the index just past the operand starting at in[j]:
// it ends at a closing parenthesis, a comma, a clause word or, after its
// first token (a sign), an operator stop accepts.
func scanOperand(in []Token, j int, stop func(Token) bool) int {
	depth := 0
	for k := j; k < len(in); k++ {
		t := in[k]
		switch {
		case t.IsPunct("(") || t.IsPunct("[") || t.Is("case"):
			depth++
		case t.IsPunct(")") || t.IsPunct("]") || t.Is("end"):
			if depth == 0 {
				return k
			}
			depth--
		case depth > 0:
		case t.IsPunct(",") || t.IsPunct(";"):
			return k
		case t.Kind == TokIdent && operandStopWords[t.Val] && k > j:
			return k
		case k > j && stop(t):
			return k
		}
	}
	return len(in)
}

// needsWrap reports whether a NOT-expression appended after prefix needs
// parentheses for TiDB (which does not take NOT as a comparison operand).
func needsWrap(prefix []ntok) bool {
	if len(prefix) == 0 {
		return false
	}
	last := prefix[len(prefix)-1]
	if last.text == "(" || last.text == "," {
		return false
	}
	return !(last.Kind == TokIdent && notContextWords[last.text])
}

// parenthesize wraps ops in parentheses unless they are a single primary.
func parenthesize(ops []ntok, src Token) []ntok {
	if primaryStart(ops) == 0 {
		return ops
	}
	res := append([]ntok{{text: "(", Kind: TokPunct, src: src}}, ops...)
	return append(res, ntok{text: ")", Kind: TokPunct, src: src})
}

// Words is the set of the space-separated words.
func Words(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var (
	pgCmpOps  = Words("= < > <= >= <> != <=>")
	pgLikeOps = Words("~~ !~~ ~~* !~~*")
	// operandStopWords end an operand of ILIKE / IS DISTINCT FROM.
	operandStopWords = Words(`and or not where select when then else on having set by returning values
		from is like ilike similar between in escape distinct all any some as using limit offset order group
		union intersect except into for fetch window over isnull notnull`)
	// notContextWords may directly precede a NOT-expression in TiDB.
	notContextWords = Words("and or not where select when then else on having returning distinct")
	// tidbPassthrough are TiDB-reserved words our rewritten SQL uses as
	// syntax; the other reserved words are identifiers in PostgreSQL.
	tidbPassthrough = Words(`all and as asc between by case collate cross current_date current_time
		current_timestamp current_user current_role default delete desc distinct else except exists false
		fetch for from group having in inner insert intersect interval into is join lateral left like limit
		localtime localtimestamp natural not null of on or order outer over partition range rows recursive
		right row select set then to true union update using values when where window with ilike straight_join`)
	tidbReserved = func() map[string]bool {
		m := map[string]bool{}
		for _, k := range parser.Keywords {
			if k.Reserved {
				m[strings.ToLower(k.Word)] = true
			}
		}
		return m
	}()
)

// TypeNameAt reads the type name starting at toks[i] (of query, followed by
// stop) as the normaliser writes it: lower case, whitespace collapsed; next
// is the index after it.
func TypeNameAt(query string, toks []Token, i int, stop Token) (text string, next int, err error) {
	n := &normalizer{query: query, in: toks, stop: stop}
	return n.typeName(i)
}
