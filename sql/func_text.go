package sql

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// PostgreSQL's string functions beyond the basic ones (func_core.go).

func textFunctions() []Function {
	return []Function{
		// concat is the parser's spelling of ||; the normaliser spells the
		// function __concat, which binds to the concat this entry computes.
		{Name: "concat", Signatures: sigs(`"any"`), bind: func(b callBinder, _ string, args []Expr) (Expr, error) { return b.bindPipes(args) },
			row: perRow(variadicText)},
		{Name: "__concat", Alias: "concat", bind: func(b callBinder, _ string, args []Expr) (Expr, error) { return b.bindVariadicText("concat", args) }},
		{Name: "concat_ws", Signatures: sigs(`text,"any"`), bind: callBinder.bindVariadicText, row: perRow(variadicText)},
		{Name: "format", Signatures: sigs(`text,"any" | text`), bind: callBinder.bindVariadicText, row: perRow(variadicText)},
		{Name: "replace", Strict: true, Signatures: sigs("text,text,text"), bind: textSig("ttt", Text), row: valueOf(replaceText)},
		{Name: "quote_ident", Strict: true, Signatures: sigs("text"), bind: textSig("t", Text),
			row: valueOf(func(a []any) any { return QuoteIdent(a[0].(string)) })},
		{Name: "quote_literal", Strict: true, Signatures: sigs("text | anyelement"), bind: textSig("a", Text),
			row: valueOf(func(a []any) any { return quoteLiteral(a[0].(string)) })},
		{Name: "reverse", Strict: true, Signatures: sigs("text"), bind: textSig("t", Text), row: valueOf(reverseText)},
		{Name: "md5", Strict: true, Signatures: sigs("text | bytea"), bind: byteaOr(textSig("t", Text)),
			row: valueOf(func(a []any) any { return md5Hex([]byte(a[0].(string))) })},
		{Name: "initcap", Strict: true, Signatures: sigs("text"), bind: textSig("t", Text),
			row: valueOf(func(a []any) any { return initcap(a[0].(string)) })},
		{Name: "ascii", Strict: true, Signatures: sigs("text"), bind: textSig("t", Int32), row: valueOf(asciiCode)},
		{Name: "chr", Strict: true, Signatures: sigs("integer"), bind: textSig("i", Text),
			row: perRow(func(_ *Func, a []any) (any, error) { return chr(a[0].(int64)) })},
		{Name: "repeat", Strict: true, Signatures: sigs("text,integer"), bind: textSig("ti", Text),
			row: perRow(func(_ *Func, a []any) (any, error) { return repeatText(a[0].(string), a[1].(int64)) })},
		{Name: "left", Strict: true, Signatures: sigs("text,integer"), bind: textSig("ti", Text),
			row: valueOf(func(a []any) any { return leftRight(true, a[0].(string), a[1].(int64)) })},
		{Name: "right", Strict: true, Signatures: sigs("text,integer"), bind: textSig("ti", Text),
			row: valueOf(func(a []any) any { return leftRight(false, a[0].(string), a[1].(int64)) })},
		{Name: "lpad", Strict: true, Signatures: sigs("text,integer,text | text,integer"), bind: textSig("tit?", Text), row: perRow(padText)},
		{Name: "rpad", Strict: true, Signatures: sigs("text,integer,text | text,integer"), bind: textSig("tit?", Text), row: perRow(padText)},
		{Name: "strpos", Strict: true, Signatures: sigs("text,text"), bind: textSig("tt", Int32), row: valueOf(strpos)},
		// position(a IN b) is strpos(b, a); the parser hands over (a, b).
		{Name: "position", Alias: "strpos", bind: bindPosition},
		{Name: "split_part", Strict: true, Signatures: sigs("text,text,integer"), bind: textSig("tti", Text),
			row: perRow(func(_ *Func, a []any) (any, error) { return splitPart(a[0].(string), a[1].(string), a[2].(int64)) })},
		{Name: "starts_with", Strict: true, Signatures: sigs("text,text"), bind: textSig("tt", Bool),
			row: valueOf(func(a []any) any { return strings.HasPrefix(a[0].(string), a[1].(string)) })},
		{Name: "translate", Strict: true, Signatures: sigs("text,text,text"), bind: textOnly(Text, 3, 3),
			row: valueOf(func(a []any) any { return translateText(a[0].(string), a[1].(string), a[2].(string)) })},
	}
}

// textSig binds a string function by its argument kinds ('t' text, 'i'
// integer, 'a' any value as its text; a trailing '?' makes the last one
// optional) and result type.
func textSig(args string, ret Type) bindFunc {
	optional := strings.Count(args, "?")
	kinds := strings.ReplaceAll(args, "?", "")
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		if len(args) > len(kinds) || len(args) < len(kinds)-optional {
			return nil, noFunction(name, args)
		}
		for i, a := range args {
			// Types first, so that a 42883 names the arguments as written.
			switch k := a.Type().Kind; {
			case k == KindUnknown:
			case kinds[i] == 't' && !a.Type().IsString(), kinds[i] == 'i' && k != KindInt16 && k != KindInt32:
				return nil, noFunction(name, args)
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
				return nil, err
			}
		}
		return &Func{Name: name, Args: args, T: ret}, nil
	}
}

// bindPosition binds position(a IN b) as strpos(b, a).
func bindPosition(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, noFunction(name, args)
	}
	if err := b.textArgs(name, args); err != nil {
		return nil, err
	}
	return &Func{Name: "strpos", Args: []Expr{args[1], args[0]}, T: Int32}, nil
}

// bindPipes binds a || b || ...: NULL when any operand is.
func (b callBinder) bindPipes(args []Expr) (Expr, error) {
	if len(args) < 2 {
		return nil, noFunction("concat", args)
	}
	e := args[0]
	for _, a := range args[1:] {
		var err error
		if e, err = b.ops().bindConcat(e, a); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// bindVariadicText binds concat(any...), concat_ws(text, any...) and
// format(text, any...): the leading text argument (concat_ws, format) must be
// text; the others may be of any type, untyped ones read as text.
func (b callBinder) bindVariadicText(name string, args []Expr) (Expr, error) {
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
func (b callBinder) anyAsText(e Expr) (Expr, error) {
	if isUnknown(e) {
		return b.coerceUnknown(e, Text)
	}
	if e.Type().IsString() {
		return e, nil
	}
	return &Cast{X: e, T: Text}, nil
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

func replaceText(a []any) any {
	s, from, to := a[0].(string), a[1].(string), a[2].(string)
	if from == "" {
		return s
	}
	return strings.ReplaceAll(s, from, to)
}

func reverseText(a []any) any {
	rs := []rune(a[0].(string))
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// asciiCode is the code of the first character, 0 for none.
func asciiCode(a []any) any {
	r, _ := utf8.DecodeRuneInString(a[0].(string))
	if r == utf8.RuneError {
		return int64(0)
	}
	return int64(r)
}

func repeatText(s string, n int64) (any, error) {
	if n <= 0 {
		return "", nil
	}
	if int64(len(s))*n > maxTextBytes-4 { // with the 4-byte header
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "requested length too large")
	}
	return strings.Repeat(s, int(n)), nil
}

// padText is lpad and rpad, filling with spaces without a third argument.
func padText(x *Func, a []any) (any, error) {
	fill := " "
	if len(a) == 3 {
		fill = a[2].(string)
	}
	return pad(x.Name == "lpad", a[0].(string), a[1].(int64), fill)
}

// strpos is the 1-based character position of the first occurrence, 0 for
// none.
func strpos(a []any) any {
	s, sub := a[0].(string), a[1].(string)
	i := strings.Index(s, sub)
	if i < 0 {
		return int64(0)
	}
	return int64(utf8.RuneCountInString(s[:i]) + 1)
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

// translateText replaces each character of s found in from by the one at
// the same place in to, deleting it when to is shorter; the first
// occurrence in from counts.
func translateText(s, from, to string) string {
	fr, tr := []rune(from), []rune(to)
	var b strings.Builder
	for _, r := range s {
		k := -1
		for i, f := range fr {
			if f == r {
				k = i
				break
			}
		}
		switch {
		case k < 0:
			b.WriteRune(r)
		case k < len(tr):
			b.WriteRune(tr[k])
		}
	}
	return b.String()
}
