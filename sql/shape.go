package sql

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// InsertShape is a one-table INSERT ... VALUES of plain literals with its
// literals taken out: Text has $1..$n where they were and Args their values
// as text. A quoted string becomes a bare parameter, which takes its type
// from where it goes exactly as the untyped literal does; a number becomes
// $n::integer, ::bigint or ::numeric, the type PostgreSQL's parser gives it
// by its spelling and size, so that it assigns (or refuses to) as the
// literal would. Drivers without server-side parameters
// (psycopg2's executemany, most ORMs' bulk paths) send thousands of INSERTs
// that differ only in their literals; preparing the shape once saves
// parsing and binding each of them.
type InsertShape struct {
	Text string
	Args []string
}

// ShapeInsert returns query's shape when query is
//
//	INSERT INTO name[.name] [(col, ...)] VALUES (v, ...)[, (v, ...)]... [;]
//
// with each v a string or number literal (a number may carry a sign), NULL,
// TRUE, FALSE or DEFAULT, each optionally cast with ::type words. Anything
// else (expressions, typed literals such as date '...', bit strings,
// parameters, RETURNING) is not shaped, and ok is false.
func ShapeInsert(query string) (InsertShape, bool) {
	toks, err := parse.Lex(query)
	if err != nil || len(toks) < 6 || !toks[0].Is("insert") || !toks[1].Is("into") {
		return InsertShape{}, false
	}
	i, ok := shapeTarget(toks, 2)
	if !ok || i >= len(toks) || !toks[i].Is("values") {
		return InsertShape{}, false
	}
	var sh InsertShape
	var b strings.Builder
	b.Grow(len(query))
	last := 0 // query[last:] is not copied yet
	i++
	for {
		if i >= len(toks) || !toks[i].IsPunct("(") {
			return InsertShape{}, false
		}
		i++
		for {
			next, lit, ok := shapeValue(toks, i)
			if !ok {
				return InsertShape{}, false
			}
			if lit.end > lit.pos {
				b.WriteString(query[last:lit.pos])
				sh.Args = append(sh.Args, lit.text)
				b.WriteString("$" + strconv.Itoa(len(sh.Args)) + lit.cast)
				last = lit.end
			}
			i = next
			if i < len(toks) && toks[i].IsPunct(",") {
				i++
				continue
			}
			if i < len(toks) && toks[i].IsPunct(")") {
				i++
				break
			}
			return InsertShape{}, false
		}
		if i < len(toks) && toks[i].IsPunct(",") {
			i++
			continue
		}
		break
	}
	if i < len(toks) && toks[i].IsPunct(";") {
		i++
	}
	if i != len(toks) || len(sh.Args) == 0 {
		return InsertShape{}, false
	}
	b.WriteString(query[last:])
	sh.Text = b.String()
	return sh, true
}

// shapeTarget reads name[.name] [(col, ...)] from toks[i:] and returns
// the index after it.
func shapeTarget(toks []parse.Token, i int) (int, bool) {
	name := func(i int) bool {
		return i < len(toks) && (toks[i].Kind == parse.TokIdent || toks[i].Kind == parse.TokQIdent)
	}
	if !name(i) {
		return 0, false
	}
	i++
	if i < len(toks) && toks[i].IsPunct(".") {
		if !name(i + 1) {
			return 0, false
		}
		i += 2
	}
	if i < len(toks) && toks[i].IsPunct("(") {
		for i++; ; i++ {
			if !name(i) {
				return 0, false
			}
			i++
			if i < len(toks) && toks[i].IsPunct(")") {
				return i + 1, true
			}
			if i >= len(toks) || !toks[i].IsPunct(",") {
				return 0, false
			}
		}
	}
	return i, true
}

// shapeLiteral is a literal taken out of the text: query[pos:end] (empty
// for a value kept as written), its value and the cast that types it.
type shapeLiteral struct {
	pos, end int
	text     string
	cast     string
}

// shapeValue reads one VALUES item from toks[i:]: a literal or keyword
// value, then any ::type casts (type names of plain words only).
func shapeValue(toks []parse.Token, i int) (int, shapeLiteral, bool) {
	var lit shapeLiteral
	if i >= len(toks) {
		return 0, lit, false
	}
	t := toks[i]
	switch {
	case t.Kind == parse.TokString && (t.Str == parse.StrStd || t.Str == parse.StrEscape || t.Str == parse.StrDollar):
		lit = shapeLiteral{pos: t.Pos, end: t.End, text: t.Val}
		i++
	case t.Kind == parse.TokNumber:
		lit = numberLiteral(t.Pos, t.End, t.Val)
		i++
	case t.Kind == parse.TokOp && (t.Val == "-" || t.Val == "+") && i+1 < len(toks) && toks[i+1].Kind == parse.TokNumber:
		// A signed number is one constant to PostgreSQL's grammar (typed
		// by its signed value), as it is here.
		sign := ""
		if t.Val == "-" {
			sign = "-"
		}
		n := toks[i+1]
		lit = numberLiteral(t.Pos, n.End, sign+n.Val)
		i += 2
	case t.Is("null") || t.Is("true") || t.Is("false") || t.Is("default"):
		i++
	default:
		return 0, lit, false
	}
	for i < len(toks) && toks[i].IsPunct("::") {
		i++
		if i >= len(toks) || toks[i].Kind != parse.TokIdent {
			return 0, lit, false
		}
		for i < len(toks) && toks[i].Kind == parse.TokIdent {
			i++
		}
	}
	return i, lit, true
}

// numberLiteral types a number as PostgreSQL's parser does: an integer
// that fits int4 is integer, then bigint, anything else numeric.
func numberLiteral(pos, end int, text string) shapeLiteral {
	lit := shapeLiteral{pos: pos, end: end, text: text, cast: "::numeric"}
	if strings.ContainsAny(text, ".eE") {
		return lit
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		lit.cast = "::bigint"
		if n >= -1<<31 && n < 1<<31 {
			lit.cast = "::integer"
		}
	}
	return lit
}
