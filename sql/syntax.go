package sql

import (
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// Syntax is an expression as parsed, not yet bound; nil is none. Only the
// parser makes one and only the binder reads it: the rest of the server
// asks this package the questions it has about one (the functions below),
// so the parser's representation stays this package's business.
type Syntax interface{ exprNode() parse.Expr }

// exprSyntax holds a parsed expression. A comparable value: two Syntax
// values are equal when they hold the same parsed node.
type exprSyntax struct{ n parse.Expr }

func (s exprSyntax) exprNode() parse.Expr { return s.n }

// syntaxOf wraps a parsed expression; nil stays nil.
func syntaxOf(n parse.Expr) Syntax {
	if n == nil {
		return nil
	}
	return exprSyntax{n}
}

// nodeOf is the parsed expression s holds; nil for nil.
func nodeOf(s Syntax) parse.Expr {
	if s == nil {
		return nil
	}
	return s.exprNode()
}

func syntaxList(ns []parse.Expr) []Syntax {
	if ns == nil {
		return nil
	}
	out := make([]Syntax, len(ns))
	for i, n := range ns {
		out[i] = syntaxOf(n)
	}
	return out
}

func nodeList(ss []Syntax) []parse.Expr {
	if ss == nil {
		return nil
	}
	out := make([]parse.Expr, len(ss))
	for i, s := range ss {
		out[i] = nodeOf(s)
	}
	return out
}

// OutputPosition is the ordinal an ORDER BY / GROUP BY key names an output
// column by (ORDER BY 2), if it is one.
func OutputPosition(s Syntax) (int64, bool) {
	n := nodeOf(s)
	if p, ok := n.(*parse.Position); ok {
		if p.P == nil {
			return int64(p.N), true
		}
		n = p.P
	}
	if v, ok := n.(*parse.Const); ok {
		switch x := v.Value.(type) {
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
	if p, ok := n.(*parse.Position); ok && p.P != nil {
		n = p.P
	}
	c, ok := n.(*parse.ColumnRef)
	if !ok || c.Table != "" {
		return "", false
	}
	return c.Name, true
}

// ColumnRefSyntax is a reference to column name of table ("": unqualified).
func ColumnRefSyntax(table, name string) Syntax {
	return syntaxOf(&parse.ColumnRef{Table: table, Name: name})
}

// HasWindow reports whether any of ss calls a window function outside
// subqueries.
func HasWindow(ss ...Syntax) bool {
	found := false
	for _, s := range ss {
		parse.Inspect(nodeOf(s), func(n parse.Node) bool {
			switch n.(type) {
			case *parse.WindowCall:
				found = true
				return false
			case *parse.Subquery:
				return false
			}
			return true
		})
	}
	return found
}

// HasSubquery reports a subquery anywhere in s.
func HasSubquery(s Syntax) bool {
	found := false
	parse.Inspect(nodeOf(s), func(n parse.Node) bool {
		if _, ok := n.(*parse.Subquery); ok {
			found = true
		}
		return !found
	})
	return found
}

// HasParameter reports a parameter ($n) in s, outside subqueries.
func HasParameter(s Syntax) bool {
	found := false
	walkExprNodes(nodeOf(s), func(x parse.Node) bool {
		// The front end spells $n as __param(n).
		if f, ok := x.(*parse.FuncCall); ok && f.Name == "__param" {
			found = true
		}
		return !found
	})
	return found
}

// CallOf is the function name (lower case) and arguments of a plain
// function call.
func CallOf(s Syntax) (name string, args []Syntax, ok bool) {
	call, ok := nodeOf(s).(*parse.FuncCall)
	if !ok {
		return "", nil, false
	}
	return call.Name, syntaxList(call.Args), true
}

// CallsNamed lists the calls of s to the functions names holds, outside
// subqueries and not inside another such call, in the order written.
func CallsNamed(s Syntax, names map[string]bool) []Syntax {
	var out []Syntax
	walkExprNodes(nodeOf(s), func(n parse.Node) bool {
		if c, ok := n.(*parse.FuncCall); ok && names[c.Name] {
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
	b, ok := nodeOf(s).(*parse.Binary)
	if !ok || b.Op != parse.OpEQ {
		return "", nil, false
	}
	col, ok := b.L.(*parse.ColumnRef)
	if !ok || col.Table != "" {
		return "", nil, false
	}
	return strings.ToLower(col.Name), syntaxOf(b.R), true
}

// ReplaceCalls is s with each call of the function name with no arguments
// replaced by a reference to column col of table.
func ReplaceCalls(s Syntax, name, table, col string) Syntax {
	return syntaxOf(parse.Rewrite(nodeOf(s), func(e parse.Expr) parse.Expr {
		if f, ok := e.(*parse.FuncCall); ok && f.Name == name && len(f.Args) == 0 {
			return nodeOf(ColumnRefSyntax(table, col))
		}
		return e
	}))
}

// ColumnMatches is the condition "column = value", or "column IS NULL" when
// value is the literal NULL (a partition value selecting the null partition).
func ColumnMatches(column string, value Syntax) Syntax {
	ref := &parse.ColumnRef{Name: column}
	if isNullLiteral(nodeOf(value)) {
		return syntaxOf(&parse.IsNull{X: ref})
	}
	return syntaxOf(&parse.Binary{Op: parse.OpEQ, L: ref, R: nodeOf(value)})
}

// IsLiteral reports a constant written as a literal (1, 'x', NULL, -2.5),
// an expression that cannot fail and reads nothing.
func IsLiteral(s Syntax) bool { return signedLiteral(nodeOf(s)) }

// OneSyntax is the literal 1.
func OneSyntax() Syntax { return syntaxOf(&parse.Const{Value: int64(1)}) }

// AndSyntax is "a AND b"; a nil a is b.
func AndSyntax(a, b Syntax) Syntax {
	if a == nil {
		return b
	}
	return syntaxOf(&parse.Binary{Op: parse.OpAnd, L: nodeOf(a), R: nodeOf(b)})
}

func isNullLiteral(n parse.Expr) bool {
	switch x := n.(type) {
	case *parse.Const:
		return x.Value == nil
	case *parse.Paren:
		return isNullLiteral(x.X)
	}
	return false
}
