package sql

import "strings"

// Date/time input is read in two passes, as PostgreSQL documents in
// "Date/Time Input Interpretation": the string is first broken into fields
// (numbers, clock times, dates with separators, words, signed zones), then
// each field is given a meaning from its shape and from what came before it.
// This file is the first pass.

// dtKind is the shape of one lexed field.
type dtKind uint8

const (
	dtNumber dtKind = iota // digits, maybe one '.' (20240411, 10.5, .5)
	dtClock                // digits followed by ':' (10:00:00.5)
	dtDate                 // a field with '-', '/' or '.' separators, or a zone name
	dtWord                 // letters only (apr, thu, pm, utc)
	dtSigned               // '+' or '-' followed by a word (-infinity)
	dtZone                 // '+' or '-' followed by digits (+05:30)
)

// dtToken is one field: text is lower-cased, raw keeps the input's case so a
// zone name can be looked up in the time zone database.
type dtToken struct {
	kind dtKind
	text string
	raw  string
}

// Limits of PostgreSQL's field buffer: more fields, or more characters than
// fit, make the input invalid rather than being truncated.
const (
	dtMaxFields = 25
	dtMaxChars  = 128 + dtMaxFields
)

func dtAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func dtAlnum(c byte) bool { return isDigit(c) || dtAlpha(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func dtSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// dtPunct is C's ispunct in the C locale: printable ASCII that is neither a
// letter, a digit nor a space. Such characters between fields are skipped.
func dtPunct(c byte) bool { return c > ' ' && c < 0x7f && !dtAlnum(c) }

// lexDateTime splits s into fields; ok is false when a character cannot
// start a field or the input has too many fields.
func lexDateTime(s string) ([]dtToken, bool) {
	var toks []dtToken
	chars := 0
	for i := 0; i < len(s); {
		c := s[i]
		if dtSpace(c) {
			i++
			continue
		}
		var tok dtToken
		var end int
		switch {
		case isDigit(c):
			tok.kind, end = lexNumeric(s, i)
		case c == '.':
			tok.kind, end = dtNumber, scanWhile(s, i+1, isDigit)
		case dtAlpha(c):
			tok.kind, end = lexWord(s, i)
		case c == '+' || c == '-':
			var ok bool
			if tok, end, ok = lexSigned(s, i); !ok {
				return nil, false
			}
		case dtPunct(c):
			i++
			continue
		default:
			return nil, false
		}
		if tok.raw == "" {
			tok.raw = s[i:end]
		}
		tok.text = strings.ToLower(tok.raw)
		toks = append(toks, tok)
		chars += len(tok.raw) + 1
		if len(toks) > dtMaxFields || chars > dtMaxChars {
			return nil, false
		}
		i = end
	}
	return toks, true
}

func scanWhile(s string, i int, f func(byte) bool) int {
	for i < len(s) && f(s[i]) {
		i++
	}
	return i
}

// lexNumeric reads a field that starts with a digit: a clock time when the
// digits are followed by ':', a date when by a separator that repeats (or
// by a month name: 11-apr-2024), otherwise a number (one '.' is a fraction).
func lexNumeric(s string, i int) (dtKind, int) {
	i = scanWhile(s, i, isDigit)
	if i >= len(s) {
		return dtNumber, i
	}
	switch c := s[i]; c {
	case ':':
		return dtClock, scanWhile(s, i+1, func(b byte) bool { return isDigit(b) || b == ':' || b == '.' })
	case '-', '/', '.':
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return dtDate, scanWhile(s, i, func(b byte) bool { return dtAlnum(b) || b == c })
		}
		i = scanWhile(s, i, isDigit)
		if i < len(s) && s[i] == c {
			return dtDate, scanWhile(s, i, func(b byte) bool { return isDigit(b) || b == c })
		}
		if c == '.' {
			return dtNumber, i
		}
		return dtDate, i
	}
	return dtNumber, i
}

// lexWord reads letters. A word followed by a separator, or by a digit or
// '+' when it is not a known keyword, runs on as a date or zone name
// (apr-11-2024, America/New_York, Etc/GMT+5).
func lexWord(s string, i int) (dtKind, int) {
	start := i
	i = scanWhile(s, i, dtAlpha)
	if i >= len(s) {
		return dtWord, i
	}
	c := s[i]
	joined := c == '-' || c == '/' || c == '.'
	if !joined && (c == '+' || isDigit(c)) {
		_, known := dtKeywords[strings.ToLower(s[start:i])]
		joined = !known
	}
	if !joined {
		return dtWord, i
	}
	return dtDate, scanWhile(s, i+1, func(b byte) bool {
		return dtAlnum(b) || strings.IndexByte("+-/_.:", b) >= 0
	})
}

// lexSigned reads '+' or '-', optional spaces, then digits (a numeric zone)
// or letters (-infinity). The spaces are dropped from the field.
func lexSigned(s string, i int) (dtToken, int, bool) {
	sign := s[i]
	j := scanWhile(s, i+1, dtSpace)
	switch {
	case j < len(s) && isDigit(s[j]):
		end := scanWhile(s, j, func(b byte) bool { return isDigit(b) || b == ':' || b == '.' || b == '-' })
		return dtToken{kind: dtZone, raw: string(sign) + s[j:end]}, end, true
	case j < len(s) && dtAlpha(s[j]):
		end := scanWhile(s, j, dtAlpha)
		return dtToken{kind: dtSigned, raw: string(sign) + s[j:end]}, end, true
	}
	return dtToken{}, 0, false
}
