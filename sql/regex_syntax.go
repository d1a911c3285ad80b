package sql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// PostgreSQL's regular expressions are Henry Spencer's "advanced" REs
// (AREs); Go's regexp is RE2. pgRegex rewrites an ARE into RE2 syntax with
// the meaning PostgreSQL gives it under the C locale: '.' matches a
// newline, \s includes \v, classes and case-insensitivity are ASCII only,
// \y is a word boundary, \Z the end of the string. What RE2 cannot express
// (back references, lookaround, \m and \M) is refused with 0A000.

// regexFlags are the options of a regular expression (the flags argument
// or embedded (?...) options).
type regexFlags struct {
	icase   bool // i
	newline bool // n, m: '.' and [^...] stop at newlines, ^ and $ match at them
	literal bool // q: the pattern is a literal string
	expand  bool // x: whitespace and #-comments are ignored
	global  bool // g (regexp_replace only)
}

// parseRegexFlags reads a flags argument as PostgreSQL's parse_re_flags.
func parseRegexFlags(s string) (regexFlags, error) {
	var f regexFlags
	for _, c := range s {
		switch c {
		case 'g':
			f.global = true
		case 'i':
			f.icase = true
		case 'c':
			f.icase = false
		case 'n', 'm':
			f.newline = true
		case 's':
			f.newline = false
		case 'q':
			f.literal = true
		case 'x':
			f.expand = true
		case 't':
			f.expand = false
		case 'b', 'e', 'p', 'w':
			return f, pgerr.Errorf(pgerr.FeatureNotSupported, "regular expression option %q is not supported", string(c))
		default:
			return f, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid regular expression option: %q", string(c))
		}
	}
	return f, nil
}

func badRegex(reason string) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidRegularExpression, "invalid regular expression: %s", reason)
}

func regexUnsupported(what string) *pgerr.Error {
	return pgerr.Errorf(pgerr.FeatureNotSupported, "regular expressions with %s are not supported", what)
}

// pgRegexp is a compiled ARE; context says a match's surroundings decide
// it (see reTranslator.context).
type pgRegexp struct {
	re      *regexp.Regexp
	context bool
}

// compilePGRegex compiles an ARE with flags. Matching is leftmost-longest,
// as PostgreSQL's is for a greedy RE, unless the pattern has a non-greedy
// quantifier (then RE2's leftmost-first preference is the nearer one).
func compilePGRegex(pat string, f regexFlags) (*pgRegexp, error) {
	src, t, err := translateRegex(pat, f)
	if err != nil {
		return nil, err
	}
	re, cerr := regexp.Compile(src)
	if cerr != nil {
		return nil, badRegex(re2Reason(cerr))
	}
	if !t.lazy {
		re.Longest()
	}
	return &pgRegexp{re: re, context: t.context || t.f.newline}, nil
}

// re2Reason words an RE2 syntax error as PostgreSQL's regerror would.
func re2Reason(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "missing closing )"), strings.Contains(msg, "unexpected )"):
		return "parentheses () not balanced"
	case strings.Contains(msg, "missing closing ]"):
		return "brackets [] not balanced"
	case strings.Contains(msg, "missing argument to repetition operator"), strings.Contains(msg, "invalid nested repetition"):
		return "quantifier operand invalid"
	case strings.Contains(msg, "invalid repeat count"):
		return "invalid repetition count(s)"
	case strings.Contains(msg, "invalid character class range"):
		return "invalid character range"
	case strings.Contains(msg, "invalid escape"):
		return "invalid escape \\ sequence"
	}
	return "invalid regular expression"
}

// translateRegex is the RE2 source for pat, and the translator's findings.
func translateRegex(pat string, f regexFlags) (string, *reTranslator, error) {
	switch {
	case strings.HasPrefix(pat, "***="):
		f.literal, pat = true, pat[4:]
	case strings.HasPrefix(pat, "***:"):
		pat = pat[4:]
	}
	if f.literal {
		var b strings.Builder
		for _, r := range pat {
			writeLiteral(&b, r, f.icase)
		}
		return flagPrefix(f) + b.String(), &reTranslator{}, nil
	}
	pat, err := embeddedOptions(pat, &f)
	if err != nil {
		return "", nil, err
	}
	t := &reTranslator{src: pat, f: f}
	if err := t.run(); err != nil {
		return "", nil, err
	}
	return flagPrefix(f) + t.out.String(), t, nil
}

func flagPrefix(f regexFlags) string {
	if f.newline {
		return "(?m)"
	}
	return "(?s)"
}

// embeddedOptions strips a leading (?flags) and applies it.
func embeddedOptions(pat string, f *regexFlags) (string, error) {
	if !strings.HasPrefix(pat, "(?") {
		return pat, nil
	}
	end := strings.IndexByte(pat, ')')
	if end < 0 || !isFlagLetters(pat[2:end]) {
		return pat, nil
	}
	g := f.global
	nf, err := parseRegexFlags(pat[2:end])
	if err != nil || strings.Contains(pat[2:end], "g") {
		return "", badRegex("invalid embedded option")
	}
	nf.icase = nf.icase || f.icase && !strings.Contains(pat[2:end], "c")
	nf.newline = nf.newline || f.newline && !strings.Contains(pat[2:end], "s")
	nf.global = g
	*f = nf
	return pat[end+1:], nil
}

func isFlagLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("bcegimnpqstwx", c) {
			return false
		}
	}
	return true
}

// reTranslator walks an ARE once, writing RE2 syntax.
type reTranslator struct {
	src  string
	i    int
	f    regexFlags
	out  strings.Builder
	lazy bool
	// context: an assertion that looks before the match (^, \y, \Y, \A),
	// so a match cannot be searched for in a suffix of the string alone
	context bool
}

func (t *reTranslator) run() error {
	depth := 0
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch {
		case t.f.expand && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'):
			t.i++
		case t.f.expand && c == '#':
			for t.i < len(t.src) && t.src[t.i] != '\n' {
				t.i++
			}
		case c == '\\':
			if err := t.escape(); err != nil {
				return err
			}
		case c == '[':
			if err := t.bracket(); err != nil {
				return err
			}
		case c == '(':
			if err := t.group(); err != nil {
				return err
			}
			depth++
		case c == ')':
			if depth == 0 {
				return badRegex("parentheses () not balanced")
			}
			depth--
			t.emit(")")
		case c == '*' || c == '+' || c == '?':
			t.quantifier(string(c))
		case c == '{':
			if err := t.bound(); err != nil {
				return err
			}
		case c == '^':
			t.context = true
			t.emit("^")
		case c == '.' || c == '$' || c == '|':
			t.emit(string(c))
		default:
			r, n := utf8.DecodeRuneInString(t.src[t.i:])
			writeLiteral(&t.out, r, t.f.icase)
			t.i += n
		}
	}
	if depth != 0 {
		return badRegex("parentheses () not balanced")
	}
	return nil
}

func (t *reTranslator) emit(s string) {
	t.out.WriteString(s)
	t.i++
}

// quantifier copies *, + or ? and a following ? (non-greedy).
func (t *reTranslator) quantifier(q string) {
	t.emit(q)
	if t.i < len(t.src) && t.src[t.i] == '?' {
		t.lazy = true
		t.emit("?")
	}
}

// bound is {m}, {m,} or {m,n}: PostgreSQL allows counts up to 255.
func (t *reTranslator) bound() error {
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 0 {
		t.out.WriteString(`\{`)
		t.i++
		return nil
	}
	body := t.src[t.i+1 : t.i+end]
	if body == "" || !isDigit(body[0]) {
		// not a bound: a literal brace, as in PostgreSQL
		t.out.WriteString(`\{`)
		t.i++
		return nil
	}
	lo, hi, comma := body, "", false
	if k := strings.IndexByte(body, ','); k >= 0 {
		lo, hi, comma = body[:k], body[k+1:], true
	}
	m, err1 := strconv.Atoi(lo)
	n, err2 := strconv.Atoi(hi)
	switch {
	case err1 != nil || (hi != "" && err2 != nil):
		return badRegex("invalid repetition count(s)")
	case m > 255 || (hi != "" && (n > 255 || n < m)):
		return badRegex("invalid repetition count(s)")
	}
	s := "{" + lo
	if comma {
		s += "," + hi
	}
	t.out.WriteString(s + "}")
	t.i += end + 1
	if t.i < len(t.src) && t.src[t.i] == '?' {
		t.lazy = true
		t.emit("?")
	}
	return nil
}

// group is ( or (?: ; lookaround is refused.
func (t *reTranslator) group() error {
	rest := t.src[t.i:]
	switch {
	case strings.HasPrefix(rest, "(?:"):
		t.out.WriteString("(?:")
		t.i += 3
	case strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!") ||
		strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!"):
		return regexUnsupported("lookahead or lookbehind constraints")
	case strings.HasPrefix(rest, "(?"):
		return badRegex("quantifier operand invalid")
	default:
		t.emit("(")
	}
	return nil
}

// escape translates a backslash sequence outside brackets.
func (t *reTranslator) escape() error {
	if t.i+1 >= len(t.src) {
		return badRegex("invalid escape \\ sequence")
	}
	c := t.src[t.i+1]
	switch c {
	case 'd', 'D', 'w', 'W':
		t.out.WriteString(`\` + string(c))
	case 's':
		t.out.WriteString(`[\t\n\v\f\r ]`)
	case 'S':
		t.out.WriteString(`[^\t\n\v\f\r ]`)
	case 'y', 'Y', 'A':
		t.context = true
		t.out.WriteString(map[byte]string{'y': `\b`, 'Y': `\B`, 'A': `\A`}[c])
	case 'Z':
		t.out.WriteString(`\z`)
	case 'm', 'M':
		return regexUnsupported(`\m or \M word constraints`)
	default:
		if c >= '1' && c <= '9' {
			if int(c-'0') > strings.Count(t.src[:t.i], "(")-strings.Count(t.src[:t.i], "(?") {
				return badRegex("invalid backreference number")
			}
			return regexUnsupported("back references")
		}
		r, n, err := t.charEscape(t.i + 1)
		if err != nil {
			return err
		}
		writeLiteral(&t.out, r, t.f.icase)
		t.i += 1 + n
		return nil
	}
	t.i += 2
	return nil
}

// charEscape reads the character an escape stands for (\n, \x41, \., ...)
// starting after the backslash at j; n is how many bytes it took.
func (t *reTranslator) charEscape(j int) (rune, int, error) {
	c := t.src[j]
	simple := map[byte]rune{'a': 7, 'b': 8, 'B': '\\', 'e': 27, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}
	if r, ok := simple[c]; ok {
		return r, 1, nil
	}
	switch c {
	case 'x', 'u', 'U':
		maxDigits := map[byte]int{'x': 8, 'u': 4, 'U': 8}[c]
		k := j + 1
		for k < len(t.src) && k-j-1 < maxDigits && isHexDigit(t.src[k]) {
			k++
		}
		if k == j+1 || (c != 'x' && k-j-1 != maxDigits) {
			return 0, 0, badRegex("invalid escape \\ sequence")
		}
		v, _ := strconv.ParseUint(t.src[j+1:k], 16, 32)
		if v > utf8.MaxRune || v == 0 {
			return 0, 0, badRegex("invalid escape \\ sequence")
		}
		return rune(v), k - j, nil
	case 'c':
		if j+1 >= len(t.src) {
			return 0, 0, badRegex("invalid escape \\ sequence")
		}
		return rune(t.src[j+1] & 0x1f), 2, nil
	case '0':
		return 0, 0, badRegex("invalid escape \\ sequence")
	}
	r, n := utf8.DecodeRuneInString(t.src[j:])
	if r < utf8.RuneSelf && (isDigit(byte(r)) || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return 0, 0, badRegex("invalid escape \\ sequence")
	}
	return r, n, nil
}

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// writeLiteral writes one literal character; case-insensitively an ASCII
// letter becomes a class of both cases (non-ASCII letters do not fold in
// the C locale).
func writeLiteral(b *strings.Builder, r rune, icase bool) {
	if icase && isASCIILetter(r) {
		fmt.Fprintf(b, "[%c%c]", r|0x20, r&^0x20)
		return
	}
	b.WriteString(regexp.QuoteMeta(string(r)))
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
