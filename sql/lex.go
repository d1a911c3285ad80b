package sql

import (
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// tokKind classifies a PostgreSQL lexical token.
type tokKind uint8

const (
	tkEOF    tokKind = iota
	tkIdent          // unquoted word; val is lower-cased
	tkQIdent         // "quoted identifier"; val is unescaped, case kept
	tkString         // any string constant; val is the decoded content
	tkNumber         // integer or decimal constant
	tkParam          // $n; val is n
	tkOp             // operator (PostgreSQL operator-character run)
	tkPunct          // ( ) [ ] , ; . : ::
)

// strKind tells which spelling a string constant had.
type strKind uint8

const (
	strStd     strKind = iota // 'x'
	strEscape                 // E'x'
	strDollar                 // $$x$$ / $tag$x$tag$
	strUnicode                // U&'x'
	strBit                    // B'0101'
	strHex                    // X'1F'
)

// token is one lexical token; pos/end are byte offsets into the full query.
type token struct {
	kind tokKind
	str  strKind
	val  string
	pos  int
	end  int
}

// is reports whether t is the unquoted word w (w lower case).
func (t token) is(w string) bool { return t.kind == tkIdent && t.val == w }

// isPunct reports whether t is the punctuation or operator p.
func (t token) isPunct(p string) bool {
	return (t.kind == tkPunct || t.kind == tkOp) && t.val == p
}

// lexer turns PostgreSQL text into tokens, dropping whitespace and comments.
type lexer struct {
	src string
	i   int
	// truncated are the notices of identifiers cut to maxIdentBytes.
	truncated []string
}

// lexAll tokenises the whole of src. The slice never includes tkEOF.
func lexAll(src string) ([]token, error) { return lexLimited(src, 0) }

// lexLimited lexes src, refusing with 54001 as soon as the expression
// nesting passes maxDepth (0: no limit), before a hostile query's millions
// of tokens are all built. AND/OR are not counted: chains of them are
// balanced later.
func lexLimited(src string, maxDepth int) ([]token, error) {
	lx := &lexer{src: src}
	var depth *depthCounter
	if maxDepth > 0 {
		depth = newDepthCounter(maxDepth, false)
	}
	// About one token per three bytes of SQL, to start: growing a slice
	// of millions of tokens from nothing dominated lexing huge IN lists. Capped,
	// as a long string literal is one token.
	toks := make([]token, 0, min(len(src)/3+1, 1<<16))
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		if t.kind == tkEOF {
			return toks, nil
		}
		if depth != nil && !depth.add(t.kind, t.val) {
			return nil, tooDeep(maxDepth)
		}
		toks = append(toks, t)
	}
}

func (lx *lexer) next() (token, error) {
	if err := lx.skipSpace(); err != nil {
		return token{}, err
	}
	if lx.i >= len(lx.src) {
		return token{kind: tkEOF, pos: len(lx.src), end: len(lx.src)}, nil
	}
	start := lx.i
	c := lx.src[start]
	switch {
	case c == '\'':
		return lx.quoted(start, start, strStd)
	case (c == 'e' || c == 'E') && lx.peekAt(start+1) == '\'':
		return lx.quoted(start, start+1, strEscape)
	case (c == 'b' || c == 'B') && lx.peekAt(start+1) == '\'':
		return lx.quoted(start, start+1, strBit)
	case (c == 'x' || c == 'X') && lx.peekAt(start+1) == '\'':
		return lx.quoted(start, start+1, strHex)
	case (c == 'u' || c == 'U') && lx.peekAt(start+1) == '&' && lx.peekAt(start+2) == '\'':
		return lx.quoted(start, start+2, strUnicode)
	case (c == 'u' || c == 'U') && lx.peekAt(start+1) == '&' && lx.peekAt(start+2) == '"':
		t, err := lx.quotedIdent(start, start+2)
		t.str = strUnicode
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
		return token{kind: tkPunct, val: "::", pos: start, end: lx.i}, nil
	case strings.IndexByte("()[],;.:", c) >= 0:
		lx.i++
		return token{kind: tkPunct, val: string(c), pos: start, end: lx.i}, nil
	case isOpChar(c):
		return lx.operator(start), nil
	}
	_, size := utf8.DecodeRuneInString(lx.src[start:])
	lx.i += size
	return token{}, lx.errAt(start, "syntax error at or near \"%s\"", lx.src[start:lx.i])
}

// maxIdentBytes is PostgreSQL's longest identifier (NAMEDATALEN - 1).
const maxIdentBytes = 63

// clipIdent truncates an identifier longer than maxIdentBytes at a
// character boundary, as PostgreSQL's lexer does, noting it. The
// "$files" of a metadata table's name is kept: the table's own name is
// what is truncated.
func (lx *lexer) clipIdent(t token) token {
	if (t.kind != tkIdent && t.kind != tkQIdent) || len(t.val) <= maxIdentBytes {
		return t
	}
	base, suffix := t.val, ""
	if i := strings.IndexByte(t.val, '$'); i > 0 {
		base, suffix = t.val[:i], t.val[i:]
	}
	if len(base) <= maxIdentBytes {
		return t
	}
	cut := maxIdentBytes
	for cut > 0 && !utf8.RuneStart(base[cut]) {
		cut--
	}
	clipped := base[:cut] + suffix
	lx.truncated = append(lx.truncated, `identifier "`+t.val+`" will be truncated to "`+clipped+`"`)
	t.val = clipped
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
		if err != nil || t.kind == tkEOF {
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
	e.Position = pgCharPos(lx.src, off)
	return e
}

// pgCharPos converts a byte offset to PostgreSQL's 1-based character position.
func pgCharPos(src string, off int) int {
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
func (lx *lexer) quoted(start, q int, kind strKind) (token, error) {
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
			return token{}, lx.errAt(start, "unterminated quoted string at or near \"%s\"", lx.src[start:])
		}
		c := lx.src[lx.i]
		switch {
		case c == '\'' && lx.peekAt(lx.i+1) == '\'':
			b.WriteByte('\'')
			lx.i += 2
		case c == '\'':
			lx.i++
			if !lx.continuation() {
				return token{kind: tkString, str: kind, val: b.String(), pos: start, end: lx.i}, nil
			}
		case c == '\\' && kind == strEscape:
			if err := lx.escape(&b, start); err != nil {
				return token{}, err
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
func (lx *lexer) quotedIdent(start, q int) (token, error) {
	var b strings.Builder
	lx.i = q + 1
	for {
		if lx.i >= len(lx.src) {
			return token{}, lx.errAt(start, "unterminated quoted identifier at or near \"%s\"", lx.src[start:])
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
				return token{}, lx.errAt(start, "zero-length delimited identifier at or near \"%s\"", lx.src[start:lx.i])
			}
			return token{kind: tkQIdent, val: b.String(), pos: start, end: lx.i}, nil
		}
		b.WriteByte(c)
		lx.i++
	}
}

// dollar lexes $n parameters and $tag$...$tag$ strings.
func (lx *lexer) dollar(start int) (token, error) {
	j := start + 1
	if isDigit(lx.peekAt(j)) {
		for isDigit(lx.peekAt(j)) {
			j++
		}
		lx.i = j
		return token{kind: tkParam, val: lx.src[start+1 : j], pos: start, end: j}, nil
	}
	for j < len(lx.src) && lx.src[j] != '$' && isIdentChar(lx.src[j]) && lx.src[j] != '$' {
		j++
	}
	if j >= len(lx.src) || lx.src[j] != '$' || (j > start+1 && isDigit(lx.src[start+1])) {
		lx.i = start + 1
		return token{}, lx.errAt(start, "syntax error at or near \"$\"")
	}
	delim := lx.src[start : j+1]
	body := j + 1
	k := strings.Index(lx.src[body:], delim)
	if k < 0 {
		lx.i = len(lx.src)
		return token{}, lx.errAt(start, "unterminated dollar-quoted string at or near \"%s\"", lx.src[start:])
	}
	lx.i = body + k + len(delim)
	return token{kind: tkString, str: strDollar, val: lx.src[body : body+k], pos: start, end: lx.i}, nil
}

func (lx *lexer) word(start int) token {
	j := start
	for j < len(lx.src) && isIdentChar(lx.src[j]) {
		j++
	}
	lx.i = j
	return token{kind: tkIdent, val: foldIdent(lx.src[start:j]), pos: start, end: j}
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

func (lx *lexer) number(start int) token {
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
	return token{kind: tkNumber, val: lx.src[start:j], pos: start, end: j}
}

// operator lexes a run of operator characters by PostgreSQL's rules: a run
// stops before a comment start, and a multi-character operator may end in +
// or - only if it contains one of ~ ! @ # % ^ & | ` ?.
func (lx *lexer) operator(start int) token {
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
	return token{kind: tkOp, val: op, pos: start, end: lx.i}
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
		return &pgerr.Error{Code: pgerr.InvalidEscapeSequence, Message: "invalid Unicode escape value", Position: pgCharPos(lx.src, start)}
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
