package exec

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// aggFinder reports whether an expression tree holds an aggregate call.
type aggFinder struct{ found bool }

func (f *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	if sql.IsAggregateCall(n) {
		f.found = true
		return n, true
	}
	return n, false
}

func (f *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func hasAggregate(nodes ...ast.ExprNode) bool {
	f := &aggFinder{}
	for _, n := range nodes {
		if n != nil {
			n.Accept(f)
		}
	}
	return f.found
}
