package pgcatalog

import (
	"context"
	"math"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/magmalake/magmalake/sql"
)

// evalFn computes an expression for the row in e.
type evalFn func(ec *execCtx, e *env) (any, error)

// env is the row being evaluated, linked to the rows of enclosing queries
// for correlated subqueries.
type env struct {
	row   []any
	outer *env
}

// scope is the column layout env rows follow; slots map aggregate and
// window calls to the row positions their values are computed into.
type scope struct {
	cols  []colInfo
	outer *scope
	slots map[ast.Node]int
}

// execCtx is one execution of a catalog query.
type execCtx struct {
	ctx    context.Context
	env    *Env
	snap   *snapshot
	params []any
	rels   map[*relDef][][]any
}

func (ec *execCtx) relationRows(d *relDef) [][]any {
	if rows, ok := ec.rels[d]; ok {
		return rows
	}
	rows := d.rows(ec.snap)
	ec.rels[d] = rows
	return rows
}

// compiler compiles one statement; params collects $n types.
type compiler struct {
	params *sql.Params
	// pendingWindows carries a SELECT's window calls from grouping to
	// window planning.
	pendingWindows []*ast.WindowFuncExpr
	userTable      func(schema, name string) bool
}

func (c *compiler) expr(n ast.ExprNode, sc *scope) (evalFn, sql.Type, error) {
	if sc != nil && sc.slots != nil {
		if k, ok := sc.slots[n]; ok {
			return func(_ *execCtx, e *env) (any, error) { return e.row[k], nil }, slotType(sc, k), nil
		}
	}
	switch x := n.(type) {
	case *test_driver.ValueExpr:
		return literal(x.GetValue())
	case *ast.ColumnNameExpr:
		return c.column(x.Name, sc)
	case *ast.ParenthesesExpr:
		return c.expr(x.Expr, sc)
	case *ast.UnaryOperationExpr:
		return c.unary(x, sc)
	case *ast.BinaryOperationExpr:
		return c.binary(x, sc)
	case *ast.IsNullExpr:
		f, _, err := c.expr(x.Expr, sc)
		return isNull(f, x.Not), sql.Bool, err
	case *ast.IsTruthExpr:
		return c.isTruth(x, sc)
	case *ast.PatternInExpr:
		return c.in(x, sc)
	case *ast.BetweenExpr:
		return c.between(x, sc)
	case *ast.PatternLikeOrIlikeExpr:
		return c.like(x.Expr, x.Pattern, x.Escape, !x.IsLike, x.Not, sc)
	case *ast.PatternRegexpExpr:
		return c.regex(x, sc)
	case *ast.CaseExpr:
		return c.caseExpr(x, sc)
	case *ast.FuncCallExpr:
		return c.call(x, sc)
	case *ast.SubqueryExpr:
		return c.scalarSubquery(x, sc)
	case *ast.ExistsSubqueryExpr:
		return c.exists(x, sc)
	case *ast.CompareSubqueryExpr:
		return c.compareSubquery(x, sc)
	case *ast.AggregateFuncExpr, *ast.WindowFuncExpr:
		return nil, sql.Type{}, sql.Errorf(sql.CodeGroupingError, "aggregate or window function is not allowed here")
	}
	return nil, sql.Type{}, sql.Errorf(sql.CodeFeatureNotSupported, "%s is not supported in catalog queries", sql.ConstructName(n))
}

func slotType(sc *scope, k int) sql.Type {
	if k < len(sc.cols) {
		return sc.cols[k].t
	}
	return sql.Text
}

func constFn(v any) evalFn { return func(*execCtx, *env) (any, error) { return v, nil } }

func literal(v any) (evalFn, sql.Type, error) {
	switch x := v.(type) {
	case nil:
		return constFn(nil), sql.Unknown, nil
	case int64:
		t := sql.Int32
		if x > math.MaxInt32 || x < math.MinInt32 {
			t = sql.Int64
		}
		return constFn(x), t, nil
	case uint64:
		return constFn(int64(x)), sql.Int64, nil
	case float64:
		return constFn(x), sql.Float64, nil
	case *test_driver.MyDecimal:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return nil, sql.Type{}, sql.Errorf(sql.CodeInvalidTextRep, "invalid numeric literal %s", x.String())
		}
		return constFn(f), sql.Float64, nil
	case string:
		return constFn(x), sql.Unknown, nil
	case []byte:
		return constFn(string(x)), sql.Unknown, nil
	}
	return nil, sql.Type{}, sql.Errorf(sql.CodeFeatureNotSupported, "this literal is not supported")
}

// column resolves a name through the scope chain; outer levels are
// correlated references.
func (c *compiler) column(cn *ast.ColumnName, sc *scope) (evalFn, sql.Type, error) {
	name, table := cn.Name.O, cn.Table.O
	depth := 0
	for s := sc; s != nil; s = s.outer {
		found := -1
		for i, col := range s.cols {
			if col.name != name || (table != "" && col.table != table) || (table == "" && col.usingHidden) {
				continue
			}
			if found >= 0 {
				return nil, sql.Type{}, sql.Errorf(sql.CodeAmbiguousColumn, "column reference %q is ambiguous", name)
			}
			found = i
		}
		if found >= 0 {
			d, k := depth, found
			return func(_ *execCtx, e *env) (any, error) {
				for range d {
					e = e.outer
				}
				return e.row[k], nil
			}, s.cols[found].t, nil
		}
		depth++
	}
	if table != "" {
		return nil, sql.Type{}, sql.Errorf(sql.CodeUndefinedColumn, "column %s.%s does not exist", table, name)
	}
	return nil, sql.Type{}, sql.Errorf(sql.CodeUndefinedColumn, "column %q does not exist", name)
}

func isNull(f evalFn, not bool) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		v, err := f(ec, e)
		if err != nil {
			return nil, err
		}
		return (v == nil) != not, nil
	}
}

func (c *compiler) isTruth(x *ast.IsTruthExpr, sc *scope) (evalFn, sql.Type, error) {
	f, _, err := c.expr(x.Expr, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	want := x.True != 0
	return func(ec *execCtx, e *env) (any, error) {
		v, err := f(ec, e)
		if err != nil {
			return nil, err
		}
		b, ok := asBool(v)
		return (v != nil && ok && b == want) != x.Not, nil
	}, sql.Bool, nil
}

func (c *compiler) unary(x *ast.UnaryOperationExpr, sc *scope) (evalFn, sql.Type, error) {
	f, t, err := c.expr(x.V, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	switch x.Op {
	case opcode.Not, opcode.Not2:
		return func(ec *execCtx, e *env) (any, error) {
			v, err := f(ec, e)
			if err != nil || v == nil {
				return nil, err
			}
			b, _ := asBool(v)
			return !b, nil
		}, sql.Bool, nil
	case opcode.Minus:
		return func(ec *execCtx, e *env) (any, error) {
			v, err := f(ec, e)
			if err != nil || v == nil {
				return nil, err
			}
			if n, ok := v.(int64); ok {
				return -n, nil
			}
			fv, _ := asFloat(v)
			return -fv, nil
		}, t, nil
	case opcode.Plus:
		return f, t, nil
	}
	return nil, sql.Type{}, sql.Errorf(sql.CodeFeatureNotSupported, "operator %s is not supported in catalog queries", x.Op)
}

func (c *compiler) binary(x *ast.BinaryOperationExpr, sc *scope) (evalFn, sql.Type, error) {
	if q, ok := x.R.(*ast.FuncCallExpr); ok && (q.FnName.L == "__any" || q.FnName.L == "__all") {
		return c.quantified(x, q, sc)
	}
	l, lt, err := c.expr(x.L, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	r, rt, err := c.expr(x.R, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	switch x.Op {
	case opcode.LogicAnd:
		return logic(l, r, true), sql.Bool, nil
	case opcode.LogicOr:
		return logic(l, r, false), sql.Bool, nil
	case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE:
		return comparison(x.Op, l, r), sql.Bool, nil
	case opcode.NullEQ:
		return func(ec *execCtx, e *env) (any, error) {
			a, b, err := both(ec, e, l, r)
			if err != nil {
				return nil, err
			}
			if a == nil || b == nil {
				return a == nil && b == nil, nil
			}
			return compare(a, b) == 0, nil
		}, sql.Bool, nil
	case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.Mod, opcode.IntDiv:
		return arith(x.Op, l, r), arithType(lt, rt), nil
	}
	return nil, sql.Type{}, sql.Errorf(sql.CodeFeatureNotSupported, "operator %s is not supported in catalog queries", x.Op)
}

func both(ec *execCtx, e *env, l, r evalFn) (any, any, error) {
	a, err := l(ec, e)
	if err != nil {
		return nil, nil, err
	}
	b, err := r(ec, e)
	return a, b, err
}

// logic is three-valued AND (and=true) / OR, short-circuiting like PostgreSQL.
func logic(l, r evalFn, and bool) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		a, err := l(ec, e)
		if err != nil {
			return nil, err
		}
		ab, aok := asBool(a)
		if a != nil && aok && ab != and {
			return !and, nil
		}
		b, err := r(ec, e)
		if err != nil {
			return nil, err
		}
		bb, bok := asBool(b)
		if b != nil && bok && bb != and {
			return !and, nil
		}
		if a == nil || b == nil {
			return nil, nil
		}
		return and, nil
	}
}

func cmpHolds(op opcode.Op, c int) bool {
	switch op {
	case opcode.EQ:
		return c == 0
	case opcode.NE:
		return c != 0
	case opcode.LT:
		return c < 0
	case opcode.LE:
		return c <= 0
	case opcode.GT:
		return c > 0
	case opcode.GE:
		return c >= 0
	}
	return false
}

func comparison(op opcode.Op, l, r evalFn) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		a, b, err := both(ec, e, l, r)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		return cmpHolds(op, compare(a, b)), nil
	}
}

func arithType(l, r sql.Type) sql.Type {
	if l.Kind == sql.KindFloat64 || r.Kind == sql.KindFloat64 || l.Kind == sql.KindFloat32 || r.Kind == sql.KindFloat32 {
		return sql.Float64
	}
	if l.Kind == sql.KindInt64 || r.Kind == sql.KindInt64 {
		return sql.Int64
	}
	return sql.Int32
}

func arith(op opcode.Op, l, r evalFn) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		a, b, err := both(ec, e, l, r)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		ai, aok := a.(int64)
		bi, bok := b.(int64)
		if aok && bok {
			switch op {
			case opcode.Plus:
				return ai + bi, nil
			case opcode.Minus:
				return ai - bi, nil
			case opcode.Mul:
				return ai * bi, nil
			}
			if bi == 0 {
				return nil, sql.Errorf(sql.CodeDivisionByZero, "division by zero")
			}
			if op == opcode.Mod {
				return ai % bi, nil
			}
			return ai / bi, nil
		}
		af, _ := asFloat(a)
		bf, _ := asFloat(b)
		switch op {
		case opcode.Plus:
			return af + bf, nil
		case opcode.Minus:
			return af - bf, nil
		case opcode.Mul:
			return af * bf, nil
		}
		if bf == 0 {
			return nil, sql.Errorf(sql.CodeDivisionByZero, "division by zero")
		}
		if op == opcode.Mod {
			return math.Mod(af, bf), nil
		}
		return af / bf, nil
	}
}

// quantified is x op ANY(array) / ALL(array).
func (c *compiler) quantified(x *ast.BinaryOperationExpr, q *ast.FuncCallExpr, sc *scope) (evalFn, sql.Type, error) {
	if len(q.Args) != 1 {
		return nil, sql.Type{}, sql.Errorf(sql.CodeSyntaxError, "ANY/ALL takes one array")
	}
	l, _, err := c.expr(x.L, sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	r, _, err := c.expr(q.Args[0], sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	all := q.FnName.L == "__all"
	return func(ec *execCtx, e *env) (any, error) {
		a, b, err := both(ec, e, l, r)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		return quantify(x.Op, a, toArray(b), all), nil
	}, sql.Bool, nil
}

// quantify applies op between a and every element: ANY is true when one
// holds, ALL when every one does; NULLs make an undecided answer NULL.
func quantify(op opcode.Op, a any, elems []any, all bool) any {
	sawNull := false
	for _, el := range elems {
		if el == nil {
			sawNull = true
			continue
		}
		holds := cmpHolds(op, compare(a, el))
		if holds && !all {
			return true
		}
		if !holds && all {
			return false
		}
	}
	if sawNull {
		return nil
	}
	return all
}

// toArray reads an array value or its text form.
func toArray(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case string:
		if a, ok := parseArray(x); ok {
			return a
		}
	}
	return []any{v}
}
