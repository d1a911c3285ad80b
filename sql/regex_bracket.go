package sql

import (
	"strings"
	"unicode/utf8"
)

// Bracket expressions of an ARE: [abc], [^a-z], [[:alpha:]], with ARE
// escapes inside. RE2's brackets take the same classes; a case-insensitive
// RE adds each ASCII letter's other case, and a newline-sensitive one
// keeps a negated bracket from matching a newline, as PostgreSQL does.

var bracketClasses = map[string]bool{
	"alnum": true, "alpha": true, "blank": true, "cntrl": true, "digit": true, "graph": true,
	"lower": true, "print": true, "punct": true, "space": true, "upper": true, "xdigit": true,
}

// bracket translates the bracket expression at t.i.
func (t *reTranslator) bracket() error {
	j := t.i + 1
	var b strings.Builder
	b.WriteByte('[')
	if j < len(t.src) && t.src[j] == '^' {
		b.WriteByte('^')
		if t.f.newline {
			b.WriteString(`\n`)
		}
		j++
	}
	first := true
	for {
		if j >= len(t.src) {
			return badRegex("brackets [] not balanced")
		}
		c := t.src[j]
		if c == ']' && !first {
			break
		}
		first = false
		lo, n, class, err := t.bracketItem(j)
		if err != nil {
			return err
		}
		j += n
		if class != "" {
			b.WriteString(class)
			continue
		}
		hi := lo
		if j+1 < len(t.src) && t.src[j] == '-' && t.src[j+1] != ']' {
			var hclass string
			hi, n, hclass, err = t.bracketItem(j + 1)
			if err != nil {
				return err
			}
			if hclass != "" || hi < lo {
				return badRegex("invalid character range")
			}
			j += 1 + n
		}
		writeRange(&b, lo, hi, t.f.icase)
	}
	b.WriteByte(']')
	t.out.WriteString(b.String())
	t.i = j + 1
	return nil
}

// bracketItem reads one element at j: a character (r), or a class written
// in RE2 syntax; n is its length in the pattern.
func (t *reTranslator) bracketItem(j int) (r rune, n int, class string, err error) {
	rest := t.src[j:]
	switch {
	case strings.HasPrefix(rest, "[:"):
		end := strings.Index(rest[2:], ":]")
		if end < 0 || !bracketClasses[rest[2:2+end]] {
			return 0, 0, "", badRegex("invalid character class")
		}
		name := rest[2 : 2+end]
		if t.f.icase && (name == "lower" || name == "upper") {
			name = "alpha"
		}
		return 0, end + 4, "[:" + name + ":]", nil
	case strings.HasPrefix(rest, "[.") || strings.HasPrefix(rest, "[="):
		return 0, 0, "", regexUnsupported("collating elements or equivalence classes")
	case rest[0] == '\\' && len(rest) > 1:
		switch rest[1] {
		case 'd':
			return 0, 2, "0-9", nil
		case 'w':
			return 0, 2, "0-9A-Za-z_", nil
		case 's':
			return 0, 2, `\t\n\v\f\r `, nil
		case 'D', 'W', 'S':
			return 0, 0, "", badRegex("invalid escape \\ sequence")
		}
		r, n, err := t.charEscape(j + 1)
		return r, n + 1, "", err
	}
	r, n = utf8.DecodeRuneInString(rest)
	return r, n, "", nil
}

// writeRange writes lo-hi (or one character) quoted for an RE2 bracket,
// with the ASCII letters' other case when icase.
func writeRange(b *strings.Builder, lo, hi rune, icase bool) {
	quote := func(r rune) string {
		if strings.ContainsRune(`\]^-[`, r) {
			return `\` + string(r)
		}
		if r < ' ' || r == 0x7f {
			return `\x{` + strings.ToUpper(string("0123456789abcdef"[r>>4])+string("0123456789abcdef"[r&15])) + `}`
		}
		return string(r)
	}
	if lo == hi {
		b.WriteString(quote(lo))
	} else {
		b.WriteString(quote(lo) + "-" + quote(hi))
	}
	if !icase {
		return
	}
	for _, span := range [][2]rune{{'a', 'z'}, {'A', 'Z'}} {
		l, h := max(lo, span[0]), min(hi, span[1])
		if l <= h {
			b.WriteString(quote(l^0x20) + "-" + quote(h^0x20))
		}
	}
}
