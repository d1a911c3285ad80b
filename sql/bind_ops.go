package sql

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// isUnknown reports an untyped string literal, NULL or parameter.
func isUnknown(e Expr) bool { return e.Type().Kind == KindUnknown }

// coerceUnknown gives an untyped literal or parameter the type t the context
// asks for; a literal that does not read as t fails as PostgreSQL does (22P02).
func (b *binder) coerceUnknown(e Expr, t Type) (Expr, error) {
	t = operandType(t)
	switch x := e.(type) {
	case *Const:
		if x.Value == nil {
			return &Const{T: t}, nil
		}
		if t.Reg != RegNone {
			// A name, looked up when the statement runs, in its catalog.
			return &Cast{X: &Const{Value: x.Value, T: Text}, T: t}, nil
		}
		v, err := b.params.Input.CoerceText(x.Value.(string), t)
		if err != nil {
			return nil, LiteralInput(err, x.Value.(string))
		}
		if d, ok := v.(Decimal); ok {
			t = Numeric(0, d.Scale)
		}
		return &Const{Value: v, T: t}, nil
	case *Param:
		if b.params.typeOf(x.Index).Kind == KindUnknown {
			b.params.Types[x.Index] = t
		}
		return &Param{Index: x.Index, T: b.params.Types[x.Index]}, nil
	}
	return e, nil
}

// operandType drops modifiers: an unknown compared with numeric(10,2) or
// varchar(5) becomes plain numeric or text, as PostgreSQL resolves operators.
func operandType(t Type) Type {
	switch t.Kind {
	case KindNumeric:
		return Numeric(0, 0)
	case KindVarchar:
		if t.Bpchar {
			return Bpchar(0)
		}
		return Text
	}
	return t
}

// numericRank orders the numeric types for promotion.
func numericRank(t Type) int {
	switch t.Kind {
	case KindInt16:
		return 1
	case KindInt32:
		return 2
	case KindInt64:
		return 3
	case KindNumeric:
		return 4
	case KindFloat32:
		return 5
	case KindFloat64:
		return 6
	}
	return 0
}

func isDateTime(t Type) bool {
	return t.Kind == KindDate || t.Kind == KindTimestamp || t.Kind == KindTimestampTZ
}

// compareDomain is the type both operands are compared in, or false when
// PostgreSQL has no such operator.
func compareDomain(l, r Type) (Type, bool) {
	switch {
	case l.IsNumeric() && r.IsNumeric():
		hi := max(numericRank(l), numericRank(r))
		switch {
		case hi >= 5:
			return Float64, true
		case hi == 4:
			return Numeric(0, 0), true
		}
		return Int64, true
	case l.IsString() && r.IsString():
		return Text, true
	case isDateTime(l) && isDateTime(r):
		switch {
		case l.Kind == KindTimestampTZ || r.Kind == KindTimestampTZ:
			return TimestampTZ, true
		case l.Kind == KindTimestamp || r.Kind == KindTimestamp:
			return Timestamp, true
		}
		return Date, true
	case l.Kind == KindInterval && r.Kind == KindInterval,
		l.Kind == KindInterval && r.Kind == KindTime, l.Kind == KindTime && r.Kind == KindInterval:
		return IntervalT, true // time is cast to interval, implicitly in PostgreSQL
	case l.Kind == KindOID && (r.Kind == KindOID || isInteger(r)), r.Kind == KindOID && isInteger(l):
		return Int64, true // oid = int4 casts the integer to oid; both are int64 datums
	case l.Kind == KindArray && r.Kind == KindArray:
		if _, ok := compareDomain(l.ElemType(), r.ElemType()); ok && l.Elem == r.Elem {
			return l, true
		}
		return Unknown, false
	case l.Kind == r.Kind && l.Kind != KindJSON && l.Kind != KindUnknown && l.Kind != KindRecord:
		return Type{Kind: l.Kind}, true
	}
	return Unknown, false
}

// unify gives untyped operands the other side's type (both untyped: text).
func (b *binder) unify(l, r Expr) (Expr, Expr, error) {
	var err error
	switch {
	case isUnknown(l) && isUnknown(r):
		if l, err = b.coerceUnknown(l, Text); err == nil {
			r, err = b.coerceUnknown(r, Text)
		}
	case isUnknown(l):
		l, err = b.coerceUnknown(l, regAsOID(r.Type()))
	case isUnknown(r):
		r, err = b.coerceUnknown(r, regAsOID(l.Type()))
	}
	return l, r, err
}

// regAsOID is oid for the reg* types: they have no operators of their own,
// PostgreSQL uses oid's, so an untyped operand is read as an oid
// (pg_typeof(1) = 'integer' is 22P02 for type oid).
func regAsOID(t Type) Type {
	t.Reg = RegNone // regtype[] is oid[]
	return t
}

func (b opBinder) bindCompare(op CmpOp, l, r Expr) (Expr, error) {
	l, r, err := b.unify(l, r)
	if err != nil {
		return nil, err
	}
	l, r = bpcharOperands(l, r)
	dom, ok := compareDomain(l.Type(), r.Type())
	if !ok {
		return nil, noOperator(l.Type(), op.String(), r.Type())
	}
	return &Compare{Op: op, L: l, R: r, Domain: dom}, nil
}

// bpcharOperands resolves char(n) compared with varchar as PostgreSQL does,
// by bpchar's operator: the varchar side loses its trailing blanks. Against
// text, char(n) is cast to text instead, which its value already is.
func bpcharOperands(l, r Expr) (Expr, Expr) {
	lt, rt := l.Type(), r.Type()
	varchar := func(t Type) bool { return t.Kind == KindVarchar && !t.Bpchar }
	switch {
	case lt.Bpchar && varchar(rt):
		r = &Cast{X: r, T: Bpchar(0)}
	case rt.Bpchar && varchar(lt):
		l = &Cast{X: l, T: Bpchar(0)}
	}
	return l, r
}

// arithType is the result type of l op r, or false when no operator exists.
func arithType(op string, l, r Type) (Type, bool) {
	if l.IsNumeric() && r.IsNumeric() {
		hi := max(numericRank(l), numericRank(r))
		switch {
		case hi >= 5:
			if op == "%" {
				return Unknown, false
			}
			if l.Kind == KindFloat32 && r.Kind == KindFloat32 {
				return Float32, true
			}
			return Float64, true
		case hi == 4:
			ls, rs := numericScale(l), numericScale(r)
			switch op {
			case "*":
				return Numeric(0, ls+rs), true
			case "/":
				return Numeric(0, max(ls, rs, 16)), true
			}
			return Numeric(0, max(ls, rs)), true
		}
		if numericRank(l) >= numericRank(r) {
			return Type{Kind: l.Kind}, true
		}
		return Type{Kind: r.Kind}, true
	}
	if t, ok := intervalArithType(op, l, r); ok {
		return t, true
	}
	smallInt := func(t Type) bool { return t.Kind == KindInt16 || t.Kind == KindInt32 }
	switch {
	case l.Kind == KindDate && smallInt(r) && (op == "+" || op == "-"):
		return Date, true
	case smallInt(l) && r.Kind == KindDate && op == "+":
		return Date, true
	case l.Kind == KindDate && r.Kind == KindDate && op == "-":
		return Int32, true
	}
	return Unknown, false
}

func numericScale(t Type) int {
	if t.Kind == KindNumeric {
		return t.Scale
	}
	return 0
}

func (b opBinder) bindArith(op string, l, r Expr) (Expr, error) {
	if isUnknown(l) && isUnknown(r) {
		return nil, operatorNotUnique(Unknown, op, Unknown)
	}
	l, r, err := b.unknownInterval(op, l, r)
	if err != nil {
		return nil, err
	}
	l, r, err = b.unify(l, r)
	if err != nil {
		return nil, err
	}
	if op == "+" && l.Type().Kind == KindTime && r.Type().Kind == KindTime {
		return nil, operatorNotUnique(Time, op, Time) // time + interval or interval + time
	}
	l, r = timeAsInterval(op, l, r)
	t, ok := arithType(op, l.Type(), r.Type())
	if !ok {
		return nil, noOperator(l.Type(), op, r.Type())
	}
	return &BinaryOp{Op: op, L: l, R: r, T: t}, nil
}

// bindConcat is ||: text if either side is text (the other is cast), as
// PostgreSQL's anynonarray || text; bytea when both sides are bytea or
// one is and the other untyped.
func (b opBinder) bindConcat(l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if lt.IsArray() || rt.IsArray() {
		return b.bindArrayConcat(l, r)
	}
	if lt.Kind == KindBytea && (rt.Kind == KindBytea || isUnknown(r)) || rt.Kind == KindBytea && isUnknown(l) {
		return b.bindByteaConcat(l, r)
	}
	if !(lt.IsString() || isUnknown(l) || rt.IsString() || isUnknown(r)) {
		return nil, noOperator(lt, "||", rt)
	}
	toText := func(e Expr) (Expr, error) {
		if isUnknown(e) {
			return b.coerceUnknown(e, Text)
		}
		if e.Type().IsString() {
			return e, nil
		}
		return &Cast{X: e, T: Text}, nil
	}
	var err error
	if l, err = toText(l); err != nil {
		return nil, err
	}
	if r, err = toText(r); err != nil {
		return nil, err
	}
	return &BinaryOp{Op: "||", L: l, R: r, T: Text}, nil
}

// bindByteaConcat is bytea || bytea: an untyped operand is read as bytea
// ('\x01'::bytea || 'z' is \x017a), as PostgreSQL resolves an unknown
// operand to the other's type when that operator exists.
func (b opBinder) bindByteaConcat(l, r Expr) (Expr, error) {
	es := []Expr{l, r}
	if err := b.coerceAll(es, Bytea); err != nil {
		return nil, err
	}
	return &BinaryOp{Op: "||", L: es[0], R: es[1], T: Bytea}, nil
}

// bindArrayConcat binds || with an array operand as array_cat,
// array_append or array_prepend; when none fits, the operator is the one
// that does not exist.
func (b opBinder) bindArrayConcat(l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	name := "array_cat"
	switch {
	case lt.IsArray() && (rt.IsArray() || isUnknown(r)), rt.IsArray() && isUnknown(l):
	case lt.IsArray():
		name = "array_append"
	default:
		name = "array_prepend"
	}
	e, err := b.calls().bindArrayCombine(name, []Expr{l, r})
	if e, ok := err.(*pgerr.Error); ok && e.Code == pgerr.UndefinedFunction {
		return nil, noOperator(lt, "||", rt)
	}
	return e, err
}

func (b opBinder) bindIn(n *parse.In) (Expr, error) {
	if n.Sel != nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "IN (subquery) is not supported")
	}
	if row := rowOf(n.X); row != nil {
		return b.composites().bindRowIn(row, n)
	}
	x, err := b.bind(n.X)
	if err != nil {
		return nil, err
	}
	items := make([]Expr, len(n.List))
	readsRow := make([]bool, len(n.List))
	for i, it := range n.List {
		before := b.columns
		if items[i], err = b.bind(it); err != nil {
			return nil, err
		}
		readsRow[i] = b.columns > before
	}
	if isUnknown(x) {
		t, err := b.commonType(items, "IN")
		if err != nil {
			return nil, err
		}
		if x, err = b.coerceUnknown(x, t); err != nil {
			return nil, err
		}
	}
	op := OpEQ // NOT IN is <> ALL, and names that operator
	if n.Not {
		op = OpNE
	}
	if len(items) == 1 {
		// One item is x = item with its own operator, as in PostgreSQL:
		// 'a '::varchar IN ('a'::char(3)) is char's =, true.
		return b.bindCompare(op, x, items[0])
	}
	if x.Type().Reg != RegNone {
		// Several items take x's type, as PostgreSQL's IN list takes its
		// common type: the names are read as reg* input.
		for i := range items {
			if !isUnknown(items[i]) {
				continue
			}
			if items[i], err = b.coerceUnknown(items[i], x.Type()); err != nil {
				return nil, err
			}
		}
	}
	in := &InList{X: x, Not: n.Not, List: items, Domains: make([]Type, len(items)), ReadsRow: readsRow}
	for i, it := range items {
		c, err := b.bindCompare(op, x, it)
		if err != nil {
			return nil, err
		}
		cmp := c.(*Compare)
		in.List[i], in.Domains[i] = cmp.R, cmp.Domain
	}
	return in, nil
}

// bindBetween rewrites as PostgreSQL's parser does: x >= lo AND x <= hi,
// NOT BETWEEN as x < lo OR x > hi.
func (b opBinder) bindBetween(n *parse.Between) (Expr, error) {
	x, err := b.bind(n.X)
	if err != nil {
		return nil, err
	}
	lo, err := b.bind(n.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := b.bind(n.Hi)
	if err != nil {
		return nil, err
	}
	op1, op2 := OpGE, OpLE
	if n.Not {
		op1, op2 = OpLT, OpGT
	}
	c1, err := b.bindCompare(op1, x, lo)
	if err != nil {
		return nil, err
	}
	c2, err := b.bindCompare(op2, x, hi)
	if err != nil {
		return nil, err
	}
	return newLogic(!n.Not, b.folded(c1), b.folded(c2)), nil
}

func (b opBinder) bindLike(xn, pn parse.Expr, escape string, ilike, not bool) (Expr, error) {
	x, err := b.bind(xn)
	if err != nil {
		return nil, err
	}
	p, err := b.bind(pn)
	if err != nil {
		return nil, err
	}
	if x.Type().Bpchar && isUnknown(p) {
		// bpcharlike(character, text): the pattern keeps its blanks.
		if p, err = b.coerceUnknown(p, Text); err != nil {
			return nil, err
		}
	}
	// Only strings match patterns: a typed operand of another type has no
	// operator, whatever the other side (1 LIKE 'a' is 42883, not 22P02).
	stringy := func(e Expr) bool { return isUnknown(e) || e.Type().IsString() }
	if stringy(x) && stringy(p) {
		x, p, err = b.unify(x, p)
	}
	if err != nil {
		return nil, err
	}
	if !x.Type().IsString() || !p.Type().IsString() {
		op := "~~"
		if ilike {
			op = "~~*"
		}
		return nil, noOperator(x.Type(), op, p.Type())
	}
	return &Like{X: x, Pattern: p, Escape: escape, ILike: ilike, Not: not}, nil
}

// commonType resolves the type of CASE arms, COALESCE arguments or an IN
// list the way PostgreSQL's select_common_type does for the types we have.
func (b *binder) commonType(es []Expr, what string) (Type, error) {
	t := Unknown
	for _, e := range es {
		et := e.Type()
		switch {
		case et.Kind == KindUnknown:
		case t.Kind == KindUnknown:
			t = et
		case t.IsNumeric() && et.IsNumeric():
			if numericRank(et) > numericRank(t) || et.Kind == KindNumeric && t.Kind == KindNumeric && et.Scale > t.Scale {
				t = et
			}
			if t.Kind == KindNumeric {
				t = Numeric(0, max(numericScale(t), numericScale(et)))
			}
		case t.IsString() && et.IsString() && t != et:
			// (Text for a mix: PostgreSQL takes the first type without a
			// length, but keeps each char(n) value's padding, which
			// magmalake's char without a length cannot.)
			t = Text
		case t.IsString() && et.IsString():
			// One type throughout stays it: char(4) keeps its padding.
		case isDateTime(t) && isDateTime(et):
			d, _ := compareDomain(t, et)
			t = d
		case isInteger(t) && et.Kind == KindOID:
			t = et // integers cast to oid and the reg* types implicitly
		case t.Kind == KindOID && isInteger(et):
		case t.Kind == KindOID && et.IsNumeric(), t.IsNumeric() && et.Kind == KindOID:
			// One category (numeric), so the first type is taken, and the
			// other has no cast to it.
			return Unknown, pgerr.Errorf(pgerr.CannotCoerce, "%s could not convert type %s to %s", convertContext(what), et.SigName(), t.SigName())
		case t.Kind != et.Kind:
			return Unknown, pgerr.Errorf(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", what, t.SigName(), et.SigName())
		}
	}
	if t.Kind == KindUnknown {
		return Text, nil
	}
	return t, nil
}

// coerceAll converts each expression to t (untyped ones by reading them as t).
func (b *binder) coerceAll(es []Expr, t Type) error {
	for i, e := range es {
		switch {
		case isUnknown(e):
			c, err := b.coerceUnknown(e, t)
			if err != nil {
				return err
			}
			es[i] = c
		case e.Type() != t:
			es[i] = &Cast{X: e, T: t}
		}
	}
	return nil
}

func (b opBinder) bindCase(n *parse.Case) (Expr, error) {
	var operand Expr
	var err error
	if n.Value != nil {
		if operand, err = b.bind(n.Value); err != nil {
			return nil, err
		}
		// An untyped operand is text, as PostgreSQL resolves it before
		// the WHENs: CASE '3' WHEN 1 is text = integer, which does not
		// exist (it compared as integers).
		if isUnknown(operand) {
			if operand, err = b.coerceUnknown(operand, Text); err != nil {
				return nil, err
			}
		}
	}
	c := &Case{}
	results := make([]Expr, 0, len(n.Whens)+1)
	for _, w := range n.Whens {
		var cond Expr
		if operand != nil {
			v, err := b.bind(w.Cond)
			if err != nil {
				return nil, err
			}
			if cond, err = b.bindCompare(OpEQ, operand, v); err != nil {
				return nil, err
			}
			cond = b.folded(cond)
		} else if cond, err = b.bindBool(w.Cond, "CASE/WHEN"); err != nil {
			return nil, err
		}
		r, err := b.bind(w.Result)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond})
		results = append(results, r)
	}
	if n.Else != nil {
		e, err := b.bind(n.Else)
		if err != nil {
			return nil, err
		}
		results = append(results, e)
	}
	if c.T, err = b.commonType(elseFirst(results, n.Else != nil), "CASE"); err != nil {
		return nil, err
	}
	if err := b.coerceAll(results, c.T); err != nil {
		return nil, err
	}
	for i := range c.Whens {
		c.Whens[i].Result = results[i]
	}
	if n.Else != nil {
		c.Else = results[len(results)-1]
	}
	return c, nil
}

// convertContext names the construct in a could-not-convert message.
func convertContext(what string) string {
	if what == "CASE" {
		return "CASE/WHEN"
	}
	return what
}

// elseFirst lists CASE's results with the ELSE first, the order
// PostgreSQL resolves their common type in (and names them in its error).
func elseFirst(results []Expr, hasElse bool) []Expr {
	if !hasElse {
		return results
	}
	n := len(results) - 1
	return append([]Expr{results[n]}, results[:n]...)
}

// unknownInterval resolves an untyped literal added to a timestamp or a
// time as an interval, as PostgreSQL does (timestamp + interval is its only
// timestamp + operator; time + '1 hour' is time + interval, not time +
// date); date + literal is ambiguous there (integer or interval).
func (b opBinder) unknownInterval(op string, l, r Expr) (Expr, Expr, error) {
	isTime := func(e Expr) bool { return e.Type().Kind == KindTime }
	var err error
	switch {
	case op == "*" || op == "/":
		// time * '2' is interval * float8: the only * with a time (cast).
		if isTime(l) && isUnknown(r) {
			r, err = b.coerceUnknown(r, Float64)
		} else if isUnknown(l) && isTime(r) && op == "*" {
			l, err = b.coerceUnknown(l, Float64)
		}
		return l, r, err
	case op != "+":
		return l, r, nil
	}
	ts := func(e Expr) bool {
		k := e.Type().Kind
		return k == KindTimestamp || k == KindTimestampTZ || k == KindTime
	}
	switch {
	case ts(l) && isUnknown(r):
		r, err = b.coerceUnknown(r, IntervalT)
	case isUnknown(l) && ts(r):
		l, err = b.coerceUnknown(l, IntervalT)
	case l.Type().Kind == KindDate && isUnknown(r), isUnknown(l) && r.Type().Kind == KindDate:
		err = operatorNotUnique(l.Type(), "+", r.Type())
	}
	return l, r, err
}

// timeAsInterval applies PostgreSQL's implicit cast of time to interval
// where only that makes an operator exist: timestamp ± time, time +
// timestamp, date - time (all timestamps), interval - time, time * or / a
// number (intervals). time ± interval, time - time and date + time are operators
// of their own (intervalArithType).
func timeAsInterval(op string, l, r Expr) (Expr, Expr) {
	lt, rt := l.Type(), r.Type()
	ts := func(t Type) bool { return t.Kind == KindTimestamp || t.Kind == KindTimestampTZ }
	asInterval := func(e Expr) Expr { return &Cast{X: e, T: IntervalT} }
	switch {
	case ts(lt) && rt.Kind == KindTime && (op == "+" || op == "-"),
		lt.Kind == KindDate && rt.Kind == KindTime && op == "-",
		lt.Kind == KindInterval && rt.Kind == KindTime && op == "-",
		rt.Kind == KindTime && lt.IsNumeric() && op == "*":
		return l, asInterval(r)
	case lt.Kind == KindTime && ts(rt) && op == "+",
		lt.Kind == KindTime && rt.IsNumeric() && (op == "*" || op == "/"):
		return asInterval(l), r
	}
	return l, r
}
