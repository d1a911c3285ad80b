package sql

import (
	"fmt"
	"strconv"
	"strings"
)

// Expr is a bound, typed expression. Every node knows its result Type; the
// evaluator computes it over Arrow batches laid out as the Scope it was bound in.
type Expr interface {
	Type() Type
	// String is SQL-like text for EXPLAIN.
	String() string
}

// ColumnRef reads column Index of the input batch.
type ColumnRef struct {
	Index   int
	Table   string // qualifier, "" when none
	Name    string
	T       Type
	FieldID int // Iceberg field id, 0 when not a table column
}

// Const is a typed constant; Value is a datum of T (nil for NULL).
type Const struct {
	Value any
	T     Type
}

// Param is $Index+1; its value arrives at execution and is coerced to T.
type Param struct {
	Index int
	T     Type
}

// UnaryOp is -x or +x.
type UnaryOp struct {
	Op string
	X  Expr
	T  Type
}

// BinaryOp is arithmetic (+ - * / %) or text concatenation (||).
type BinaryOp struct {
	Op   string
	L, R Expr
	T    Type
}

// CmpOp is a comparison operator.
type CmpOp uint8

const (
	OpEQ CmpOp = iota
	OpNE
	OpLT
	OpLE
	OpGT
	OpGE
)

var cmpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

func (o CmpOp) String() string { return cmpNames[o] }

// flip is the operator with operands swapped (a < b ⇔ b > a).
func (o CmpOp) flip() CmpOp {
	switch o {
	case OpLT:
		return OpGT
	case OpLE:
		return OpGE
	case OpGT:
		return OpLT
	case OpGE:
		return OpLE
	}
	return o
}

// negate is the operator for NOT (a op b) on non-null operands.
func (o CmpOp) negate() CmpOp {
	return [...]CmpOp{OpNE, OpEQ, OpGE, OpGT, OpLE, OpLT}[o]
}

// Compare is L op R, both converted to Domain (the type PostgreSQL's chosen
// operator takes: int8 for any integers, numeric, float8, text, timestamp, ...).
type Compare struct {
	Op     CmpOp
	L, R   Expr
	Domain Type
}

// Logic is AND or OR over two or more arguments.
type Logic struct {
	And  bool
	Args []Expr
}

// Not is boolean negation.
type Not struct{ X Expr }

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	X   Expr
	Not bool
}

// IsBool is X IS [NOT] TRUE / X IS [NOT] FALSE.
type IsBool struct {
	X     Expr
	Value bool
	Not   bool
}

// Distinct is L IS [NOT] DISTINCT FROM R (Not: IS NOT DISTINCT FROM).
type Distinct struct {
	L, R   Expr
	Not    bool
	Domain Type
}

// InList is X [NOT] IN (List...), each item compared in its own Domain.
type InList struct {
	X       Expr
	List    []Expr
	Domains []Type
	Not     bool
	// Array: x = ANY (ARRAY[...]) or x <> ALL (...), not an IN list (the
	// planner simplifies the two apart; see simplifyIn).
	Array bool
	// ReadsRow tells, per item as written, whether it names a column
	// (PostgreSQL's parser compares those items one by one; see
	// simplifyIn); nil when no item does.
	ReadsRow []bool
}

// Like is X [NOT] LIKE/ILIKE Pattern [ESCAPE Escape]; Escape "" disables escaping.
type Like struct {
	X, Pattern Expr
	Escape     string
	ILike      bool
	Not        bool
}

// When is one WHEN Cond THEN Result arm.
type When struct{ Cond, Result Expr }

// Case is a searched CASE (a simple CASE is bound to one with equality conditions).
type Case struct {
	Whens []When
	Else  Expr // nil: NULL
	T     Type
}

// Cast is CAST(X AS T).
type Cast struct {
	X Expr
	T Type
	// Round is the microseconds a cast to time(p), timestamp(p) or
	// timestamptz(p) rounds to, 10^(6-p); 0 keeps all six digits.
	Round int64
}

// Func is a scalar function call (lower, coalesce, now, ...).
type Func struct {
	Name string
	Args []Expr
	T    Type
}

// AggCall is an aggregate call; the executor computes it per group and the
// expressions above it read the result through a ColumnRef (see BindAggregate).
type AggCall struct {
	Name     string // count, sum, min, max, avg, stddev_samp, ..., string_agg
	Arg      Expr   // nil for count(*)
	Sep      Expr   // string_agg's delimiter (text), nil otherwise
	Distinct bool
	// OrderBy is agg(... ORDER BY ...): the order array_agg and string_agg
	// see their values in (the other aggregates do not depend on it).
	OrderBy []AggOrder
	// Filter is agg(...) FILTER (WHERE Filter): only the input rows for
	// which it is true reach the aggregate. nil without FILTER.
	Filter Expr
	// Grouping is GROUPING(args): the index in AggContext.GroupBy of each
	// argument (the call's value is a bit per argument, set where the
	// current grouping set leaves that key out).
	Grouping []int
	T        Type
}

// AggOrder is one ORDER BY key inside an aggregate call.
type AggOrder struct {
	Key        Expr
	Desc       bool
	NullsFirst bool
}

// Inputs are the expressions an aggregate reads from its input rows.
func (e *AggCall) Inputs() []Expr {
	var out []Expr
	for _, x := range []Expr{e.Arg, e.Sep} {
		if x != nil {
			out = append(out, x)
		}
	}
	for _, o := range e.OrderBy {
		out = append(out, o.Key)
	}
	if e.Filter != nil {
		out = append(out, e.Filter)
	}
	return out
}

func (e *ColumnRef) Type() Type { return e.T }
func (e *Const) Type() Type     { return e.T }
func (e *Param) Type() Type     { return e.T }
func (e *UnaryOp) Type() Type   { return e.T }
func (e *BinaryOp) Type() Type  { return e.T }
func (e *Compare) Type() Type   { return Bool }
func (e *Logic) Type() Type     { return Bool }
func (e *Not) Type() Type       { return Bool }
func (e *IsNull) Type() Type    { return Bool }
func (e *IsBool) Type() Type    { return Bool }
func (e *Distinct) Type() Type  { return Bool }
func (e *InList) Type() Type    { return Bool }
func (e *Like) Type() Type      { return Bool }
func (e *Case) Type() Type      { return e.T }
func (e *Cast) Type() Type      { return e.T }
func (e *Func) Type() Type      { return e.T }
func (e *AggCall) Type() Type   { return e.T }

func (e *ColumnRef) String() string {
	if e.Table != "" {
		return identSQL(e.Table) + "." + identSQL(e.Name)
	}
	return identSQL(e.Name)
}

func (e *Const) String() string {
	if e.Value == nil {
		return "NULL"
	}
	s := formatDatum(e.Value, e.T)
	switch e.T.Kind {
	case KindInt16, KindInt32, KindInt64, KindNumeric, KindBool:
		if !strings.HasPrefix(s, "-") {
			return s
		}
		return "(" + s + ")"
	case KindText, KindUnknown:
		return literalSQL(s)
	}
	return literalSQL(s) + "::" + e.T.String()
}

func (e *Param) String() string   { return "$" + strconv.Itoa(e.Index+1) }
func (e *UnaryOp) String() string { return e.Op + paren(e.X) }
func (e *BinaryOp) String() string {
	return paren(e.L) + " " + e.Op + " " + paren(e.R)
}
func (e *Compare) String() string {
	return paren(e.L) + " " + e.Op.String() + " " + paren(e.R)
}

func (e *Logic) String() string {
	op := " OR "
	if e.And {
		op = " AND "
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = paren(a)
	}
	return strings.Join(parts, op)
}

func (e *Not) String() string { return "NOT " + paren(e.X) }

func (e *IsNull) String() string {
	if e.Not {
		return paren(e.X) + " IS NOT NULL"
	}
	return paren(e.X) + " IS NULL"
}

func (e *IsBool) String() string {
	s := paren(e.X) + " IS "
	if e.Not {
		s += "NOT "
	}
	if e.Value {
		return s + "TRUE"
	}
	return s + "FALSE"
}

func (e *Distinct) String() string {
	if e.Not {
		return paren(e.L) + " IS NOT DISTINCT FROM " + paren(e.R)
	}
	return paren(e.L) + " IS DISTINCT FROM " + paren(e.R)
}

func (e *InList) String() string {
	op := " IN ("
	if e.Not {
		op = " NOT IN ("
	}
	return paren(e.X) + op + joinExprs(e.List) + ")"
}

func (e *Like) String() string {
	op := " LIKE "
	if e.ILike {
		op = " ILIKE "
	}
	if e.Not {
		op = " NOT" + op
	}
	s := paren(e.X) + op + paren(e.Pattern)
	if e.Escape != `\` {
		s += " ESCAPE " + literalSQL(e.Escape)
	}
	return s
}

func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range e.Whens {
		fmt.Fprintf(&b, " WHEN %s THEN %s", w.Cond, w.Result)
	}
	if e.Else != nil {
		fmt.Fprintf(&b, " ELSE %s", e.Else)
	}
	b.WriteString(" END")
	return b.String()
}

func (e *Cast) String() string {
	return "CAST(" + e.X.String() + " AS " + withPrecision(e.T.String(), e.Round) + ")"
}
func (e *Func) String() string { return e.Name + "(" + joinExprs(e.Args) + ")" }

func (e *AggCall) String() string {
	if e.Name == "grouping" {
		refs := make([]string, len(e.Grouping))
		for i, r := range e.Grouping {
			refs[i] = "#" + strconv.Itoa(r)
		}
		return "grouping(" + strings.Join(refs, ", ") + ")"
	}
	if e.Filter != nil {
		return e.call() + " FILTER (WHERE " + e.Filter.String() + ")"
	}
	return e.call()
}

// call is the aggregate call without its FILTER.
func (e *AggCall) call() string {
	if e.Arg == nil {
		return e.Name + "(*)"
	}
	args := e.Arg.String()
	if e.Sep != nil {
		args += ", " + e.Sep.String()
	}
	if len(e.OrderBy) > 0 {
		keys := make([]string, len(e.OrderBy))
		for i, o := range e.OrderBy {
			keys[i] = o.Key.String()
			if o.Desc {
				keys[i] += " DESC"
			}
			if o.NullsFirst != o.Desc {
				keys[i] += map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[o.NullsFirst]
			}
		}
		args += " ORDER BY " + strings.Join(keys, ", ")
	}
	if e.Distinct {
		return e.Name + "(DISTINCT " + args + ")"
	}
	return e.Name + "(" + args + ")"
}

func joinExprs(es []Expr) string {
	parts := make([]string, len(es))
	for i, a := range es {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

// paren wraps compound operands so String() output re-parses unambiguously.
func paren(e Expr) string {
	switch e.(type) {
	case *ColumnRef, *Const, *Param, *Func, *Cast, *AggCall, *Case:
		return e.String()
	}
	return "(" + e.String() + ")"
}

func literalSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func identSQL(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return `"` + s + `"`
	}
	return s
}
