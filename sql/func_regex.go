package sql

import (
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// The POSIX regular expression operators (~ ~* !~ !~*) and functions
// (regexp_replace, regexp_like, regexp_count, regexp_substr, and
// regexp_match under a subscript, text[] not being a type magmalake has).
// They bind to Funcs named after PostgreSQL's own functions
// (textregexeq, ...); evaluation compiles each distinct pattern once per
// evaluation of the node (regexCache), never in shared state.

func regexFunctions() []Function {
	return []Function{
		// The operators' functions (PostgreSQL's own names): the binder's
		// forms of ~, ~*, !~ and !~*; ~* arrives as __iregex.
		{Name: "textregexeq", Strict: true, row: regexOpRow(false, false)},
		{Name: "texticregexeq", Strict: true, row: regexOpRow(true, false)},
		{Name: "textregexne", Strict: true, row: regexOpRow(false, true)},
		{Name: "texticregexne", Strict: true, row: regexOpRow(true, true)},
		{Name: "__iregex", Alias: "texticregexeq", bind: bindIRegex},
		{Name: "regexp_replace", Strict: true, Signatures: sigs("text,text,text | text,text,text,text | text,text,text,integer,integer,text | text,text,text,integer,integer | text,text,text,integer"),
			bind: regexSig(Text, "ttt", "tttt", "ttti", "tttii", "tttiit"), row: regexRow},
		{Name: "regexp_like", Strict: true, Signatures: sigs("text,text | text,text,text"), bind: regexSig(Bool, "tt", "ttt"), row: regexRow},
		{Name: "regexp_count", Strict: true, Signatures: sigs("text,text | text,text,integer | text,text,integer,text"),
			bind: regexSig(Int32, "tt", "tti", "ttit"), row: regexRow},
		{Name: "regexp_substr", Strict: true, Signatures: sigs("text,text | text,text,integer | text,text,integer,integer | text,text,integer,integer,text | text,text,integer,integer,text,integer"),
			bind: regexSig(Text, "tt", "tti", "ttii", "ttiit", "ttiiti"), row: regexRow},
		// (regexp_match(s, p [, flags]))[i], text[] not being a type
		// magmalake has; bound by bindRegexpMatchSubscript.
		{Name: "__regexp_match", Strict: true, bind: regexSig(Text, "ttti"), row: regexRow},
	}
}

// bindRegexOp binds x ~ p and x !~ p (the parser's Regexp); ~* and !~* arrive
// as the function __iregex from the normaliser.
func (b callBinder) bindRegexOp(n *parse.Regexp) (Expr, error) {
	x, err := b.bind(n.X)
	if err != nil {
		return nil, err
	}
	p, err := b.bind(n.Pattern)
	if err != nil {
		return nil, err
	}
	name, op := "textregexeq", "~"
	if n.Not {
		name, op = "textregexne", "!~"
	}
	return b.regexOperator(name, op, x, p)
}

func (b callBinder) regexOperator(name, op string, x, p Expr) (Expr, error) {
	x, p, err := b.unify(x, p)
	if err != nil {
		return nil, err
	}
	if !x.Type().IsString() || !p.Type().IsString() {
		return nil, noOperator(x.Type(), op, p.Type())
	}
	return &Func{Name: name, Args: []Expr{x, p}, T: Bool}, nil
}

func bindIRegex(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, noFunction(name, args)
	}
	return b.regexOperator("texticregexeq", "~*", args[0], args[1])
}

// regexSig binds a regular expression function by the argument kinds of
// its forms ('t' text, 'i' integer), returning ret.
func regexSig(ret Type, forms ...string) bindFunc {
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		kinds := ""
		for _, f := range forms {
			if len(f) == len(args) && (kinds == "" || f[len(f)-1] == 't' && isUnknown(args[len(args)-1])) {
				kinds = f // an untyped last argument reads as text (flags), as PostgreSQL prefers
			}
			if len(f) == len(args) && argsFit(f, args) {
				kinds = f
				break
			}
		}
		if kinds == "" {
			return nil, noFunction(name, args)
		}
		for i := range args {
			var err error
			if kinds[i] == 't' {
				err = b.textArgs(name, args[i:i+1])
			} else {
				err = b.intArg(name, args, i)
			}
			if err != nil {
				return nil, err
			}
		}
		return &Func{Name: name, Args: args, T: ret}, nil
	}
}

// argsFit reports whether the typed arguments match kinds exactly.
func argsFit(kinds string, args []Expr) bool {
	for i, a := range args {
		t := a.Type()
		switch {
		case t.Kind == KindUnknown:
		case kinds[i] == 't' && !t.IsString(), kinds[i] == 'i' && t.Kind != KindInt16 && t.Kind != KindInt32:
			return false
		}
	}
	return true
}

// bindRegexpMatchSubscript binds (regexp_match(s, p [, flags]))[i] as one
// text-valued call; ok is false for any other subscript.
func (b callBinder) bindRegexpMatchSubscript(n *parse.FuncCall) (Expr, bool, error) {
	if len(n.Args) != 2 {
		return nil, false, nil
	}
	inner := n.Args[0]
	for {
		p, ok := inner.(*parse.Paren)
		if !ok {
			break
		}
		inner = p.X
	}
	call, ok := inner.(*parse.FuncCall)
	if !ok || call.Name != "regexp_match" || len(call.Args) < 2 || len(call.Args) > 3 {
		return nil, false, nil
	}
	args := make([]Expr, 0, 4)
	for _, a := range append(append([]parse.Expr(nil), call.Args...), n.Args[1]) {
		e, err := b.bind(a)
		if err != nil {
			return nil, true, err
		}
		args = append(args, e)
	}
	if len(args) == 3 {
		args = []Expr{args[0], args[1], &Const{Value: "", T: Text}, args[2]}
	}
	e, err := b.bindRegistered("__regexp_match", args)
	return e, true, err
}

// regexCache holds the patterns compiled during one evaluation of a node.
type regexCache map[regexKey]*pgRegexp

type regexKey struct {
	pat   string
	flags regexFlags
}

// maxCachedPatterns bounds the cache of a node whose pattern varies by row.
const maxCachedPatterns = 256

func (c regexCache) get(pat string, f regexFlags) (*pgRegexp, error) {
	f.global = false
	k := regexKey{pat, f}
	if re, ok := c[k]; ok {
		return re, nil
	}
	re, err := compilePGRegex(pat, f)
	if err != nil {
		return nil, err
	}
	if len(c) >= maxCachedPatterns {
		clear(c)
	}
	c[k] = re
	return re, nil
}

// regexOpRow computes x ~ p (~*: icase; !~: negate) with the patterns of
// one evaluation compiled once.
func regexOpRow(icase, negate bool) func(*evaluator, *Func) rowFunc {
	return func(*evaluator, *Func) rowFunc {
		cache := regexCache{}
		return func(a []any) (any, error) {
			re, err := cache.get(a[1].(string), regexFlags{icase: icase})
			if err != nil {
				return nil, err
			}
			return re.re.MatchString(a[0].(string)) != negate, nil
		}
	}
}

// regexRow computes a regex function with the patterns of one evaluation
// compiled once.
func regexRow(_ *evaluator, x *Func) rowFunc {
	cache := regexCache{}
	return func(a []any) (any, error) { return regexScalar(x, a, cache) }
}

// regexScalar computes one row of a regex function.
func regexScalar(x *Func, a []any, cache regexCache) (any, error) {
	s, pat := a[0].(string), a[1].(string)
	call, err := regexCallArgs(x, a)
	if err != nil {
		return nil, err
	}
	re, err := cache.get(pat, call.flags)
	if err != nil {
		return nil, err
	}
	return call.run(re, s)
}

// regexCall is a regex function's arguments after the string and pattern.
type regexCall struct {
	name    string
	repl    string
	start   int64 // 1-based character position
	n       int64 // which match; 0 is all (regexp_replace)
	nSet    bool
	subexpr int64
	flags   regexFlags
	index   int64 // the subscript of regexp_match
}

// regexCallArgs reads the optional arguments by the form x was bound to.
func regexCallArgs(x *Func, a []any) (regexCall, error) {
	c := regexCall{name: x.Name, start: 1, n: 1}
	flags := ""
	rest := a[2:]
	if x.Name == "regexp_replace" {
		c.repl, rest = rest[0].(string), rest[1:]
	}
	for k, v := range rest {
		switch val := v.(type) {
		case string:
			flags = val
		case int64:
			switch {
			case x.Name == "__regexp_match":
				c.index = val
			case k == 0:
				c.start = val
			case k == 1:
				c.n, c.nSet = val, true
			default:
				c.subexpr = val
			}
		}
	}
	// PostgreSQL checks the positions before it reads the flags.
	if err := c.check(); err != nil {
		return c, err
	}
	f, err := parseRegexFlags(flags)
	if err != nil {
		return c, err
	}
	c.flags = f
	if f.global && c.name != "regexp_replace" {
		return c, pgerr.Errorf(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", strings.TrimPrefix(c.name, "__"))
	}
	if c.name == "regexp_replace" && f.global && !c.nSet {
		c.n = 0
	}
	return c, nil
}

// check raises PostgreSQL's errors for out-of-range positions.
func (c *regexCall) check() error {
	switch {
	case c.start <= 0:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"start\": %d", c.start)
	case c.nSet && c.name == "regexp_replace" && c.n < 0, c.nSet && c.name != "regexp_replace" && c.n <= 0:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"n\": %d", c.n)
	case c.subexpr < 0:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"subexpr\": %d", c.subexpr)
	}
	return nil
}

func (c regexCall) run(re *pgRegexp, s string) (any, error) {
	from := charOffset(s, c.start)
	switch c.name {
	case "regexp_like":
		return re.find(s, 0) != nil, nil
	case "regexp_count":
		return int64(len(re.findAll(s, from, 0))), nil
	case "regexp_substr":
		ms := re.findAll(s, from, int(c.n))
		if int64(len(ms)) < c.n {
			return nil, nil
		}
		k := int(c.subexpr)
		if k == 1 && re.re.NumSubexp() == 0 {
			k = 0 // without groups the whole match is the only one
		}
		return submatch(s, ms[c.n-1], k), nil
	case "__regexp_match":
		return regexpMatchElem(re, s, c.index), nil
	}
	return c.replace(re, s, from), nil
}

// charOffset is the byte offset of 1-based character position pos.
func charOffset(s string, pos int64) int {
	off := 0
	for k := int64(1); k < pos && off < len(s); k++ {
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	if pos-1 > int64(utf8.RuneCountInString(s)) {
		return len(s) + 1
	}
	return off
}

// regexpMatchElem is element i of regexp_match's text[]: the i-th
// parenthesised group, or the whole match when there are none.
func regexpMatchElem(re *pgRegexp, s string, i int64) any {
	m := re.find(s, 0)
	if m == nil {
		return nil
	}
	groups := re.re.NumSubexp()
	if groups == 0 {
		if i == 1 {
			return s[m[0]:m[1]]
		}
		return nil
	}
	if i < 1 || i > int64(groups) {
		return nil
	}
	return submatch(s, m, int(i))
}

// submatch is group k of match m, NULL when it took no part.
func submatch(s string, m []int, k int) any {
	if 2*k+1 >= len(m) || m[2*k] < 0 {
		return nil
	}
	return s[m[2*k]:m[2*k+1]]
}

// find is the first match at or after byte from, as pg_regexec with a
// search start: the string before from still decides ^ and \y.
func (re *pgRegexp) find(s string, from int) []int {
	if from > len(s) {
		return nil
	}
	if !re.context {
		m := re.re.FindStringSubmatchIndex(s[from:])
		for k := range m {
			if m[k] >= 0 {
				m[k] += from
			}
		}
		return m
	}
	for _, m := range re.re.FindAllStringSubmatchIndex(s, -1) {
		if m[0] >= from {
			return m
		}
	}
	return nil
}

// findAll is PostgreSQL's match loop from byte from: the next search starts
// where a match ended, one character later after an empty match. limit > 0
// stops after that many matches.
func (re *pgRegexp) findAll(s string, from, limit int) [][]int {
	var out [][]int
	for from <= len(s) {
		m := re.find(s, from)
		if m == nil {
			break
		}
		out = append(out, m)
		if limit > 0 && len(out) == limit {
			break
		}
		from = m[1]
		if m[0] == m[1] {
			if from == len(s) {
				break
			}
			_, n := utf8.DecodeRuneInString(s[from:])
			from += n
		}
	}
	return out
}

// replace is regexp_replace: the n-th match (n 0: every match) at or after
// from gets the replacement.
func (c regexCall) replace(re *pgRegexp, s string, from int) string {
	ms := re.findAll(s, from, int(c.n))
	if c.n > 0 {
		if int64(len(ms)) < c.n {
			return s
		}
		ms = ms[c.n-1:]
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		expandReplacement(&b, c.repl, s, m)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// expandReplacement writes repl with \1..\9 (groups), \& (the match) and
// \\ (a backslash); any other backslash is kept.
func expandReplacement(b *strings.Builder, repl, s string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		switch d := repl[i+1]; {
		case d >= '1' && d <= '9', d == '&':
			k := 0
			if d != '&' {
				k = int(d - '0')
			}
			if v, ok := submatch(s, m, k).(string); ok {
				b.WriteString(v)
			}
			i++
		case d == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte('\\')
		}
	}
}
