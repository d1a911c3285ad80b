package sql

import "github.com/magmalake/magmalake/sql/parse"

// HasAggregate reports whether ss hold an aggregate call of this query level.
func HasAggregate(ss ...Syntax) bool { return hasAggregate(nodeList(ss)...) }

// hasAggregate reports whether an expression tree holds an aggregate call;
// a subquery's aggregates belong to the subquery, not to this level.
func hasAggregate(nodes ...parse.Expr) bool {
	found := false
	for _, n := range nodes {
		parse.Inspect(n, func(x parse.Node) bool {
			if _, sub := x.(*parse.Subquery); sub {
				return false
			}
			if isAggregateCall(x) {
				found = true
				return false
			}
			return true
		})
	}
	return found
}

// walkExprNodes calls f on n and its descendants, not entering subqueries;
// f returns false to skip a node's children.
func walkExprNodes(n parse.Node, f func(parse.Node) bool) {
	parse.Inspect(n, func(x parse.Node) bool {
		if _, sub := x.(*parse.Subquery); sub {
			return false
		}
		return f(x)
	})
}
