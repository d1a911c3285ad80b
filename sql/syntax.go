package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Syntax is an expression as parsed, not yet bound; nil is none. Only the
// parser makes one and only the binder reads it: the rest of the server
// asks this package the questions it has about one (the functions below),
// so the parser's representation stays this package's business.
type Syntax interface{ exprNode() ast.ExprNode }

// exprSyntax holds a parsed expression. A comparable value: two Syntax
// values are equal when they hold the same parsed node.
type exprSyntax struct{ n ast.ExprNode }

func (s exprSyntax) exprNode() ast.ExprNode { return s.n }

// syntaxOf wraps a parsed expression; nil stays nil.
func syntaxOf(n ast.ExprNode) Syntax {
	if n == nil {
		return nil
	}
	return exprSyntax{n}
}

// nodeOf is the parsed expression s holds; nil for nil.
func nodeOf(s Syntax) ast.ExprNode {
	if s == nil {
		return nil
	}
	return s.exprNode()
}

func syntaxList(ns []ast.ExprNode) []Syntax {
	if ns == nil {
		return nil
	}
	out := make([]Syntax, len(ns))
	for i, n := range ns {
		out[i] = syntaxOf(n)
	}
	return out
}

func nodeList(ss []Syntax) []ast.ExprNode {
	if ss == nil {
		return nil
	}
	out := make([]ast.ExprNode, len(ss))
	for i, s := range ss {
		out[i] = nodeOf(s)
	}
	return out
}

// OutputPosition is the ordinal an ORDER BY / GROUP BY key names an output
// column by (ORDER BY 2), if it is one.
func OutputPosition(s Syntax) (int64, bool) {
	n := nodeOf(s)
	if p, ok := n.(*ast.PositionExpr); ok {
		if p.P == nil {
			return int64(p.N), true
		}
		n = p.P
	}
	if v, ok := n.(*test_driver.ValueExpr); ok {
		switch x := v.GetValue().(type) {
		case int64:
			return x, true
		case uint64:
			return int64(x), true
		}
	}
	return 0, false
}

// BareColumnName is the name of an unqualified column reference (what an
// ORDER BY / GROUP BY key may use to name an output column).
func BareColumnName(s Syntax) (string, bool) {
	n := nodeOf(s)
	if p, ok := n.(*ast.PositionExpr); ok && p.P != nil {
		n = p.P
	}
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok || c.Name.Table.O != "" {
		return "", false
	}
	return c.Name.Name.O, true
}

// ColumnRefSyntax is a reference to column name of table ("": unqualified).
func ColumnRefSyntax(table, name string) Syntax {
	n := &ast.ColumnNameExpr{Name: &ast.ColumnName{}}
	n.Name.Name = ast.NewCIStr(name)
	if table != "" {
		n.Name.Table = ast.NewCIStr(table)
	}
	return syntaxOf(n)
}

// HasWindow reports whether any of ss calls a window function outside
// subqueries.
func HasWindow(ss ...Syntax) bool {
	f := &windowFinder{}
	for _, s := range ss {
		nodeOf(s).Accept(f)
	}
	return f.found
}

type windowFinder struct{ found bool }

func (f *windowFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.WindowFuncExpr:
		f.found = true
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}

func (f *windowFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// HasSubquery reports a subquery anywhere in s.
func HasSubquery(s Syntax) bool {
	f := &subqueryFinder{}
	nodeOf(s).Accept(f)
	return f.found
}

type subqueryFinder struct{ found bool }

func (f *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SubqueryExpr); ok {
		f.found = true
	}
	return n, f.found
}

func (f *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// HasParameter reports a parameter ($n) in s, outside subqueries.
func HasParameter(s Syntax) bool {
	found := false
	walkExprNodes(nodeOf(s), func(x ast.Node) bool {
		// The front end spells $n as __param(n).
		if f, ok := x.(*ast.FuncCallExpr); ok && f.FnName.L == "__param" {
			found = true
		}
		return !found
	})
	return found
}

// CallOf is the function name (lower case) and arguments of a plain
// function call.
func CallOf(s Syntax) (name string, args []Syntax, ok bool) {
	call, ok := nodeOf(s).(*ast.FuncCallExpr)
	if !ok {
		return "", nil, false
	}
	return call.FnName.L, syntaxList(call.Args), true
}

// CallsNamed lists the calls of s to the functions names holds, outside
// subqueries and not inside another such call, in the order written.
func CallsNamed(s Syntax, names map[string]bool) []Syntax {
	var out []Syntax
	walkExprNodes(nodeOf(s), func(n ast.Node) bool {
		if c, ok := n.(*ast.FuncCallExpr); ok && names[c.FnName.L] {
			out = append(out, syntaxOf(c))
			return false
		}
		return true
	})
	return out
}

// NamedArgument recognises name = value (and name => value, which the front
// end spells the same) in a call's argument list; name is lower case.
func NamedArgument(s Syntax) (string, Syntax, bool) {
	b, ok := nodeOf(s).(*ast.BinaryOperationExpr)
	if !ok || b.Op != opcode.EQ {
		return "", nil, false
	}
	col, ok := b.L.(*ast.ColumnNameExpr)
	if !ok || col.Name.Table.L != "" {
		return "", nil, false
	}
	return col.Name.Name.L, syntaxOf(b.R), true
}

// ReplaceCalls is s with each call of the function name with no arguments
// replaced by a reference to column col of table.
func ReplaceCalls(s Syntax, name, table, col string) Syntax {
	out, _ := nodeOf(s).Accept(&callReplacer{name: name, table: table, col: col})
	return syntaxOf(out.(ast.ExprNode))
}

type callReplacer struct{ name, table, col string }

func (*callReplacer) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (r *callReplacer) Leave(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == r.name && len(f.Args) == 0 {
		return nodeOf(ColumnRefSyntax(r.table, r.col)), true
	}
	return n, true
}

// ColumnMatches is the condition "column = value", or "column IS NULL" when
// value is the literal NULL (a partition value selecting the null partition).
func ColumnMatches(column string, value Syntax) Syntax {
	ref := &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(column)}}
	if isNullLiteral(nodeOf(value)) {
		return syntaxOf(&ast.IsNullExpr{Expr: ref})
	}
	return syntaxOf(&ast.BinaryOperationExpr{Op: opcode.EQ, L: ref, R: nodeOf(value)})
}

// AndSyntax is "a AND b"; a nil a is b.
func AndSyntax(a, b Syntax) Syntax {
	if a == nil {
		return b
	}
	return syntaxOf(&ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: nodeOf(a), R: nodeOf(b)})
}

func isNullLiteral(n ast.ExprNode) bool {
	switch x := n.(type) {
	case *test_driver.ValueExpr:
		return x.GetValue() == nil
	case *ast.ParenthesesExpr:
		return isNullLiteral(x.Expr)
	}
	return false
}
