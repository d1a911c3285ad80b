package sql

import (
	"context"
	"slices"
	"strings"
)

// fold evaluates an operator whose operands are all constants once, at bind
// time, as PostgreSQL's planner does: WHERE id = 0+0+...+0 then compares
// with one constant per row instead of computing a thousand-term sum (and
// keeping its intermediates) for every batch. Functions fold when their
// registry entry says they are immutable (not random(), clock_timestamp(),
// now(), the catalog's) and they are not over timestamptz, whose value
// depends on the session; parameters never do. An operator whose folding
// fails (1/0) is left as it is, to fail, or not, when and where the
// executor evaluates it: CASE WHEN false THEN 1/0 END is 1.
// Casts of text among the operands read it in the style in.
//
// Before that, simplify applies the rules of PostgreSQL's
// eval_const_expressions that evaluate nothing: a strict operator or
// function with a NULL constant operand is NULL whatever its other operands
// (a / 0 = NULL is NULL, not a division by zero; a function is strict as
// its registry entry says), and AND, OR, CASE and
// COALESCE drop what a constant makes unreachable.
func fold(e Expr, in InputStyle) Expr {
	e = simplify(e, in)
	if !foldable(e) {
		return e
	}
	return evalConst(e, in)
}

// evalConst is e, whose operands are constants, evaluated; e itself when
// that fails.
func evalConst(e Expr, in InputStyle) Expr {
	ev := newEvaluator(WithInputStyle(context.Background(), in), nil, nil)
	vals, err := ev.eval(e, []int{0})
	if err != nil {
		return e
	}
	return &Const{Value: vals[0], T: e.Type()}
}

// foldable: an operator node with only constant operands.
func foldable(e Expr) bool {
	switch x := e.(type) {
	case *UnaryOp:
		return constant(x.X)
	case *BinaryOp:
		return constant(x.L) && constant(x.R)
	case *Compare:
		return constant(x.L) && constant(x.R)
	case *Distinct:
		return constant(x.L) && constant(x.R)
	case *Not:
		return constant(x.X)
	case *IsNull:
		return constant(x.X)
	case *IsBool:
		return constant(x.X)
	case *Logic:
		return allConstant(x.Args)
	case *Func:
		return immutable(x) && allConstant(x.Args)
	}
	return false
}

func allConstant(es []Expr) bool {
	for _, a := range es {
		if !constant(a) {
			return false
		}
	}
	return true
}

// immutable reports whether x's value is its arguments' alone, as for
// PostgreSQL's immutable functions: the front end's internal forms (array
// constructors, subscripts, field selection) are left to the executor, and
// so is anything over timestamptz or an oid (the session's time zone, the
// catalog).
func immutable(x *Func) bool {
	if f := scalarFunction(x.Name); f == nil || f.Volatility != Immutable || strings.HasPrefix(x.Name, "__") || sessionBound(x.T) {
		return false
	}
	return !slices.ContainsFunc(x.Args, func(a Expr) bool { return sessionBound(a.Type()) })
}

func sessionBound(t Type) bool {
	k := t.Kind
	if k == KindArray {
		k = t.Elem
	}
	return k == KindTimestampTZ || k == KindOID
}

func constant(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.T.Kind != KindUnknown
}

// simplify is e with PostgreSQL's plan-time simplifications that need no
// evaluation (see fold); e's operands are folded already (the binder folds
// the nodes it builds without binding them: BETWEEN's comparisons, a
// simple CASE's, a row comparison's).
func simplify(e Expr, in InputStyle) Expr {
	switch x := e.(type) {
	case *UnaryOp:
		return nullIfAnyNull(e, in, x.X)
	case *BinaryOp:
		return nullIfAnyNull(e, in, x.L, x.R)
	case *Compare:
		return nullIfAnyNull(e, in, x.L, x.R)
	case *Like:
		return nullIfAnyNull(e, in, x.X, x.Pattern)
	case *Not:
		return nullIfAnyNull(e, in, x.X)
	case *Cast:
		return nullIfAnyNull(e, in, x.X)
	case *InList:
		return simplifyIn(x, in)
	case *Func:
		if x.Name == "coalesce" {
			return simplifyCoalesce(x)
		}
		if f := scalarFunction(x.Name); f != nil && f.Strict {
			return nullIfAnyNull(e, in, x.Args...)
		}
	case *Logic:
		return simplifyLogic(x, in)
	case *Case:
		return simplifyCase(x)
	}
	return e
}

// nullIfAnyNull is a NULL of e's type when one of e's operands is a NULL
// constant (e strict), else e. PostgreSQL simplifies the operands first, so
// one that holds a constant error (1 / 0) raises it: e is then left for
// the executor to raise it too.
func nullIfAnyNull(e Expr, in InputStyle, operands ...Expr) Expr {
	if e.Type().Kind == KindUnknown || !slices.ContainsFunc(operands, isNullConst) {
		return e
	}
	for _, o := range operands {
		if failsToFold(o, in) {
			return e
		}
	}
	return &Const{T: e.Type()}
}

// simplifyIn folds x [NOT] IN (list) to a constant where PostgreSQL's
// planner does. Its parser makes the list = ANY (ARRAY[...]) of the items
// that read no column when there are two or more of them, OR'ed with one
// x = item per other item (AND and <> for NOT IN); the planner then folds
// each = with a NULL constant side to NULL, and = ANY only when x and the
// items are all constants. The IN is a constant when one part decides it
// or all parts are constants. x = ANY (ARRAY[...]) is one = ANY, folded by
// fold alone.
func simplifyIn(x *InList, in InputStyle) Expr {
	if x.Array {
		return x
	}
	var grouped, single []int // items in = ANY, items compared alone
	for i := range x.List {
		if i < len(x.ReadsRow) && x.ReadsRow[i] {
			single = append(single, i)
		} else {
			grouped = append(grouped, i)
		}
	}
	if len(grouped) < 2 {
		single, grouped = append(single, grouped...), nil
	}
	var parts []Expr
	if grouped != nil {
		parts = append(parts, inPart(x, grouped, in))
	}
	for _, i := range single {
		parts = append(parts, inPart(x, []int{i}, in))
	}
	decisive := !x.Not // IN is decided by a match, NOT IN by one
	known := true
	for _, p := range parts {
		c, ok := p.(*Const)
		switch {
		case ok && c.Value == decisive:
			return c
		case !ok:
			known = false
		}
	}
	if !known || slices.ContainsFunc(parts, func(p Expr) bool { return failsToFold(p, in) }) {
		return x
	}
	if slices.ContainsFunc(parts, isNullConst) {
		return &Const{T: Bool}
	}
	return &Const{Value: !decisive, T: Bool}
}

// inPart is x [NOT] IN over the items at idx: a constant when it folds.
func inPart(x *InList, idx []int, in InputStyle) Expr {
	part := &InList{X: x.X, Not: x.Not}
	for _, i := range idx {
		part.List = append(part.List, x.List[i])
		part.Domains = append(part.Domains, x.Domains[i])
	}
	if len(idx) == 1 && (isNullConst(x.X) || isNullConst(part.List[0])) {
		return nullIfAnyNull(part, in, x.X, part.List[0])
	}
	if constant(x.X) && allConstant(part.List) {
		return evalConst(part, in)
	}
	return part
}

// failsToFold reports whether e holds an operator over constants that does
// not evaluate (1 / 0).
func failsToFold(e Expr, in InputStyle) bool {
	if foldable(e) {
		_, ok := fold(e, in).(*Const)
		return !ok
	}
	return slices.ContainsFunc(Children(e), func(c Expr) bool { return c != nil && failsToFold(c, in) })
}

// isNullConst reports a NULL constant, cast or not (the casts coercion adds
// after binding are not simplified themselves).
func isNullConst(e Expr) bool {
	switch x := e.(type) {
	case *Const:
		return x.Value == nil
	case *Cast:
		return isNullConst(x.X)
	}
	return false
}

// isBoolConst reports a constant TRUE (want true) or FALSE.
func isBoolConst(e Expr, want bool) bool {
	c, ok := e.(*Const)
	return ok && c.Value == want
}

// simplifyLogic drops the constants an AND (TRUE) or OR (FALSE) ignores
// and answers at once for one that decides it, as PostgreSQL's planner
// does: false AND a / 0 = 1 is false without evaluating the division. It
// simplifies the arguments in order, as PostgreSQL does, so a constant
// error before the deciding constant is left to raise.
func simplifyLogic(x *Logic, in InputStyle) Expr {
	decisive := !x.And // AND is decided by false, OR by true
	args := make([]Expr, 0, len(x.Args))
	for _, a := range x.Args {
		switch {
		case isBoolConst(a, decisive):
			if slices.ContainsFunc(args, func(e Expr) bool { return failsToFold(e, in) }) {
				return x
			}
			return &Const{Value: decisive, T: Bool}
		case isBoolConst(a, !decisive):
			continue
		}
		args = append(args, a)
	}
	switch len(args) {
	case len(x.Args):
		return x
	case 0:
		return &Const{Value: !decisive, T: Bool}
	case 1:
		return args[0]
	}
	return &Logic{And: x.And, Args: args}
}

// simplifyCase drops the arms whose condition is a constant FALSE or NULL
// and ends the CASE at one whose condition is a constant TRUE.
func simplifyCase(x *Case) Expr {
	var whens []When
	for _, w := range x.Whens {
		if c, ok := w.Cond.(*Const); ok && c.T.Kind == KindBool {
			if c.Value != true {
				continue
			}
			if len(whens) == 0 {
				return w.Result
			}
			return &Case{Whens: whens, Else: w.Result, T: x.T}
		}
		whens = append(whens, w)
	}
	switch {
	case len(whens) == len(x.Whens):
		return x
	case len(whens) > 0:
		return &Case{Whens: whens, Else: x.Else, T: x.T}
	case x.Else != nil:
		return x.Else
	}
	return &Const{T: x.T}
}

// simplifyCoalesce drops NULL constant arguments and every argument after a
// non-NULL constant: coalesce(1, a / 0) is 1.
func simplifyCoalesce(x *Func) Expr {
	var args []Expr
	for _, a := range x.Args {
		if isNullConst(a) {
			continue
		}
		args = append(args, a)
		if _, ok := a.(*Const); ok {
			break
		}
	}
	switch len(args) {
	case 0:
		return &Const{T: x.T}
	case 1:
		return args[0]
	case len(x.Args):
		return x
	}
	return &Func{Name: x.Name, Args: args, T: x.T}
}

// gated is a WHERE-like condition (WHERE, JOIN/ON, HAVING: a row passes on
// TRUE alone) with a conjunct that is a constant NULL made FALSE:
// PostgreSQL checks such a conjunct once, before reading any row, so the
// others are never evaluated (WHERE NULL AND a / 0 = 1 is no rows, not a
// division by zero), unless one holds a constant error it raises first.
func gated(e Expr, in InputStyle) Expr {
	l, ok := e.(*Logic)
	if !ok || !l.And || !slices.ContainsFunc(l.Args, isNullConst) {
		return e
	}
	if slices.ContainsFunc(l.Args, func(a Expr) bool { return failsToFold(a, in) }) {
		return e
	}
	return &Const{Value: false, T: Bool}
}
