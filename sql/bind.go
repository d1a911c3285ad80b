package sql

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// ScopeColumn is one input column an expression can name.
type ScopeColumn struct {
	Table   string // qualifier ("" when none)
	Name    string
	T       Type
	FieldID int // Iceberg field id; 0 for computed columns
	// Hidden columns answer only to their qualifier: the copies a join's
	// USING merged into one unqualified column.
	Hidden bool
	// System columns (a v3 table's _row_id) answer to their name but are
	// never part of *, as PostgreSQL's ctid and xmin.
	System bool
	// Default is what a row written without the column gets (a table
	// column's write-default); nil: NULL.
	Default *Const
	// DefaultErr, when set, is why the column's default cannot be read:
	// writing a row without the column fails with it rather than store
	// NULL in its place.
	DefaultErr error
}

// DefaultValue is the value a row written without c gets.
func (c ScopeColumn) DefaultValue() (*Const, error) {
	if c.DefaultErr != nil {
		return nil, c.DefaultErr
	}
	if c.Default != nil {
		return c.Default, nil
	}
	return &Const{T: c.T}, nil
}

// Scope is the input batch layout: batch column i is Columns[i].
type Scope struct {
	Columns []ScopeColumn
	// Aliased maps the name of a relation that the query gave an alias to
	// that alias: its own name no longer qualifies its columns.
	Aliased map[string]string
	// Outer resolves the names a subquery does not define in the query
	// around it; nil outside subqueries.
	Outer *Outer
	// Computed maps calls the source computes already (a select list's
	// set-returning function), by their syntax, to the column holding them.
	Computed map[Syntax]string
	// Named, when not nil, gets the index of every column an expression
	// bound over this scope names, also one that simplification then drops
	// (a / 0 = NULL is NULL): binding again over a scope reduced to the
	// columns the bound expressions read must still find it.
	Named map[int]bool
}

// Params records the types of $1..$n: client-given OIDs, else inferred from
// context while binding, else text.
type Params struct {
	Types []Type
	// Input is how literals are read while binding: the session's DateStyle
	// when the statement is prepared, as PostgreSQL reads them then.
	Input InputStyle
	// Subqueries plans the subqueries of the statement's expressions; nil
	// where a statement has no query engine behind it.
	Subqueries SubqueryPlanner
}

// NewParams starts from the client's parameter OIDs (0 = infer).
func NewParams(oids []uint32) *Params {
	p := &Params{Types: make([]Type, len(oids))}
	for i, o := range oids {
		p.Types[i] = TypeFromOID(o)
	}
	return p
}

// OIDs are the parameter type OIDs to describe; unresolved ones are text.
func (p *Params) OIDs() []uint32 {
	out := make([]uint32, len(p.Types))
	for i, t := range p.Types {
		if t.Kind == KindUnknown {
			t = Text
		}
		out[i] = t.OID()
	}
	return out
}

func (p *Params) typeOf(i int) Type {
	for len(p.Types) <= i {
		p.Types = append(p.Types, Unknown)
	}
	return p.Types[i]
}

// binder binds one expression tree. It holds the state of the walk (scope,
// parameters, aggregate and window context, depth) and dispatches each node;
// it binds column references itself and coerces for the others. Operators,
// calls, aggregates and composites are bound by the types below, which share
// the binder they embed.
type binder struct {
	scope  *Scope
	params *Params
	agg    *AggContext // nil outside aggregate context
	inAgg  bool        // binding an aggregate's argument
	// windows collects window calls where the clause allows them.
	windows  *WindowContext
	inWindow bool   // binding a window call's arguments
	clause   string // the clause being bound, for errors ("WHERE")
	depth    int    // recursion depth, bounded by parse.MaxTreeDepth
	// columns counts the column references bound in this scope, so a
	// caller can tell whether a subexpression names one (simplification
	// may drop it afterwards).
	columns int
}

// opBinder binds operators, comparisons, CASE, casts and parameters.
type opBinder struct{ *binder }

// callBinder binds function calls: the internal forms the normaliser
// writes, registered scalar functions and their argument coercions.
type callBinder struct{ *binder }

// aggBinder binds aggregate and window calls, grouping and the checks
// that columns outside an aggregate are grouped.
type aggBinder struct{ *binder }

// compositeBinder binds what builds or unpacks composite values: ARRAY
// constructors and subscripts, row comparisons, and subqueries.
type compositeBinder struct{ *binder }

func (b *binder) ops() opBinder               { return opBinder{b} }
func (b *binder) calls() callBinder           { return callBinder{b} }
func (b *binder) aggs() aggBinder             { return aggBinder{b} }
func (b *binder) composites() compositeBinder { return compositeBinder{b} }

// Bind resolves names, functions and types in parsed expression syntax.
func Bind(s Syntax, scope *Scope, params *Params) (Expr, error) {
	return bindAST(nodeOf(s), scope, params)
}

// bindAST binds a parsed expression (see sql/parse's normaliser contract:
// __param, __cast, __true, __false, __ilike).
func bindAST(node parse.Expr, scope *Scope, params *Params) (Expr, error) {
	return bindTop(node, scope, params, nil, (*binder).finish)
}

// bindTop binds a whole expression and lets last settle what its context
// leaves untyped.
func bindTop(node parse.Expr, scope *Scope, params *Params, agg *AggContext, last func(*binder, Expr) (Expr, error)) (Expr, error) {
	if params == nil {
		params = &Params{}
	}
	b := &binder{scope: scope, params: params, agg: agg}
	e, err := b.bind(node)
	if err != nil {
		return nil, err
	}
	return last(b, e)
}

// BindCondition binds a WHERE-like clause named clause: an untyped
// literal or parameter reads as boolean there, as in PostgreSQL (WHERE NULL
// matches nothing), and anything else must be boolean.
func BindCondition(s Syntax, scope *Scope, params *Params, clause string) (Expr, error) {
	return bindConditionAST(nodeOf(s), scope, params, clause)
}

func bindConditionAST(node parse.Expr, scope *Scope, params *Params, clause string) (Expr, error) {
	if params == nil {
		params = &Params{}
	}
	b := &binder{scope: scope, params: params, clause: clause}
	e, err := b.bind(node)
	if err != nil {
		return nil, err
	}
	if e, err = b.requireBool(e, clause); err != nil {
		return nil, err
	}
	if clause == "WHEN" {
		return e, nil // MERGE's: evaluated per row, not before the rows
	}
	return gated(e, params.Input), nil
}

// finish resolves what context left untyped to text, as PostgreSQL does.
func (b *binder) finish(e Expr) (Expr, error) {
	if isUnknown(e) {
		return b.coerceUnknown(e, Text)
	}
	return e, nil
}

func (b *binder) bind(node parse.Expr) (Expr, error) {
	if b.depth++; b.depth > parse.MaxTreeDepth {
		return nil, parse.TooDeep(parse.MaxTreeDepth)
	}
	defer func() { b.depth-- }()
	e, err := b.bindNode(node)
	if err != nil {
		return nil, err
	}
	return fold(e, b.params.Input), nil
}

// folded is e, a node the binder built without binding it, folded as
// bind folds what it binds.
func (b *binder) folded(e Expr) Expr { return fold(e, b.params.Input) }

func (b *binder) bindNode(node parse.Expr) (Expr, error) {
	if col, ok := b.computed(node); ok {
		for i, c := range b.scope.Columns {
			if c.Name == col {
				return &ColumnRef{Index: i, Table: c.Table, Name: c.Name, T: c.T, FieldID: c.FieldID}, nil
			}
		}
	}
	if b.agg != nil && !b.inAgg {
		if ref := b.aggs().matchGroup(node); ref != nil {
			return ref, nil
		}
	}
	if e, ok, err := b.composites().bindSubqueryNode(node); ok {
		return e, err
	}
	switch n := node.(type) {
	case *parse.Const:
		return bindLiteral(n.Value)
	case *parse.ColumnRef:
		return b.bindColumn(n)
	case *parse.Paren:
		return b.bind(n.X)
	case *parse.Unary:
		return b.bindUnary(n)
	case *parse.Binary:
		return b.bindBinary(n)
	case *parse.IsNull:
		x, err := b.bind(n.X)
		if err != nil {
			return nil, err
		}
		if isUnknown(x) {
			if x, err = b.coerceUnknown(x, Text); err != nil {
				return nil, err
			}
		}
		return &IsNull{X: x, Not: n.Not}, nil
	case *parse.IsTruth:
		x, err := b.bindBool(n.X, "IS TRUE")
		if err != nil {
			return nil, err
		}
		return &IsBool{X: x, Value: n.True, Not: n.Not}, nil
	case *parse.In:
		return b.ops().bindIn(n)
	case *parse.Between:
		return b.ops().bindBetween(n)
	case *parse.Like:
		esc := ""
		if n.Escape != 0 {
			esc = string(rune(n.Escape))
		}
		return b.ops().bindLike(n.X, n.Pattern, esc, n.ILike, n.Not)
	case *parse.Case:
		return b.ops().bindCase(n)
	case *parse.FuncCall:
		return b.calls().bindFuncCall(n)
	case *parse.AggregateCall:
		return b.aggs().bindAggregate(n)
	case *parse.WindowCall:
		return b.aggs().bindWindow(n)
	case *parse.Regexp:
		return b.calls().bindRegexOp(n)
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported", nodeText(node))
}

func nodeText(n parse.Node) string { return constructName(n) }

// bindLiteral types a constant as PostgreSQL's parser does: integers are int4
// when they fit, else int8, else numeric; decimals and exponent forms are
// numeric; strings are unknown until context gives them a type.
func bindLiteral(v any) (Expr, error) {
	switch x := v.(type) {
	case nil:
		return &Const{T: Unknown}, nil
	case int64:
		return intConst(x), nil
	case uint64:
		if x <= math.MaxInt64 {
			return intConst(int64(x)), nil
		}
		d, _ := ParseDecimal(strconv.FormatUint(x, 10))
		return &Const{Value: d, T: Numeric(0, 0)}, nil
	case parse.Decimal:
		d, ok := ParseDecimal(string(x))
		if !ok {
			return nil, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid numeric literal %s", string(x))
		}
		return &Const{Value: d, T: Numeric(0, d.Scale)}, nil
	case float64:
		d, ok := ParseDecimal(strconv.FormatFloat(x, 'f', -1, 64))
		if !ok {
			return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "numeric literal out of range")
		}
		return &Const{Value: d, T: Numeric(0, d.Scale)}, nil
	case string:
		return &Const{Value: x, T: Unknown}, nil
	case []byte:
		return &Const{Value: string(x), T: Unknown}, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this literal is not supported")
}

func intConst(v int64) *Const {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		return &Const{Value: v, T: Int32}
	}
	return &Const{Value: v, T: Int64}
}

func (b *binder) bindColumn(cn *parse.ColumnRef) (Expr, error) {
	if b.agg != nil && !b.inAgg {
		return nil, b.aggs().ungroupedColumn(cn)
	}
	name, table := cn.Name, cn.Table
	found := -1
	for i, c := range b.scope.Columns {
		if c.Name != name || (table != "" && c.Table != table) || (table == "" && c.Hidden) {
			continue
		}
		if found >= 0 {
			return nil, pgerr.Errorf(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
		}
		found = i
	}
	if found < 0 && b.scope.Outer != nil {
		e, err := b.scope.Outer.ref(cn)
		if err == nil || !isUndefinedName(err) {
			return e, err
		}
	}
	if found < 0 {
		if table != "" && !b.scope.hasQualifier(table) {
			return nil, b.scope.missingRelation(table, name)
		}
		err := UndefinedColumn(table, name)
		err.Hint = columnHint(b.scope, table, name)
		return nil, err
	}
	b.columns++
	if b.scope.Named != nil {
		b.scope.Named[found] = true
	}
	c := b.scope.Columns[found]
	return &ColumnRef{Index: found, Table: c.Table, Name: c.Name, T: c.T, FieldID: c.FieldID}, nil
}

func (b *binder) bindUnary(n *parse.Unary) (Expr, error) {
	switch n.Op {
	case parse.OpNot, parse.OpNot2:
		x, err := b.bindBool(n.X, "NOT")
		if err != nil {
			return nil, err
		}
		return &Not{X: x}, nil
	case parse.OpMinus, parse.OpPlus:
		x, err := b.bind(n.X)
		if err != nil {
			return nil, err
		}
		op := "-"
		if n.Op == parse.OpPlus {
			op = "+"
		}
		return b.bindNegate(op, x, signedLiteral(n.X))
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "operator %s is not supported", n.Op)
}

// signedLiteral reports a numeric literal, in parentheses or after minus
// signs: PostgreSQL's grammar folds the minus into such a literal's text,
// whose value then decides its type (-2147483648 is integer).
func signedLiteral(n parse.Expr) bool {
	switch x := n.(type) {
	case *parse.Const:
		return true
	case *parse.Paren:
		return signedLiteral(x.X)
	case *parse.Unary:
		return x.Op == parse.OpMinus && signedLiteral(x.X)
	}
	return false
}

// literalIntType is an integer literal's type: integer when it fits.
func literalIntType(v int64) Type {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		return Int32
	}
	return Int64
}

// bindNegate folds the sign into constants; a negated numeric literal that
// fits bigint is bigint, as PostgreSQL's grammar makes -9223372036854775808,
// but a cast stays its type: -1::numeric is -(1::numeric), numeric.
func (b *binder) bindNegate(op string, x Expr, literal bool) (Expr, error) {
	if isUnknown(x) {
		return nil, prefixOperatorNotUnique(op, Unknown)
	}
	if !x.Type().IsNumeric() && x.Type().Kind != KindInterval {
		return nil, noPrefixOperator(op, x.Type())
	}
	if op == "+" {
		return x, nil
	}
	if c, ok := x.(*Const); ok && c.Value != nil {
		switch v := c.Value.(type) {
		case int64:
			if literal && isIntegerKind(c.T) && v != math.MinInt64 {
				return &Const{Value: -v, T: literalIntType(-v)}, nil
			}
			if v != math.MinInt64 {
				return &Const{Value: -v, T: c.T}, nil
			}
		case Decimal:
			if c.T.Kind == KindNumeric {
				nd := v.neg()
				if literal && nd.Scale == 0 && nd.Coef.IsInt64() {
					return &Const{Value: nd.Coef.Int64(), T: Int64}, nil
				}
				return &Const{Value: nd, T: c.T}, nil
			}
		}
	}
	return &UnaryOp{Op: "-", X: x, T: x.Type()}, nil
}

// bindBool binds an operand that must be boolean (AND, OR, NOT, WHEN, IS TRUE).
func (b *binder) bindBool(node parse.Expr, ctxName string) (Expr, error) {
	x, err := b.bind(node)
	if err != nil {
		return nil, err
	}
	return b.requireBool(x, ctxName)
}

func (b *binder) requireBool(x Expr, ctxName string) (Expr, error) {
	if isUnknown(x) {
		return b.coerceUnknown(x, Bool)
	}
	if x.Type().Kind != KindBool {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", ctxName, x.Type().SigName())
	}
	return x, nil
}

func (b *binder) bindBinary(n *parse.Binary) (Expr, error) {
	if call, all, ok := quantifiedArray(n.R); ok {
		return b.ops().bindArrayQuantified(n.Op, n.L, call, all)
	}
	switch n.Op {
	case parse.OpAnd, parse.OpOr:
		name := "AND"
		if n.Op == parse.OpOr {
			name = "OR"
		}
		l, err := b.bindBool(n.L, name)
		if err != nil {
			return nil, err
		}
		r, err := b.bindBool(n.R, name)
		if err != nil {
			return nil, err
		}
		return newLogic(n.Op == parse.OpAnd, l, r), nil
	}
	if lr, rr := rowOf(n.L), rowOf(n.R); lr != nil && rr != nil {
		return b.composites().bindRowCompare(n.Op, lr, rr)
	}
	l, err := b.bind(n.L)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(n.R)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case parse.OpEQ, parse.OpNE, parse.OpLT, parse.OpLE, parse.OpGT, parse.OpGE:
		return b.ops().bindCompare(cmpOpOf(n.Op), l, r)
	case parse.OpNullEQ:
		c, err := b.ops().bindCompare(OpEQ, l, r)
		if err != nil {
			return nil, err
		}
		cmp := c.(*Compare)
		return &Distinct{L: cmp.L, R: cmp.R, Not: true, Domain: cmp.Domain}, nil
	case parse.OpPlus, parse.OpMinus, parse.OpMul, parse.OpDiv, parse.OpMod:
		return b.ops().bindArith(arithOpOf(n.Op), l, r)
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "operator %s is not supported", n.Op)
}

// newLogic flattens nested ANDs (ORs) into one node.
func newLogic(and bool, args ...Expr) Expr {
	var flat []Expr
	for _, a := range args {
		if l, ok := a.(*Logic); ok && l.And == and {
			flat = append(flat, l.Args...)
			continue
		}
		flat = append(flat, a)
	}
	if !and {
		flat = mergeEqualities(flat)
		if len(flat) == 1 {
			return flat[0]
		}
	}
	return &Logic{And: and, Args: flat}
}

func cmpOpOf(op parse.Op) CmpOp {
	switch op {
	case parse.OpNE:
		return OpNE
	case parse.OpLT:
		return OpLT
	case parse.OpLE:
		return OpLE
	case parse.OpGT:
		return OpGT
	case parse.OpGE:
		return OpGE
	}
	return OpEQ
}

func arithOpOf(op parse.Op) string {
	switch op {
	case parse.OpMinus:
		return "-"
	case parse.OpMul:
		return "*"
	case parse.OpDiv:
		return "/"
	case parse.OpMod:
		return "%"
	}
	return "+"
}

func (s *Scope) hasQualifier(table string) bool {
	for _, c := range s.Columns {
		if c.Table == table {
			return true
		}
	}
	return false
}

// missingRelation is PostgreSQL's 42P01 for a column qualified by a name no
// relation of the query goes by: an aliased table's own name, or nothing.
func (s *Scope) missingRelation(table, column string) *pgerr.Error {
	ref := &pgerr.NameRef{Parts: []string{table, column}, Column: true}
	if alias, ok := s.Aliased[table]; ok {
		return &pgerr.Error{Code: pgerr.UndefinedTable, Message: fmt.Sprintf("invalid reference to FROM-clause entry for table %q", table),
			Hint: fmt.Sprintf("Perhaps you meant to reference the table alias %q.", alias), Ref: ref}
	}
	return &pgerr.Error{Code: pgerr.UndefinedTable, Message: fmt.Sprintf("missing FROM-clause entry for table %q", table), Ref: ref}
}

// isUndefinedName reports a name that does not resolve (as opposed to one
// that resolves to something the context refuses).
func isUndefinedName(err error) bool {
	var se *pgerr.Error
	return errors.As(err, &se) && (se.Code == pgerr.UndefinedColumn || se.Code == pgerr.UndefinedTable)
}

// BindEquality is l = r as PostgreSQL resolves the operator: the join
// condition of USING and NATURAL.
func BindEquality(l, r Expr) (Expr, error) {
	b := &binder{params: &Params{}}
	return b.ops().bindCompare(OpEQ, l, r)
}

// DomainKey is a hash key of a non-null datum of type from, equal for
// datums equal in the comparison domain dom (-0 and 0, 1.50 and 1.5).
func DomainKey(v any, from, dom Type) string {
	return domainKey(toDomain(v, from, dom))
}

// BindCoalesce is COALESCE(args...) with PostgreSQL's common type: the
// merged column of a join's USING.
func BindCoalesce(args ...Expr) (Expr, error) {
	b := &binder{params: &Params{}}
	t, err := b.commonType(args, "JOIN/USING")
	if err != nil {
		return nil, err
	}
	args = append([]Expr(nil), args...)
	if err := b.coerceAll(args, t); err != nil {
		return nil, err
	}
	return &Func{Name: "coalesce", Args: args, T: t}, nil
}

// computed is the scope's column for a call its source computed.
func (b *binder) computed(node parse.Expr) (string, bool) {
	if len(b.scope.Computed) == 0 {
		return "", false
	}
	col, ok := b.scope.Computed[syntaxOf(node)]
	return col, ok
}

// IsUnknownExpr reports an untyped literal or parameter.
func IsUnknownExpr(e Expr) bool { return isUnknown(e) }
