package sql

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
)

// Translation is a WHERE clause as an Iceberg row filter.
type Translation struct {
	// Filter is implied by the WHERE: every row for which the WHERE is TRUE
	// satisfies Filter under Iceberg's two-valued semantics. Pruning may use it.
	Filter iceberg.BooleanExpression
	// Exact: for every row, Filter is true exactly when the WHERE is TRUE, so
	// a file whose rows all satisfy Filter can be dropped unread.
	Exact bool
	// Residual is the part of the WHERE Iceberg could not express (nil when
	// Exact); rows passing Filter must still be checked with Match(Residual).
	Residual Expr
}

// Translate turns a bound WHERE expression into an Iceberg filter over the
// scope's table columns (by name). params are the $n values; they are
// substituted first, text read in ctx's input style as evaluation reads it
// (pruning must agree with the rows Match keeps). Translate never fails:
// what it cannot express widens Filter and lands in Residual.
func Translate(ctx context.Context, e Expr, scope *Scope, params []any) Translation {
	if e, err := substituteParams(e, params, InputStyleOf(ctx)); err == nil {
		return translateConjuncts(e)
	}
	return Translation{Filter: iceberg.AlwaysTrue{}, Residual: e}
}

func translateConjuncts(e Expr) Translation {
	conj := []Expr{e}
	if l, ok := e.(*Logic); ok && l.And {
		conj = l.Args
	}
	var filter iceberg.BooleanExpression = iceberg.AlwaysTrue{}
	var residual []Expr
	for _, c := range conj {
		f, exact := translateBool(c, true)
		filter = iceberg.NewAnd(filter, f)
		if !exact {
			residual = append(residual, c)
		}
	}
	t := Translation{Filter: filter, Exact: len(residual) == 0}
	switch len(residual) {
	case 0:
	case 1:
		t.Residual = residual[0]
	default:
		t.Residual = &Logic{And: true, Args: residual}
	}
	if _, never := filter.(iceberg.AlwaysFalse); never {
		// No row can match: nothing is left to check.
		t.Exact, t.Residual = true, nil
	}
	return t
}

// FilterJSON is the Iceberg REST JSON form of a filter, for EXPLAIN. The filter
// is bound to schema first: unbound timestamp predicates cannot be marshalled.
func FilterJSON(f iceberg.BooleanExpression, schema *iceberg.Schema) ([]byte, error) {
	bound, err := iceberg.BindExpr(schema, f, true)
	if err != nil {
		return nil, fmt.Errorf("bind filter %s: %w", f, err)
	}
	return json.Marshal(bound)
}

// untranslatable is the filter for a predicate Iceberg cannot express.
func untranslatable() (iceberg.BooleanExpression, bool) { return iceberg.AlwaysTrue{}, false }

// translateBool returns a filter implied by "e IS want" (want false: e is
// FALSE, not NULL) and whether it is equivalent to it.
func translateBool(e Expr, want bool) (iceberg.BooleanExpression, bool) {
	switch x := e.(type) {
	case *Logic:
		return translateLogic(x, want)
	case *Not:
		return translateBool(x.X, !want)
	case *Const:
		if x.Value == nil {
			return iceberg.AlwaysFalse{}, true
		}
		if x.Value.(bool) == want {
			return iceberg.AlwaysTrue{}, true
		}
		return iceberg.AlwaysFalse{}, true
	case *ColumnRef:
		if !tableColumn(x) || x.T.Kind != KindBool {
			return untranslatable()
		}
		return iceberg.EqualTo(iceberg.Reference(x.Name), want), true
	case *IsNull:
		col, ok := x.X.(*ColumnRef)
		if !ok || !tableColumn(col) {
			return untranslatable()
		}
		if want != x.Not {
			return iceberg.IsNull(iceberg.Reference(col.Name)), true
		}
		return iceberg.NotNull(iceberg.Reference(col.Name)), true
	case *IsBool:
		return translateIsBool(x, want)
	case *Compare:
		return translateCompare(x, want)
	case *Distinct:
		return translateDistinct(x, want)
	case *InList:
		return translateIn(x, want != x.Not)
	case *Like:
		return translateLike(x, want != x.Not)
	}
	return untranslatable()
}

func translateLogic(x *Logic, want bool) (iceberg.BooleanExpression, bool) {
	// AND is TRUE when all args are; it is FALSE when any is (De Morgan).
	all := x.And == want
	var out iceberg.BooleanExpression
	exact := true
	for _, a := range x.Args {
		f, ex := translateBool(a, want)
		exact = exact && ex
		switch {
		case out == nil:
			out = f
		case all:
			out = iceberg.NewAnd(out, f)
		default:
			out = iceberg.NewOr(out, f)
		}
	}
	return out, exact
}

// translateIsBool: X IS TRUE holds where X is TRUE; X IS NOT TRUE where the
// exact filter for X is false (two-valued complement of an exact filter).
func translateIsBool(x *IsBool, want bool) (iceberg.BooleanExpression, bool) {
	f, exact := translateBool(x.X, x.Value)
	if want != x.Not {
		return f, exact
	}
	if !exact {
		return untranslatable()
	}
	return f.Negate(), true
}

func tableColumn(c *ColumnRef) bool { return c.FieldID > 0 }

// columnAndConst splits a comparison into a table column and a constant, the
// operator turned to read "column op constant".
func columnAndConst(l, r Expr, op CmpOp) (*ColumnRef, *Const, CmpOp, bool) {
	if c, ok := l.(*ColumnRef); ok && tableColumn(c) {
		if k, ok := r.(*Const); ok {
			return c, k, op, true
		}
	}
	if c, ok := r.(*ColumnRef); ok && tableColumn(c) {
		if k, ok := l.(*Const); ok {
			return c, k, op.flip(), true
		}
	}
	return nil, nil, op, false
}

func translateCompare(x *Compare, want bool) (iceberg.BooleanExpression, bool) {
	col, k, op, ok := columnAndConst(x.L, x.R, x.Op)
	if !ok {
		return untranslatable()
	}
	if k.Value == nil {
		return iceberg.AlwaysFalse{}, true // NULL comparisons are never TRUE nor FALSE
	}
	if !want {
		op = op.negate() // FALSE on a non-null column is the negated comparison
	}
	return comparePredicate(col, op, k)
}

func translateDistinct(x *Distinct, want bool) (iceberg.BooleanExpression, bool) {
	col, k, _, ok := columnAndConst(x.L, x.R, OpEQ)
	if !ok {
		return untranslatable()
	}
	same := want == x.Not // the filter asked for is "not distinct"
	ref := iceberg.Reference(col.Name)
	if k.Value == nil {
		if same {
			return iceberg.IsNull(ref), true
		}
		return iceberg.NotNull(ref), true
	}
	if same {
		return comparePredicate(col, OpEQ, k)
	}
	f, exact := comparePredicate(col, OpNE, k)
	return iceberg.NewOr(f, iceberg.IsNull(ref)), exact
}

func translateIn(x *InList, want bool) (iceberg.BooleanExpression, bool) {
	col, ok := x.X.(*ColumnRef)
	if !ok || !tableColumn(col) {
		return untranslatable()
	}
	if len(x.List) > maxIcebergInItems {
		return translateLargeIn(x, col, want)
	}
	ref := iceberg.Reference(col.Name)
	var lits []iceberg.Literal
	hasNull, hasNaN := false, false
	for _, it := range x.List {
		k, ok := it.(*Const)
		if !ok {
			return untranslatable()
		}
		if k.Value == nil {
			hasNull = true
			continue
		}
		lit, res := literalFor(col, k)
		switch res {
		case litNone:
			return untranslatable()
		case litNaN:
			hasNaN = true
		case litExact:
			lits = append(lits, lit)
		}
	}
	f := iceberg.SetPredicate(iceberg.OpIn, ref, lits)
	if hasNaN {
		f = iceberg.NewOr(f, iceberg.IsNaN(ref))
	}
	if want {
		return f, true
	}
	// NOT IN is TRUE only for a non-null value equal to no item, and never
	// when an item is NULL.
	if hasNull {
		return iceberg.AlwaysFalse{}, true
	}
	return iceberg.NewAnd(f.Negate(), iceberg.NotNull(ref)), true
}

// maxIcebergInItems is the longest IN list handed to Iceberg as a set:
// iceberg-go binds and evaluates a set predicate item by item, seconds for a
// million items, so longer lists prune by their range instead and the
// executor's hash set decides each row.
const maxIcebergInItems = 10000

// translateLargeIn is a long IN list as min <= col <= max (inexact); NOT IN
// keeps only what it must: no row when an item is NULL, else non-null rows.
func translateLargeIn(x *InList, col *ColumnRef, want bool) (iceberg.BooleanExpression, bool) {
	ref := iceberg.Reference(col.Name)
	var lo, hi *Const
	hasNull := false
	for k, it := range x.List {
		c, ok := it.(*Const)
		if !ok || x.Domains[k] != x.Domains[0] {
			return untranslatable()
		}
		switch {
		case c.Value == nil:
			hasNull = true
		case lo == nil:
			lo, hi = c, c
		default:
			d := x.Domains[0]
			v := toDomain(c.Value, c.T, d)
			if compareDatums(d, v, toDomain(lo.Value, lo.T, d)) < 0 {
				lo = c
			}
			if compareDatums(d, v, toDomain(hi.Value, hi.T, d)) > 0 {
				hi = c
			}
		}
	}
	if !want {
		if hasNull {
			return iceberg.AlwaysFalse{}, true
		}
		return iceberg.NotNull(ref), false
	}
	if lo == nil {
		return iceberg.AlwaysFalse{}, true
	}
	low, _ := comparePredicate(col, OpGE, lo)
	high, _ := comparePredicate(col, OpLE, hi)
	return iceberg.NewAnd(low, high), false
}

func translateLike(x *Like, want bool) (iceberg.BooleanExpression, bool) {
	col, ok := x.X.(*ColumnRef)
	k, ok2 := x.Pattern.(*Const)
	if !ok || !ok2 || !tableColumn(col) || k.Value == nil {
		return untranslatable()
	}
	ref := iceberg.Reference(col.Name)
	p, err := compileLike(k.Value.(string), x.Escape, false)
	// char(n) matches its padded value, stored without the blanks.
	if err != nil || x.ILike || col.T.Bpchar || p.dangling() {
		return iceberg.NotNull(ref), false
	}
	prefix, exactPrefix := p.likePrefix()
	var f iceberg.BooleanExpression
	exact := true
	switch {
	case len(p.kind) == len([]rune(prefix)): // no wildcard: equality
		f = iceberg.EqualTo(ref, prefix)
	case exactPrefix && prefix == "":
		f = iceberg.NotNull(ref)
	case exactPrefix:
		f = iceberg.StartsWith(ref, prefix)
	case prefix != "":
		f, exact = iceberg.StartsWith(ref, prefix), false
	default:
		f, exact = iceberg.NotNull(ref), false
	}
	if want {
		return f, exact
	}
	if !exact {
		return iceberg.NotNull(ref), false
	}
	return iceberg.NewAnd(f.Negate(), iceberg.NotNull(ref)), true
}

// substituteParams replaces parameters by constants of their bound types.
func substituteParams(e Expr, params []any, in InputStyle) (Expr, error) {
	var err error
	out := rewrite(e, func(n Expr) Expr {
		p, ok := n.(*Param)
		if !ok || err != nil {
			return n
		}
		if p.Index >= len(params) {
			err = pgerr.Errorf(pgerr.ProtocolViolation, "there is no parameter $%d", p.Index+1)
			return n
		}
		t := p.T
		if t.Kind == KindUnknown {
			t = Text
		}
		var v any
		if v, err = in.CoerceParam(params[p.Index], t); err != nil {
			return n
		}
		return &Const{Value: v, T: t}
	})
	return out, err
}

// rewrite rebuilds e bottom-up through f, sharing unchanged nodes.
func rewrite(e Expr, f func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	all := func(es []Expr) []Expr {
		out := make([]Expr, len(es))
		for i, a := range es {
			out[i] = rewrite(a, f)
		}
		return out
	}
	switch x := e.(type) {
	case *UnaryOp:
		return f(&UnaryOp{Op: x.Op, X: rewrite(x.X, f), T: x.T})
	case *BinaryOp:
		return f(&BinaryOp{Op: x.Op, L: rewrite(x.L, f), R: rewrite(x.R, f), T: x.T})
	case *Compare:
		return f(&Compare{Op: x.Op, L: rewrite(x.L, f), R: rewrite(x.R, f), Domain: x.Domain})
	case *Logic:
		return f(&Logic{And: x.And, Args: all(x.Args)})
	case *Not:
		return f(&Not{X: rewrite(x.X, f)})
	case *IsNull:
		return f(&IsNull{X: rewrite(x.X, f), Not: x.Not})
	case *IsBool:
		return f(&IsBool{X: rewrite(x.X, f), Value: x.Value, Not: x.Not})
	case *Distinct:
		return f(&Distinct{L: rewrite(x.L, f), R: rewrite(x.R, f), Not: x.Not, Domain: x.Domain})
	case *InList:
		return f(&InList{X: rewrite(x.X, f), List: all(x.List), Domains: x.Domains, Not: x.Not, Array: x.Array})
	case *Like:
		return f(&Like{X: rewrite(x.X, f), Pattern: rewrite(x.Pattern, f), Escape: x.Escape, ILike: x.ILike, Not: x.Not})
	case *Case:
		c := &Case{T: x.T, Else: rewrite(x.Else, f)}
		for _, w := range x.Whens {
			c.Whens = append(c.Whens, When{Cond: rewrite(w.Cond, f), Result: rewrite(w.Result, f)})
		}
		return f(c)
	case *Cast:
		return f(&Cast{X: rewrite(x.X, f), T: x.T, Round: x.Round})
	case *Func:
		return f(&Func{Name: x.Name, Args: all(x.Args), T: x.T})
	case *AggCall:
		c := &AggCall{Name: x.Name, Arg: rewrite(x.Arg, f), Sep: rewrite(x.Sep, f), Distinct: x.Distinct, T: x.T}
		for _, o := range x.OrderBy {
			c.OrderBy = append(c.OrderBy, AggOrder{Key: rewrite(o.Key, f), Desc: o.Desc, NullsFirst: o.NullsFirst})
		}
		return f(c)
	}
	return f(e)
}
