package sql

import "github.com/pingcap/tidb/pkg/parser/ast"

// BindUntyped binds like Bind but leaves an untyped literal or parameter
// untyped: a set operation's branch outputs take their types from all
// branches together, as PostgreSQL resolves UNION and VALUES.
func BindUntyped(node ast.ExprNode, scope *Scope, params *Params) (Expr, error) {
	return bindTop(node, scope, params, nil, func(_ *binder, e Expr) (Expr, error) { return e, nil })
}

// CommonType is the type PostgreSQL resolves several expressions to
// (select_common_type); what names the construct in errors ("UNION").
func CommonType(es []Expr, what string) (Type, error) {
	return (&binder{params: &Params{}}).commonType(es, what)
}

// CoerceTo converts e to t as an implicit cast does: an untyped literal is
// read as t, anything else is cast.
func CoerceTo(e Expr, t Type, params *Params) (Expr, error) {
	if params == nil {
		params = &Params{}
	}
	es := []Expr{e}
	if err := (&binder{params: params}).coerceAll(es, t); err != nil {
		return nil, err
	}
	return es[0], nil
}

// CompareDatums orders two non-null datums of type t as PostgreSQL's
// operators do (NaN above every number, -0 equal to 0).
func CompareDatums(t Type, a, b any) int { return compareDatums(t, a, b) }
