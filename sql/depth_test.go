package sql

import (
	"context"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// The binder and the evaluator refuse trees deeper than any max_stack_depth
// allows however the tree was built, not only through the parser's count.
func TestTreeDepthBackstops(t *testing.T) {
	const deep = parse.MaxTreeDepth + 10
	var node parse.Expr = &parse.Const{Value: int64(1)}
	for range deep {
		node = &parse.Unary{Op: parse.OpMinus, X: node}
	}
	if _, err := bindAST(node, &Scope{}, &Params{}); !isCode(err, pgerr.StatementTooComplex) {
		t.Fatalf("Bind: %v", err)
	}
	var e Expr = &ColumnRef{Name: "id", Index: 0, T: Int64}
	for range deep {
		e = &UnaryOp{Op: "-", X: e, T: Int64}
	}
	if _, err := Eval(context.Background(), e, nil, nil); !isCode(err, pgerr.StatementTooComplex) {
		t.Fatalf("Eval: %v", err)
	}
}

func isCode(err error, code pgerr.Code) bool {
	se, ok := err.(*pgerr.Error)
	return ok && se.Code == code
}
