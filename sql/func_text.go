package sql

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// textFuncs are PostgreSQL's string functions beyond the basic ones, each
// with its argument kinds ('t' text, 'i' integer, 'a' any) and result type;
// a trailing optional argument is marked with '?'.
var textFuncs = map[string]struct {
	args string
	ret  Type
}{
	"replace":       {"ttt", Text},
	"quote_ident":   {"t", Text},
	"quote_literal": {"a", Text},
	"reverse":       {"t", Text},
	"md5":           {"t", Text},
	"initcap":       {"t", Text},
	"ascii":         {"t", Int32},
	"chr":           {"i", Text},
	"repeat":        {"ti", Text},
	"left":          {"ti", Text},
	"right":         {"ti", Text},
	"lpad":          {"tit?", Text},
	"rpad":          {"tit?", Text},
	"strpos":        {"tt", Int32},
	"split_part":    {"tti", Text},
	"starts_with":   {"tt", Bool},
}

// bindText binds the string functions; ok is false for other names.
func (b *binder) bindText(name string, args []Expr) (Expr, bool, error) {
	switch name {
	case "__concat": // the function; "concat" is tidb's ||
		e, err := b.bindVariadicText("concat", args)
		return e, true, err
	case "concat":
		e, err := b.bindPipes(args)
		return e, true, err
	case "concat_ws", "format":
		e, err := b.bindVariadicText(name, args)
		return e, true, err
	}
	f, ok := textFuncs[name]
	if !ok {
		return nil, false, nil
	}
	required := strings.Count(f.args, "?")
	kinds := strings.ReplaceAll(f.args, "?", "")
	if len(args) > len(kinds) || len(args) < len(kinds)-required {
		return nil, true, noFunction(name, args)
	}
	for i, a := range args {
		// Types first, so that a 42883 names the arguments as written.
		switch k := a.Type().Kind; {
		case k == KindUnknown:
		case kinds[i] == 't' && !a.Type().IsString(), kinds[i] == 'i' && k != KindInt16 && k != KindInt32:
			return nil, true, noFunction(name, args)
		}
	}
	for i := range args {
		var err error
		switch kinds[i] {
		case 't':
			err = b.textArgs(name, args[i:i+1])
		case 'i':
			err = b.intArg(name, args, i)
		case 'a':
			args[i], err = b.anyAsText(args[i])
		}
		if err != nil {
			return nil, true, err
		}
	}
	return &Func{Name: name, Args: args, T: f.ret}, true, nil
}

// bindPipes binds a || b || ...: NULL when any operand is.
func (b *binder) bindPipes(args []Expr) (Expr, error) {
	if len(args) < 2 {
		return nil, noFunction("concat", args)
	}
	e := args[0]
	for _, a := range args[1:] {
		var err error
		if e, err = b.bindConcat(e, a); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// bindVariadicText binds concat(any...), concat_ws(text, any...) and
// format(text, any...): the leading text argument (concat_ws, format) must be
// text; the others may be of any type, untyped ones read as text.
func (b *binder) bindVariadicText(name string, args []Expr) (Expr, error) {
	if len(args) == 0 || name == "concat_ws" && len(args) == 1 {
		return nil, noFunction(name, args)
	}
	rest := args
	if name != "concat" {
		if err := b.textArgs(name, args[:1]); err != nil {
			return nil, err
		}
		rest = args[1:]
	}
	for i := range rest {
		if isUnknown(rest[i]) {
			c, err := b.coerceUnknown(rest[i], Text)
			if err != nil {
				return nil, err
			}
			rest[i] = c
		}
	}
	regsAsText(rest)
	return &Func{Name: name, Args: args, T: Text}, nil
}

// regsAsText casts reg* arguments to text for the functions that print any
// value by its output function: a reg* value prints as the name of what
// it stands for, which the cast looks up in the statement's catalog
// (outputText alone prints the oid: concat(pg_typeof(1)) was 23).
func regsAsText(args []Expr) {
	for i, a := range args {
		switch t := a.Type(); {
		case t.Reg != RegNone && t.IsArray():
			args[i] = &Cast{X: a, T: ArrayOf(Text)}
		case t.Reg != RegNone:
			args[i] = &Cast{X: a, T: Text}
		}
	}
}

// anyAsText coerces an untyped argument to text and casts another type's
// value to its text output (quote_literal(anyelement)).
func (b *binder) anyAsText(e Expr) (Expr, error) {
	if isUnknown(e) {
		return b.coerceUnknown(e, Text)
	}
	if e.Type().IsString() {
		return e, nil
	}
	return &Cast{X: e, T: Text}, nil
}

// isVariadicText names the string functions that are not strict: NULL
// arguments are skipped (concat, concat_ws) or formatted (format).
func isVariadicText(name string) bool {
	return name == "concat" || name == "concat_ws" || name == "format"
}

// variadicText computes concat, concat_ws or format for one row; a is the
// row's argument values, NULL as nil.
func variadicText(x *Func, a []any) (any, error) {
	switch x.Name {
	case "concat":
		var sb strings.Builder
		for k, v := range a {
			if v != nil {
				sb.WriteString(outputText(v, x.Args[k].Type()))
			}
		}
		return sb.String(), nil
	case "concat_ws":
		if a[0] == nil {
			return nil, nil
		}
		var sb strings.Builder
		first := true
		for k, v := range a[1:] {
			if v == nil {
				continue
			}
			if !first {
				sb.WriteString(a[0].(string))
			}
			sb.WriteString(outputText(v, x.Args[k+1].Type()))
			first = false
		}
		return sb.String(), nil
	}
	if a[0] == nil {
		return nil, nil
	}
	return formatText(a[0].(string), x.Args[1:], a[1:])
}

// outputText is a value as its type's output function writes it (what
// concat and format use; boolean is t/f there, unlike a cast to text).
func outputText(v any, t Type) string {
	if t.Kind == KindBool {
		if v.(bool) {
			return "t"
		}
		return "f"
	}
	if s, ok := v.(string); ok {
		if t.Bpchar {
			return string(AppendBpchar(nil, s, t.Length))
		}
		return s
	}
	return formatDatum(v, t)
}

// textScalar computes a strict string function on non-NULL arguments.
func textScalar(x *Func, a []any) (any, error) {
	switch x.Name {
	case "replace":
		s, from, to := a[0].(string), a[1].(string), a[2].(string)
		if from == "" {
			return s, nil
		}
		return strings.ReplaceAll(s, from, to), nil
	case "quote_ident":
		return QuoteIdent(a[0].(string)), nil
	case "quote_literal":
		return quoteLiteral(a[0].(string)), nil
	case "reverse":
		rs := []rune(a[0].(string))
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	case "md5":
		sum := md5.Sum([]byte(a[0].(string)))
		return hex.EncodeToString(sum[:]), nil
	case "initcap":
		return initcap(a[0].(string)), nil
	case "ascii":
		r, _ := utf8.DecodeRuneInString(a[0].(string))
		if r == utf8.RuneError {
			return int64(0), nil
		}
		return int64(r), nil
	case "chr":
		return chr(a[0].(int64))
	case "repeat":
		n := a[1].(int64)
		if n <= 0 {
			return "", nil
		}
		s := a[0].(string)
		if int64(len(s))*n > maxTextBytes-4 { // with the 4-byte header
			return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested length too large")
		}
		return strings.Repeat(s, int(n)), nil
	case "left", "right":
		return leftRight(x.Name == "left", a[0].(string), a[1].(int64)), nil
	case "lpad", "rpad":
		fill := " "
		if len(a) == 3 {
			fill = a[2].(string)
		}
		return pad(x.Name == "lpad", a[0].(string), a[1].(int64), fill)
	case "strpos":
		s, sub := a[0].(string), a[1].(string)
		i := strings.Index(s, sub)
		if i < 0 {
			return int64(0), nil
		}
		return int64(utf8.RuneCountInString(s[:i]) + 1), nil
	case "split_part":
		return splitPart(a[0].(string), a[1].(string), a[2].(int64))
	case "starts_with":
		return strings.HasPrefix(a[0].(string), a[1].(string)), nil
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "evaluate %s: unknown function", x.Name)
}

// maxTextBytes is PostgreSQL's limit on one text value (1 GB).
const maxTextBytes = 1<<30 - 1

// QuoteIdent quotes an identifier when PostgreSQL's quote_ident would: when
// it is not all lower-case letters, digits and underscores starting with a
// letter or underscore, or is a reserved keyword.
func QuoteIdent(s string) string {
	plain := s != ""
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case (c >= '0' && c <= '9') && i > 0:
		default:
			plain = false
		}
	}
	if plain && !isReservedKeyword(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral is quote_literal: quotes doubled, and a value holding a
// backslash written as an E-prefixed string with the backslashes doubled.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// initcap upper-cases the first letter of each run of ASCII letters and
// digits and lower-cases the rest, as PostgreSQL under the C locale does.
func initcap(s string) string {
	b := []byte(s)
	inWord := false
	for i, c := range b {
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case inWord && c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case !inWord && c >= 'a' && c <= 'z':
			b[i] = c - ('a' - 'A')
		}
		inWord = isAlnum
	}
	return string(b)
}

func chr(n int64) (any, error) {
	switch {
	case n == 0:
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "null character not permitted")
	case n < 0:
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "character number must be positive")
	case n > utf8.MaxRune:
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", n)
	case n >= 0xD800 && n <= 0xDFFF:
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", n)
	}
	return string(rune(n)), nil
}

// leftRight is left(s, n) / right(s, n): a negative n keeps all but |n|.
// right(s, INT_MIN) is empty as well: PostgreSQL 15.20 no longer negates
// INT_MIN into itself (15.18 returned s whole).
func leftRight(left bool, s string, n int64) string {
	rs := []rune(s)
	k := int64(len(rs))
	if n < 0 {
		n = max(k+n, 0)
	}
	n = min(n, k)
	if left {
		return string(rs[:n])
	}
	return string(rs[k-n:])
}

// pad is lpad/rpad: fill to n characters, or truncate to n.
func pad(left bool, s string, n int64, fill string) (any, error) {
	if n <= 0 {
		return "", nil
	}
	if n > maxTextBytes {
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested length too large")
	}
	rs := []rune(s)
	if int64(len(rs)) >= n || fill == "" {
		return string(rs[:min(int64(len(rs)), n)]), nil
	}
	fr := []rune(fill)
	need := int(n) - len(rs)
	padding := make([]rune, need)
	for i := range padding {
		padding[i] = fr[i%len(fr)]
	}
	if left {
		return string(padding) + s, nil
	}
	return s + string(padding), nil
}

// splitPart is split_part: field n (1-based; negative counts from the end).
func splitPart(s, delim string, n int64) (any, error) {
	if n == 0 {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "field position must not be zero")
	}
	var parts []string
	if delim == "" {
		parts = []string{s}
		if s == "" {
			parts = nil
		}
	} else {
		parts = strings.Split(s, delim)
	}
	if n < 0 {
		n = int64(len(parts)) + n + 1
	}
	if n < 1 || n > int64(len(parts)) {
		return "", nil
	}
	return parts[n-1], nil
}
