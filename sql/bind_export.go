package sql

import (
	"context"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// BindUntyped binds like Bind but leaves an untyped literal or parameter
// untyped: a set operation's branch outputs take their types from all
// branches together, as PostgreSQL resolves UNION and VALUES.
func BindUntyped(s Syntax, scope *Scope, params *Params) (Expr, error) {
	return bindTop(nodeOf(s), scope, params, nil, func(_ *binder, e Expr) (Expr, error) { return e, nil })
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

// ColumnIndexNode names input column i by position: SELECT * over columns
// that share a name (SELECT * FROM (SELECT a.k, b.k ...) s, a UNION's first
// branch with k twice) has no name that tells them apart.
func ColumnIndexNode(i int) Syntax {
	return syntaxOf(parse.Call("__colidx", &parse.Const{Value: int64(i)}))
}

func (b *binder) bindColumnIndex(n *parse.FuncCall) (Expr, error) {
	i := -1
	if len(n.Args) == 1 {
		if v, ok := n.Args[0].(*parse.Const); ok {
			if x, ok := v.Value.(int64); ok {
				i = int(x)
			}
		}
	}
	if i < 0 || i >= len(b.scope.Columns) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "__colidx names no input column")
	}
	c := b.scope.Columns[i]
	return &ColumnRef{Index: i, Table: c.Table, Name: c.Name, T: c.T, FieldID: c.FieldID}, nil
}

// ConstText evaluates a constant argument (a procedure's, a statement
// option's) as text, parameters bound to args.
func ConstText(ctx context.Context, n Syntax, params *Params, args []any) (string, error) {
	e, err := Bind(n, &Scope{}, params)
	if err != nil {
		return "", err
	}
	arr, err := Eval(ctx, &Cast{X: e, T: Text}, nil, args)
	if err != nil {
		return "", err
	}
	defer arr.Release()
	v, _ := DatumAt(arr, Text, 0).(string)
	return v, nil
}
