package pgcatalog

import (
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/magmalake/magmalake/sql"
)

// in is x [NOT] IN (list) and x [NOT] IN (subquery).
func (c *compiler) in(x *ast.PatternInExpr, sc *scope) (evalFn, sql.Type, error) {
	l, _, err := c.expr(x.Expr, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	var items func(ec *execCtx, e *env) ([]any, error)
	if x.Sel != nil {
		q, err := c.subquery(x.Sel, sc)
		if err != nil {
			return nil, sql.Type{}, err
		}
		items = func(ec *execCtx, e *env) ([]any, error) { return q.column(ec, e) }
	} else {
		fns := make([]evalFn, len(x.List))
		for i, it := range x.List {
			if fns[i], _, err = c.expr(it, sc); err != nil {
				return nil, sql.Type{}, err
			}
		}
		items = func(ec *execCtx, e *env) ([]any, error) {
			out := make([]any, len(fns))
			for i, f := range fns {
				v, err := f(ec, e)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
	}
	return func(ec *execCtx, e *env) (any, error) {
		a, err := l(ec, e)
		if err != nil || a == nil {
			return nil, err
		}
		vals, err := items(ec, e)
		if err != nil {
			return nil, err
		}
		r := quantify(opcode.EQ, a, vals, false)
		if r == nil || !x.Not {
			return r, nil
		}
		return !r.(bool), nil
	}, sql.Bool, nil
}

func (c *compiler) between(x *ast.BetweenExpr, sc *scope) (evalFn, sql.Type, error) {
	v, _, err := c.expr(x.Expr, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	lo, _, err := c.expr(x.Left, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	hi, _, err := c.expr(x.Right, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	f := logic(comparison(opcode.GE, v, lo), comparison(opcode.LE, v, hi), true)
	if x.Not {
		return negate(f), sql.Bool, nil
	}
	return f, sql.Bool, nil
}

func negate(f evalFn) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		v, err := f(ec, e)
		if err != nil || v == nil {
			return nil, err
		}
		b, _ := asBool(v)
		return !b, nil
	}
}

// like is [NOT] LIKE / ILIKE, translated to a regular expression.
func (c *compiler) like(xn, pn ast.ExprNode, escape byte, ilike, not bool, sc *scope) (evalFn, sql.Type, error) {
	x, _, err := c.expr(xn, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	p, _, err := c.expr(pn, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	esc := byte('\\')
	if escape != 0 {
		esc = escape
	}
	return func(ec *execCtx, e *env) (any, error) {
		a, b, err := both(ec, e, x, p)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		re, err := likeRegexp(text(b), esc, ilike)
		if err != nil {
			return nil, err
		}
		return re.MatchString(text(a)) != not, nil
	}, sql.Bool, nil
}

func likeRegexp(pat string, esc byte, ilike bool) (*regexp.Regexp, error) {
	var b strings.Builder
	if ilike {
		b.WriteString("(?i)")
	}
	b.WriteString("(?s)^")
	for i := 0; i < len(pat); i++ {
		ch := pat[i]
		switch {
		case ch == esc && i+1 < len(pat):
			i++
			b.WriteString(regexp.QuoteMeta(string(pat[i])))
		case ch == '%':
			b.WriteString(".*")
		case ch == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, sql.Errorf(sql.CodeInvalidEscapeSequence, "invalid LIKE pattern %q", pat)
	}
	return re, nil
}

// regex is x ~ pattern (POSIX regular expressions; Go's RE2 covers what
// clients send: anchors, groups, alternation, classes).
func (c *compiler) regex(x *ast.PatternRegexpExpr, sc *scope) (evalFn, sql.Type, error) {
	l, _, err := c.expr(x.Expr, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	p, _, err := c.expr(x.Pattern, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	return func(ec *execCtx, e *env) (any, error) {
		a, b, err := both(ec, e, l, p)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		re, err := regexp.Compile(text(b))
		if err != nil {
			return nil, sql.Errorf("2201B", "invalid regular expression: %v", err)
		}
		return re.MatchString(text(a)) != x.Not, nil
	}, sql.Bool, nil
}

func (c *compiler) caseExpr(x *ast.CaseExpr, sc *scope) (evalFn, sql.Type, error) {
	var value evalFn
	var err error
	if x.Value != nil {
		if value, _, err = c.expr(x.Value, sc); err != nil {
			return nil, sql.Type{}, err
		}
	}
	type when struct{ cond, result evalFn }
	whens := make([]when, len(x.WhenClauses))
	t := sql.Unknown
	for i, w := range x.WhenClauses {
		if whens[i].cond, _, err = c.expr(w.Expr, sc); err != nil {
			return nil, sql.Type{}, err
		}
		var rt sql.Type
		if whens[i].result, rt, err = c.expr(w.Result, sc); err != nil {
			return nil, sql.Type{}, err
		}
		t = unify(t, rt)
	}
	var els evalFn = constFn(nil)
	if x.ElseClause != nil {
		var et sql.Type
		if els, et, err = c.expr(x.ElseClause, sc); err != nil {
			return nil, sql.Type{}, err
		}
		t = unify(t, et)
	}
	return func(ec *execCtx, e *env) (any, error) {
		var v any
		if value != nil {
			if v, err = value(ec, e); err != nil {
				return nil, err
			}
		}
		for _, w := range whens {
			cv, err := w.cond(ec, e)
			if err != nil {
				return nil, err
			}
			hit := truth(cv)
			if value != nil {
				hit = v != nil && cv != nil && compare(v, cv) == 0
			} else if s, ok := cv.(string); ok {
				b, _ := asBool(s)
				hit = b
			}
			if hit {
				return w.result(ec, e)
			}
		}
		return els(ec, e)
	}, t, nil
}

// unify picks the result type of CASE/COALESCE/UNION branches: the first
// typed one.
func unify(a, b sql.Type) sql.Type {
	if a.Kind == sql.KindUnknown {
		return b
	}
	return a
}

func (c *compiler) subquery(n ast.ExprNode, sc *scope) (*query, error) {
	s, ok := n.(*ast.SubqueryExpr)
	if !ok {
		return nil, sql.Errorf(sql.CodeFeatureNotSupported, "%s is not supported", sql.ConstructName(n))
	}
	return c.resultSet(s.Query, sc)
}

func (c *compiler) scalarSubquery(x *ast.SubqueryExpr, sc *scope) (evalFn, sql.Type, error) {
	q, err := c.resultSet(x.Query, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	if len(q.cols) != 1 {
		return nil, sql.Type{}, sql.Errorf(sql.CodeSyntaxError, "subquery must return only one column")
	}
	return func(ec *execCtx, e *env) (any, error) {
		rows, err := q.run(ec, e)
		if err != nil {
			return nil, err
		}
		switch len(rows) {
		case 0:
			return nil, nil
		case 1:
			return rows[0][0], nil
		}
		return nil, sql.Errorf(sql.CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
	}, q.cols[0].t, nil
}

func (c *compiler) exists(x *ast.ExistsSubqueryExpr, sc *scope) (evalFn, sql.Type, error) {
	q, err := c.subquery(x.Sel, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	return func(ec *execCtx, e *env) (any, error) {
		rows, err := q.run(ec, e)
		if err != nil {
			return nil, err
		}
		return (len(rows) > 0) != x.Not, nil
	}, sql.Bool, nil
}

func (c *compiler) compareSubquery(x *ast.CompareSubqueryExpr, sc *scope) (evalFn, sql.Type, error) {
	l, _, err := c.expr(x.L, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	q, err := c.subquery(x.R, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	return func(ec *execCtx, e *env) (any, error) {
		a, err := l(ec, e)
		if err != nil || a == nil {
			return nil, err
		}
		vals, err := q.column(ec, e)
		if err != nil {
			return nil, err
		}
		return quantify(x.Op, a, vals, x.All), nil
	}, sql.Bool, nil
}
