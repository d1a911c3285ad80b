package parse

import (
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// tokKind classifies a PostgreSQL lexical token.
type TokKind uint8

const (
	TokEOF    TokKind = iota
	TokIdent          // unquoted word; val is lower-cased
	TokQIdent         // "quoted identifier"; val is unescaped, case kept
	TokString         // any string constant; val is the decoded content
	TokNumber         // integer or decimal constant
	TokParam          // $n; val is n
	TokOp             // operator (PostgreSQL operator-character run)
	TokPunct          // ( ) [ ] , ; . : ::
)

// strKind tells which spelling a string constant had.
type StrKind uint8

const (
	StrStd     StrKind = iota // 'x'
	StrEscape                 // E'x'
	StrDollar                 // $$x$$ / $tag$x$tag$
	StrUnicode                // U&'x'
	StrBit                    // B'0101'
	StrHex                    // X'1F'
)

// Token is one lexical token; Pos and End are byte offsets into the full
// query.
type Token struct {
	Kind TokKind
	Str  StrKind
	Val  string
	Pos  int
	End  int
}

// Is reports whether t is the unquoted word w (w lower case).
func (t Token) Is(w string) bool { return t.Kind == TokIdent && t.Val == w }

// IsPunct reports whether t is the punctuation or operator p.
func (t Token) IsPunct(p string) bool {
	return (t.Kind == TokPunct || t.Kind == TokOp) && t.Val == p
}

// lexer turns PostgreSQL text into tokens, dropping whitespace and comments.
type lexer struct {
	src string
	i   int
	// truncated are the notices of identifiers cut to maxIdentBytes.
	truncated []string
}

// Lex tokenises the whole of src. The slice never includes TokEOF.
func Lex(src string) ([]Token, error) { return lexLimited(src, 0) }

// lexLimited lexes src, refusing with 54001 as soon as the expression
// nesting passes maxDepth (0: no limit), before a hostile query's millions
// of tokens are all built. AND/OR are not counted: chains of them are
// balanced later.
func lexLimited(src string, maxDepth int) ([]Token, error) {
	lx := &lexer{src: src}
	var depth *depthCounter
	if maxDepth > 0 {
		depth = newDepthCounter(maxDepth, false)
	}
	// About one token per three bytes of SQL, to start: growing a slice
	// of millions of tokens from nothing dominated lexing huge IN lists. Capped,
	// as a long string literal is one token.
	toks := make([]Token, 0, min(len(src)/3+1, 1<<16))
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		if t.Kind == TokEOF {
			return toks, nil
		}
		if depth != nil && !depth.add(t.Kind, t.Val) {
			return nil, TooDeep(maxDepth)
		}
		toks = append(toks, t)
	}
}

func (lx *lexer) next() (Token, error) {
	if err := lx.skipSpace(); err != nil {
		return Token{}, err
	}
	if lx.i >= len(lx.src) {
		return Token{Kind: TokEOF, Pos: len(lx.src), End: len(lx.src)}, nil
	}
	start := lx.i
	c := lx.src[start]
	switch {
	case c == '\'':
		return lx.quoted(start, start, StrStd)
	case (c == 'e' || c == 'E') && lx.peekAt(start+1) == '\'':
		return lx.quoted(start, start+1, StrEscape)
	case (c == 'b' || c == 'B') && lx.peekAt(start+1) == '\'':
		return lx.quoted(start, start+1, StrBit)
	case (c == 'x' || c == 'X') && lx.peekAt(start+1) == '\'':
		return lx.quoted(start, start+1, StrHex)
	case (c == 'u' || c == 'U') && lx.peekAt(start+1) == '&' && lx.peekAt(start+2) == '\'':
		return lx.quoted(start, start+2, StrUnicode)
	case (c == 'u' || c == 'U') && lx.peekAt(start+1) == '&' && lx.peekAt(start+2) == '"':
		t, err := lx.quotedIdent(start, start+2)
		t.Str = StrUnicode
		return t, err
	case c == '"':
		t, err := lx.quotedIdent(start, start)
		return lx.clipIdent(t), err
	case c == '$':
		return lx.dollar(start)
	case isIdentStart(c):
		return lx.clipIdent(lx.word(start)), nil
	case isDigit(c) || (c == '.' && isDigit(lx.peekAt(start+1))):
		return lx.number(start), nil
	case c == ':' && lx.peekAt(start+1) == ':':
		lx.i += 2
		return Token{Kind: TokPunct, Val: "::", Pos: start, End: lx.i}, nil
	case strings.IndexByte("()[],;.:", c) >= 0:
		lx.i++
		return Token{Kind: TokPunct, Val: string(c), Pos: start, End: lx.i}, nil
	case isOpChar(c):
		return lx.operator(start), nil
	}
	_, size := utf8.DecodeRuneInString(lx.src[start:])
	lx.i += size
	return Token{}, lx.errAt(start, "syntax error at or near \"%s\"", lx.src[start:lx.i])
}

// maxIdentBytes is PostgreSQL's longest identifier (NAMEDATALEN - 1).
const maxIdentBytes = 63

// clipIdent truncates an identifier longer than maxIdentBytes at a
// character boundary, as PostgreSQL's lexer does, noting it. The
// "$files" of a metadata table's name is kept: the table's own name is
// what is truncated.
func (lx *lexer) clipIdent(t Token) Token {
	if (t.Kind != TokIdent && t.Kind != TokQIdent) || len(t.Val) <= maxIdentBytes {
		return t
	}
	base, suffix := t.Val, ""
	if i := strings.IndexByte(t.Val, '$'); i > 0 {
		base, suffix = t.Val[:i], t.Val[i:]
	}
	if len(base) <= maxIdentBytes {
		return t
	}
	cut := maxIdentBytes
	for cut > 0 && !utf8.RuneStart(base[cut]) {
		cut--
	}
	clipped := base[:cut] + suffix
	lx.truncated = append(lx.truncated, `identifier "`+t.Val+`" will be truncated to "`+clipped+`"`)
	t.Val = clipped
	return t
}

// TruncatedIdentifiers lists PostgreSQL's notices for the identifiers of
// query longer than 63 bytes, which the parser truncates.
func TruncatedIdentifiers(query string) []string {
	if !mayHoldLongIdent(query) {
		return nil
	}
	lx := &lexer{src: query}
	for {
		t, err := lx.next()
		if err != nil || t.Kind == TokEOF {
			return lx.truncated
		}
	}
}

// mayHoldLongIdent is a quick test before lexing again: an identifier of
// more than maxIdentBytes needs that many identifier bytes in a row, or a
// quoted span as long.
func mayHoldLongIdent(q string) bool {
	run, quote := 0, -1
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '"':
			if quote >= 0 && i-quote > maxIdentBytes {
				return true
			}
			if quote < 0 {
				quote = i
			} else {
				quote = -1
			}
			run = 0
		case isIdentChar(c):
			if run++; run > maxIdentBytes {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

func (lx *lexer) peekAt(i int) byte {
	if i < len(lx.src) {
		return lx.src[i]
	}
	return 0
}

// errAt builds a 42601 error positioned at byte offset off.
func (lx *lexer) errAt(off int, format string, args ...any) *pgerr.Error {
	e := pgerr.Errorf(pgerr.SyntaxError, format, args...)
	e.Position = CharPos(lx.src, off)
	return e
}

// CharPos converts a byte offset to PostgreSQL's 1-based character position.
func CharPos(src string, off int) int {
	if off > len(src) {
		off = len(src)
	}
	return utf8.RuneCountInString(src[:off]) + 1
}

func (lx *lexer) skipSpace() error {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.i++
		case c == '-' && lx.peekAt(lx.i+1) == '-':
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.i++
			}
		case c == '/' && lx.peekAt(lx.i+1) == '*':
			if err := lx.blockComment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// blockComment skips a /* */ comment; PostgreSQL nests them.
func (lx *lexer) blockComment() error {
	start := lx.i
	depth := 0
	for lx.i < len(lx.src) {
		switch {
		case lx.src[lx.i] == '/' && lx.peekAt(lx.i+1) == '*':
			depth++
			lx.i += 2
		case lx.src[lx.i] == '*' && lx.peekAt(lx.i+1) == '/':
			depth--
			lx.i += 2
			if depth == 0 {
				return nil
			}
		default:
			lx.i++
		}
	}
	return lx.errAt(start, "unterminated /* comment at or near \"%s\"", lx.src[start:])
}

// quoted lexes a single-quoted constant whose opening quote is at q. Adjacent
// constants separated by whitespace containing a newline are one constant, as
// the SQL standard (and PostgreSQL) say.
func (lx *lexer) quoted(start, q int, kind StrKind) (Token, error) {
	var b strings.Builder
	lx.i = q + 1
	// Copy runs without quotes or backslashes whole: byte by byte, a 100 MB
	// literal cost seconds and a dozen buffer doublings.
	for {
		run := strings.IndexAny(lx.src[lx.i:], `'\`)
		if run < 0 {
			run = len(lx.src) - lx.i
		}
		if run > 0 {
			if b.Len() == 0 {
				b.Grow(run)
			}
			b.WriteString(lx.src[lx.i : lx.i+run])
			lx.i += run
		}
		if lx.i >= len(lx.src) {
			return Token{}, lx.errAt(start, "unterminated quoted string at or near \"%s\"", lx.src[start:])
		}
		c := lx.src[lx.i]
		switch {
		case c == '\'' && lx.peekAt(lx.i+1) == '\'':
			b.WriteByte('\'')
			lx.i += 2
		case c == '\'':
			lx.i++
			if !lx.continuation() {
				return Token{Kind: TokString, Str: kind, Val: b.String(), Pos: start, End: lx.i}, nil
			}
		case c == '\\' && kind == StrEscape:
			if err := lx.escape(&b, start); err != nil {
				return Token{}, err
			}
		default:
			b.WriteByte(c)
			lx.i++
		}
	}
}

// continuation consumes whitespace-with-newline followed by a quote, so the
// string goes on; otherwise it leaves the position untouched.
func (lx *lexer) continuation() bool {
	j, newline := lx.i, false
	for j < len(lx.src) && strings.IndexByte(" \t\n\r\f", lx.src[j]) >= 0 {
		newline = newline || lx.src[j] == '\n' || lx.src[j] == '\r'
		j++
	}
	if !newline || j >= len(lx.src) || lx.src[j] != '\'' {
		return false
	}
	lx.i = j + 1
	return true
}

// quotedIdent lexes "ident" with "" doubling; q is the opening quote.
func (lx *lexer) quotedIdent(start, q int) (Token, error) {
	var b strings.Builder
	lx.i = q + 1
	for {
		if lx.i >= len(lx.src) {
			return Token{}, lx.errAt(start, "unterminated quoted identifier at or near \"%s\"", lx.src[start:])
		}
		c := lx.src[lx.i]
		if c == '"' && lx.peekAt(lx.i+1) == '"' {
			b.WriteByte('"')
			lx.i += 2
			continue
		}
		if c == '"' {
			lx.i++
			if b.Len() == 0 {
				return Token{}, lx.errAt(start, "zero-length delimited identifier at or near \"%s\"", lx.src[start:lx.i])
			}
			return Token{Kind: TokQIdent, Val: b.String(), Pos: start, End: lx.i}, nil
		}
		b.WriteByte(c)
		lx.i++
	}
}

// dollar lexes $n parameters and $tag$...$tag$ strings.
func (lx *lexer) dollar(start int) (Token, error) {
	j := start + 1
	if isDigit(lx.peekAt(j)) {
		for isDigit(lx.peekAt(j)) {
			j++
		}
		lx.i = j
		return Token{Kind: TokParam, Val: lx.src[start+1 : j], Pos: start, End: j}, nil
	}
	for j < len(lx.src) && lx.src[j] != '$' && isIdentChar(lx.src[j]) && lx.src[j] != '$' {
		j++
	}
	if j >= len(lx.src) || lx.src[j] != '$' || (j > start+1 && isDigit(lx.src[start+1])) {
		lx.i = start + 1
		return Token{}, lx.errAt(start, "syntax error at or near \"$\"")
	}
	delim := lx.src[start : j+1]
	body := j + 1
	k := strings.Index(lx.src[body:], delim)
	if k < 0 {
		lx.i = len(lx.src)
		return Token{}, lx.errAt(start, "unterminated dollar-quoted string at or near \"%s\"", lx.src[start:])
	}
	lx.i = body + k + len(delim)
	return Token{Kind: TokString, Str: StrDollar, Val: lx.src[body : body+k], Pos: start, End: lx.i}, nil
}

func (lx *lexer) word(start int) Token {
	j := start
	for j < len(lx.src) && isIdentChar(lx.src[j]) {
		j++
	}
	lx.i = j
	return Token{Kind: TokIdent, Val: foldIdent(lx.src[start:j]), Pos: start, End: j}
}

// foldIdent lower-cases ASCII letters only, as PostgreSQL does for
// multi-byte encodings.
func foldIdent(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (lx *lexer) number(start int) Token {
	j := start
	for isDigit(lx.peekAt(j)) {
		j++
	}
	if lx.peekAt(j) == '.' && lx.peekAt(j+1) != '.' {
		j++
		for isDigit(lx.peekAt(j)) {
			j++
		}
	}
	if c := lx.peekAt(j); c == 'e' || c == 'E' {
		k := j + 1
		if s := lx.peekAt(k); s == '+' || s == '-' {
			k++
		}
		if isDigit(lx.peekAt(k)) {
			for isDigit(lx.peekAt(k)) {
				k++
			}
			j = k
		}
	}
	lx.i = j
	return Token{Kind: TokNumber, Val: lx.src[start:j], Pos: start, End: j}
}

// operator lexes a run of operator characters by PostgreSQL's rules: a run
// stops before a comment start, and a multi-character operator may end in +
// or - only if it contains one of ~ ! @ # % ^ & | ` ?.
func (lx *lexer) operator(start int) Token {
	j := start
	for j < len(lx.src) && isOpChar(lx.src[j]) {
		if j > start && ((lx.src[j] == '-' && lx.peekAt(j+1) == '-') || (lx.src[j] == '/' && lx.peekAt(j+1) == '*')) {
			break
		}
		j++
	}
	op := lx.src[start:j]
	if len(op) > 1 && !strings.ContainsAny(op, "~!@#%^&|`?") {
		for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') {
			op = op[:len(op)-1]
		}
	}
	lx.i = start + len(op)
	return Token{Kind: TokOp, Val: op, Pos: start, End: lx.i}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isOpChar(c byte) bool { return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0 }

// escape decodes one backslash escape of an E” string at lx.i.
func (lx *lexer) escape(b *strings.Builder, start int) error {
	lx.i++ // the backslash
	if lx.i >= len(lx.src) {
		return lx.errAt(start, "unterminated quoted string at or near \"%s\"", lx.src[start:])
	}
	c := lx.src[lx.i]
	lx.i++
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case 'x':
		return lx.codePoint(b, start, 2, 16, true)
	case 'u':
		return lx.codePoint(b, start, 4, 16, false)
	case 'U':
		return lx.codePoint(b, start, 8, 16, false)
	default:
		if c >= '0' && c <= '7' {
			lx.i--
			return lx.codePoint(b, start, 3, 8, true)
		}
		b.WriteByte(c)
	}
	return nil
}

// codePoint reads up to max digits (exactly max for \u and \U) in base and
// writes the value as a byte (asByte) or as a UTF-8 code point.
func (lx *lexer) codePoint(b *strings.Builder, start, max, base int, asByte bool) error {
	v, n := 0, 0
	for n < max && lx.i < len(lx.src) {
		d := digitVal(lx.src[lx.i])
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
		lx.i++
		n++
	}
	switch {
	case asByte && n == 0:
		b.WriteByte('x') // "\x" without digits is a plain x
	case asByte:
		b.WriteByte(byte(v))
	case n < max || !utf8.ValidRune(rune(v)) || v == 0:
		return &pgerr.Error{Code: pgerr.InvalidEscapeSequence, Message: "invalid Unicode escape value", Position: CharPos(lx.src, start)}
	default:
		b.WriteRune(rune(v))
	}
	return nil
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// pgReserved are PostgreSQL's reserved key words (and the type/function-name
// ones), which cannot be unquoted names.
var pgReserved = Words(`all analyse analyze and any array as asc asymmetric both case cast check collate
	column constraint create current_catalog current_date current_role current_time current_timestamp
	current_user default deferrable desc distinct do else end except false fetch for foreign from grant
	group having in initially intersect into lateral leading limit localtime localtimestamp not null
	offset on only or order placing primary references returning select session_user some symmetric
	table then to trailing true union unique user using variadic when where window with
	authorization binary collation concurrently cross freeze full ilike inner is isnull join left like
	natural notnull outer overlaps right similar tablesample verbose`)

// IsReserved reports a PostgreSQL reserved key word (or a type/function-name
// one), which cannot be an unquoted name.
func IsReserved(w string) bool { return pgReserved[w] }
