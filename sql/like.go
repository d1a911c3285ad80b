package sql

import (
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// likePattern is a compiled LIKE pattern: runes with wildcard flags.
type likePattern struct {
	// segs, when set, are the literal runs between the %s of a pattern of
	// literals and %s only (LIKE, not ILIKE): such a pattern matches by
	// substring search on the bytes, no rune slice per value.
	segs  []string
	runes []rune
	// kind is 'l' literal, '%' any sequence, '_' one character, or 'e' for
	// a trailing escape, an error only when matching reaches it with text
	// left (PostgreSQL's MatchText: '' LIKE 'a\' is false, 'ab' is 22025).
	kind []byte
}

// compileLike reads pattern with escape ("" disables escaping), as
// PostgreSQL: an escape before any character makes it literal.
func compileLike(pattern, escape string, fold bool) (*likePattern, error) {
	var esc rune = -1
	if escape != "" {
		if utf8.RuneCountInString(escape) != 1 {
			return nil, pgerr.Errorf(pgerr.InvalidEscapeSequence, "invalid escape string")
		}
		esc, _ = utf8.DecodeRuneInString(escape)
	}
	p := &likePattern{}
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == esc:
			if i+1 >= len(rs) {
				p.add(c, 'e')
				break
			}
			i++
			p.add(foldRune(rs[i], fold), 'l')
		case c == '%':
			if n := len(p.kind); n == 0 || p.kind[n-1] != '%' {
				p.add(c, '%')
			}
		case c == '_':
			p.add(c, '_')
		default:
			p.add(foldRune(c, fold), 'l')
		}
	}
	if !fold {
		p.segs = p.segments()
	}
	return p, nil
}

// segments are the literal runs around the %s; nil when the pattern has
// another kind of element.
func (p *likePattern) segments() []string {
	segs := []string{""}
	for i, k := range p.kind {
		switch k {
		case 'l':
			segs[len(segs)-1] += string(p.runes[i])
		case '%':
			segs = append(segs, "")
		default:
			return nil
		}
	}
	return segs
}

// matchSegments matches s against literal runs separated by %s: the first
// a prefix, the last a suffix, those between found in order, each leftmost
// (with only %s between them, the leftmost place never loses a match).
func matchSegments(s string, segs []string) bool {
	if len(segs) == 1 {
		return s == segs[0]
	}
	if !strings.HasPrefix(s, segs[0]) {
		return false
	}
	s = s[len(segs[0]):]
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return strings.HasSuffix(s, segs[len(segs)-1])
}

func (p *likePattern) add(r rune, k byte) {
	p.runes = append(p.runes, r)
	p.kind = append(p.kind, k)
}

// foldRune lowers ASCII letters only: ILIKE under the C collation.
func foldRune(r rune, fold bool) rune {
	if fold && r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// match is the classic wildcard walk: on a mismatch, retry from the last %
// with one more character consumed by it.
func (p *likePattern) match(s string, fold bool) (bool, error) {
	if p.segs != nil && !fold {
		return matchSegments(s, p.segs), nil
	}
	text := []rune(s)
	ti, pi := 0, 0
	starP, starT := -1, 0
	for ti < len(text) {
		if pi < len(p.kind) {
			switch p.kind[pi] {
			case '%':
				starP, starT = pi, ti
				pi++
				continue
			case '_':
				ti, pi = ti+1, pi+1
				continue
			case 'e':
				return false, pgerr.Errorf(pgerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
			default:
				if foldRune(text[ti], fold) == p.runes[pi] {
					ti, pi = ti+1, pi+1
					continue
				}
			}
		}
		if starP < 0 {
			return false, nil
		}
		starT++
		ti, pi = starT, starP+1
	}
	for pi < len(p.kind) && p.kind[pi] == '%' {
		pi++
	}
	return pi == len(p.kind), nil
}

func (ev *evaluator) evalLike(x *Like, sel []int, out []any) ([]any, error) {
	vals, err := ev.eval(x.X, sel)
	if err != nil {
		return nil, err
	}
	pats, err := ev.eval(x.Pattern, sel)
	if err != nil {
		return nil, err
	}
	var cached *likePattern
	cachedSrc := ""
	// char(n) LIKE matches the blank-padded value, as PostgreSQL's bpcharlike.
	xt := x.X.Type()
	for _, i := range sel {
		if vals[i] == nil || pats[i] == nil {
			continue
		}
		v := vals[i].(string)
		if xt.Bpchar {
			v = string(AppendBpchar(nil, v, xt.Length))
		}
		src := pats[i].(string)
		if cached == nil || src != cachedSrc {
			if cached, err = compileLike(src, x.Escape, x.ILike); err != nil {
				return nil, err
			}
			cachedSrc = src
		}
		m, err := cached.match(v, x.ILike)
		if err != nil {
			return nil, err
		}
		out[i] = m != x.Not
	}
	return out, nil
}

// dangling reports a pattern that ends with its escape character.
func (p *likePattern) dangling() bool {
	return len(p.kind) > 0 && p.kind[len(p.kind)-1] == 'e'
}

// likePrefix is the literal prefix of a compiled pattern and whether the
// pattern is exactly that prefix followed by one %.
func (p *likePattern) likePrefix() (string, bool) {
	i := 0
	for i < len(p.kind) && p.kind[i] == 'l' {
		i++
	}
	prefix := string(p.runes[:i])
	return prefix, i == len(p.kind)-1 && p.kind[i] == '%'
}
