package sql

import (
	"fmt"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// BindAssigned binds a value stored into column col (INSERT's values, SET's
// right-hand sides) with PostgreSQL's assignment rules: an untyped literal
// or parameter takes the column's type, another expression needs an
// assignment cast. The value may read scope's columns (nil: none).
func BindAssigned(s Syntax, scope *Scope, col ScopeColumn, params *Params) (Expr, error) {
	return bindAssignedAST(nodeOf(s), scope, col, params)
}

func bindAssignedAST(n parse.Expr, scope *Scope, col ScopeColumn, params *Params) (Expr, error) {
	if scope == nil {
		scope = &Scope{}
	}
	if d, ok := n.(*parse.Default); ok && d.Column == nil {
		return col.DefaultValue() // VALUES (..., DEFAULT)
	}
	if isUntyped(n) {
		t := assignedType(col.T)
		cast := parse.Call("__cast", n, &parse.Const{Value: t.String()})
		return bindAST(cast, &Scope{}, params)
	}
	e, err := bindAST(n, scope, params)
	if err != nil {
		return nil, err
	}
	return AssignCast(e, col)
}

// assignedType is what a value stored into a column of type t is cast to:
// varchar(n) and char(n) without their length, which an explicit cast would
// cut silently; the write checks it instead (22001), as PostgreSQL's
// assignment does.
func assignedType(t Type) Type {
	if t.Kind == KindVarchar {
		return Type{Kind: KindVarchar, Bpchar: t.Bpchar}
	}
	return t
}

// isUntyped tells whether n is a string literal, NULL or a parameter: what
// takes its type from where it is stored.
func isUntyped(n parse.Expr) bool {
	switch x := n.(type) {
	case *parse.Const:
		_, isString := x.Value.(string)
		return isString || x.Value == nil
	case *parse.FuncCall:
		return x.Name == "__param"
	case *parse.Paren:
		return isUntyped(x.X)
	}
	return false
}

// AssignCast converts e to the column type where PostgreSQL has an
// assignment cast, and fails with 42804 where it has none.
func AssignCast(e Expr, col ScopeColumn) (Expr, error) {
	from, to := e.Type(), assignedType(col.T)
	if from == to {
		return e, nil
	}
	ok := from.Kind == KindUnknown ||
		(from.IsNumeric() && to.IsNumeric()) ||
		to.IsString() ||
		(from.IsString() && to.IsString()) ||
		(from.Kind == KindDate && (to.Kind == KindTimestamp || to.Kind == KindTimestampTZ)) ||
		(from.Kind == KindTimestamp && (to.Kind == KindTimestampTZ || to.Kind == KindDate || to.Kind == KindTime)) ||
		(from.Kind == KindTimestampTZ && (to.Kind == KindTimestamp || to.Kind == KindDate || to.Kind == KindTime))
	if !ok {
		return nil, &pgerr.Error{Code: pgerr.DatatypeMismatch,
			Message: fmt.Sprintf("column %q is of type %s but expression is of type %s", col.Name, to.SigName(), from.SigName()),
			Hint:    "You will need to rewrite or cast the expression."}
	}
	return &Cast{X: e, T: to}, nil
}
