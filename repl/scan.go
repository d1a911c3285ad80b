package repl

import "strings"

// lexState is where a partial input buffer ends, in psql's terms. It picks the
// continuation prompt and tells a backslash at line start from one inside a
// literal.
type lexState byte

const (
	lexNormal  lexState = '-' // between tokens, maybe inside an unfinished statement
	lexQuote   lexState = '\''
	lexIdent   lexState = '"'
	lexDollar  lexState = '$'
	lexComment lexState = '*'
	lexParen   lexState = '('
)

// scanResult is what scanStatements found in a buffer.
type scanResult struct {
	// stmts are the complete statements, each from its first non-blank
	// character through its terminating ';'. Statements holding nothing but
	// blanks and comments are dropped, as the server would answer them with
	// EmptyQueryResponse.
	stmts []string
	// rest is the unterminated tail, to be completed by more input.
	rest string
	// state is the lexical state at the end of rest.
	state lexState
	// restHasToken reports whether rest holds more than blanks and comments.
	restHasToken bool
}

// scanStatements cuts buf at every ';' that PostgreSQL's lexer would see as a
// statement terminator, following psql: not inside '...', E'...', "...",
// $tag$...$tag$, -- or nested /* */ comments, nor inside parentheses.
func scanStatements(buf string) scanResult {
	var res scanResult
	sc := stmtScanner{src: buf, inside: lexNormal}
	start := 0
	for {
		end, ok := sc.nextTerminator()
		if !ok {
			break
		}
		if sc.hasToken {
			res.stmts = append(res.stmts, strings.TrimLeft(buf[start:end+1], " \t\r\n\f"))
		}
		start = end + 1
		sc.hasToken = false
	}
	res.rest = buf[start:]
	res.state = sc.state()
	res.restHasToken = sc.hasToken
	return res
}

// stmtScanner walks src once; pos only moves forward.
type stmtScanner struct {
	src      string
	pos      int
	depth    int      // parenthesis depth
	inside   lexState // lexNormal unless stopped inside a literal or comment
	comments int      // block comment nesting when inside == lexComment
	hasToken bool     // the current statement has a non-comment token
	// safe is the last point after a blank between tokens: scanning can
	// resume there with more input (inputBuffer).
	safe scanMark
}

// scanMark is a resumable point of a scan.
type scanMark struct {
	pos, depth int
	hasToken   bool
}

func (s *stmtScanner) markSafe() { s.safe = scanMark{pos: s.pos, depth: s.depth, hasToken: s.hasToken} }

func (s *stmtScanner) state() lexState {
	if s.inside != lexNormal {
		return s.inside
	}
	if s.depth > 0 {
		return lexParen
	}
	return lexNormal
}

// nextTerminator returns the offset of the next top-level ';'.
func (s *stmtScanner) nextTerminator() (int, bool) {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			s.pos++
			s.markSafe()
		case c == '-' && s.peek(1) == '-':
			s.skipLineComment()
			if s.pos > 0 && s.src[s.pos-1] == '\n' {
				s.markSafe()
			}
		case c == '/' && s.peek(1) == '*':
			s.pos += 2
			s.comments = 1
			if !s.skipBlockComment() {
				return 0, false
			}
		case c == '\'':
			s.hasToken = true
			escapes := s.escapesAt()
			s.pos++
			if !s.skipQuoted('\'', escapes) {
				s.inside = lexQuote
				return 0, false
			}
		case c == '"':
			s.hasToken = true
			s.pos++
			if !s.skipQuoted('"', false) {
				s.inside = lexIdent
				return 0, false
			}
		case c == '$':
			s.hasToken = true
			if !s.dollar() {
				return 0, false
			}
		case isIdentStart(c):
			s.hasToken = true
			for s.pos < len(s.src) && isIdentChar(s.src[s.pos]) {
				s.pos++
			}
		case c == '(':
			s.hasToken = true
			s.depth++
			s.pos++
		case c == ')':
			s.hasToken = true
			if s.depth > 0 {
				s.depth--
			}
			s.pos++
		case c == ';':
			s.pos++
			if s.depth == 0 {
				return s.pos - 1, true
			}
		default:
			s.hasToken = true
			s.pos++
		}
	}
	return 0, false
}

// escapesAt reports whether the quote at pos opens an E'...' string.
func (s *stmtScanner) escapesAt() bool {
	return s.pos > 0 && (s.src[s.pos-1] == 'E' || s.src[s.pos-1] == 'e') &&
		(s.pos == 1 || !isIdentChar(s.src[s.pos-2]))
}

// skipToken moves past the token at pos: a literal or comment whole (to
// the end of src if unclosed), else one word or character. It walks text
// known to start between tokens (a complete statement, one line).
func (s *stmtScanner) skipToken() {
	switch c := s.src[s.pos]; {
	case c == '-' && s.peek(1) == '-':
		s.skipLineComment()
	case c == '/' && s.peek(1) == '*':
		s.pos += 2
		s.comments = 1
		s.skipBlockComment()
	case c == '\'':
		escapes := s.escapesAt()
		s.pos++
		s.skipQuoted('\'', escapes)
	case c == '"':
		s.pos++
		s.skipQuoted('"', false)
	case c == '$':
		s.dollar()
	case isIdentStart(c):
		for s.pos < len(s.src) && isIdentChar(s.src[s.pos]) {
			s.pos++
		}
	default:
		s.pos++
	}
	s.pos = min(s.pos, len(s.src))
}

// metaStart is the offset of line's first backslash outside literals and
// comments (a command after SQL on one line: SELECT 1 \gx), or -1.
func metaStart(line string) int {
	sc := stmtScanner{src: line}
	for sc.pos < len(line) {
		if line[sc.pos] == '\\' {
			return sc.pos
		}
		sc.skipToken()
	}
	return -1
}

func (s *stmtScanner) peek(n int) byte {
	if s.pos+n < len(s.src) {
		return s.src[s.pos+n]
	}
	return 0
}

func (s *stmtScanner) skipLineComment() {
	nl := strings.IndexByte(s.src[s.pos:], '\n')
	if nl < 0 {
		s.pos = len(s.src)
		return
	}
	s.pos += nl + 1
}

// skipBlockComment consumes up to the close of the outermost comment;
// PostgreSQL block comments nest.
func (s *stmtScanner) skipBlockComment() bool {
	for s.pos < len(s.src) {
		switch {
		case s.src[s.pos] == '/' && s.peek(1) == '*':
			s.comments++
			s.pos += 2
		case s.src[s.pos] == '*' && s.peek(1) == '/':
			s.comments--
			s.pos += 2
			if s.comments == 0 {
				return true
			}
		default:
			s.pos++
		}
	}
	s.inside = lexComment
	return false
}

// skipQuoted consumes through the closing quote; a doubled quote is a quote
// character, and with escapes a backslash protects the next byte.
func (s *stmtScanner) skipQuoted(q byte, escapes bool) bool {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case escapes && c == '\\':
			s.pos += 2
		case c == q && s.peek(1) == q:
			s.pos += 2
		case c == q:
			s.pos++
			return true
		default:
			s.pos++
		}
	}
	return false
}

// dollar handles '$' at pos: a dollar-quoted string ($$...$$, $tag$...$tag$)
// or anything else ($1 parameters). It reports false when the input ends
// inside a dollar-quoted string.
func (s *stmtScanner) dollar() bool {
	end := s.pos + 1
	for end < len(s.src) && isIdentChar(s.src[end]) && s.src[end] != '$' {
		end++
	}
	tagBody := s.src[s.pos+1 : end]
	if end >= len(s.src) || s.src[end] != '$' || (tagBody != "" && !isIdentStart(tagBody[0])) {
		s.pos++ // a parameter or a lone '$'
		return true
	}
	tag := s.src[s.pos : end+1]
	closeAt := strings.Index(s.src[end+1:], tag)
	if closeAt < 0 {
		s.pos = len(s.src)
		s.inside = lexDollar
		return false
	}
	s.pos = end + 1 + closeAt + len(tag)
	return true
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

// isIdentChar includes '$', which PostgreSQL allows inside identifiers; this
// keeps "a$b$" from opening a dollar quote.
func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}
