package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// aggFinder reports whether an expression tree holds an aggregate call.
type aggFinder struct{ found bool }

func (f *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	// A subquery's aggregates belong to the subquery, not to this level.
	if _, sub := n.(*ast.SubqueryExpr); sub {
		return n, true
	}
	if isAggregateCall(n) {
		f.found = true
		return n, true
	}
	return n, false
}

func (f *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// HasAggregate reports whether ss hold an aggregate call of this query level.
func HasAggregate(ss ...Syntax) bool { return hasAggregate(nodeList(ss)...) }

func hasAggregate(nodes ...ast.ExprNode) bool {
	f := &aggFinder{}
	for _, n := range nodes {
		if n != nil {
			n.Accept(f)
		}
	}
	return f.found
}
