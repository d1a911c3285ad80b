package parse

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// The one place that reads TiDB's tree: each TiDB node becomes the node of
// this package's tree that says the same.

func convExprs(ns []ast.ExprNode) []Expr {
	if ns == nil {
		return nil
	}
	out := make([]Expr, len(ns))
	for i, n := range ns {
		out[i] = convExpr(n)
	}
	return out
}

func convExpr(n ast.ExprNode) Expr {
	switch x := n.(type) {
	case nil:
		return nil
	case *test_driver.ValueExpr:
		return &Const{Value: convValue(x.GetValue())}
	case *ast.ColumnNameExpr:
		return convColumn(x.Name)
	case *ast.ParenthesesExpr:
		return &Paren{X: convExpr(x.Expr)}
	case *ast.UnaryOperationExpr:
		return &Unary{Op: convOp(x.Op), X: convExpr(x.V)}
	case *ast.BinaryOperationExpr:
		return &Binary{Op: convOp(x.Op), L: convExpr(x.L), R: convExpr(x.R)}
	case *ast.IsNullExpr:
		return &IsNull{X: convExpr(x.Expr), Not: x.Not}
	case *ast.IsTruthExpr:
		return &IsTruth{X: convExpr(x.Expr), Not: x.Not, True: x.True != 0}
	case *ast.PatternInExpr:
		return &In{X: convExpr(x.Expr), List: convExprs(x.List), Not: x.Not, Sel: convExpr(x.Sel)}
	case *ast.BetweenExpr:
		return &Between{X: convExpr(x.Expr), Lo: convExpr(x.Left), Hi: convExpr(x.Right), Not: x.Not}
	case *ast.PatternLikeOrIlikeExpr:
		return &Like{X: convExpr(x.Expr), Pattern: convExpr(x.Pattern), Escape: x.Escape, Not: x.Not, ILike: !x.IsLike}
	case *ast.PatternRegexpExpr:
		return &Regexp{X: convExpr(x.Expr), Pattern: convExpr(x.Pattern), Not: x.Not}
	case *ast.CaseExpr:
		c := &Case{Value: convExpr(x.Value), Else: convExpr(x.ElseClause)}
		for _, w := range x.WhenClauses {
			c.Whens = append(c.Whens, When{Cond: convExpr(w.Expr), Result: convExpr(w.Result)})
		}
		return c
	case *ast.FuncCallExpr:
		return &FuncCall{Schema: x.Schema.L, Name: x.FnName.L, WrittenSchema: x.Schema.O, WrittenName: x.FnName.O, Args: convExprs(x.Args)}
	case *ast.AggregateFuncExpr:
		return &AggregateCall{Name: x.F, Args: convExprs(x.Args), Distinct: x.Distinct}
	case *ast.WindowFuncExpr:
		return &WindowCall{Name: x.Name, Args: convExprs(x.Args), Distinct: x.Distinct, Spec: convWindow(&x.Spec)}
	case *ast.SubqueryExpr:
		return &Subquery{Query: convQuery(x.Query)}
	case *ast.ExistsSubqueryExpr:
		return &Exists{Sel: convExpr(x.Sel), Not: x.Not}
	case *ast.CompareSubqueryExpr:
		return &CompareSubquery{L: convExpr(x.L), Op: convOp(x.Op), R: convExpr(x.R), All: x.All}
	case *ast.RowExpr:
		return &Row{Values: convExprs(x.Values)}
	case *ast.DefaultExpr:
		d := &Default{}
		if x.Name != nil {
			d.Column = convColumn(x.Name)
		}
		return d
	case *ast.PositionExpr:
		return &Position{N: x.N, P: convExpr(x.P)}
	case *ast.TrimDirectionExpr:
		switch x.Direction {
		case ast.TrimLeading:
			return &TrimDirection{Dir: TrimLeading}
		case ast.TrimTrailing:
			return &TrimDirection{Dir: TrimTrailing}
		}
		return &TrimDirection{Dir: TrimBoth}
	}
	return &Other{What: tidbWhat(n), Args: convExprs(tidbChildren(n))}
}

func convColumn(cn *ast.ColumnName) *ColumnRef {
	return &ColumnRef{Schema: cn.Schema.O, Table: cn.Table.O, Name: cn.Name.O}
}

func convValue(v any) any {
	switch x := v.(type) {
	case nil, int64, uint64, float64, string, []byte:
		return x
	case *test_driver.MyDecimal:
		return Decimal(x.String())
	}
	return OtherLiteral{}
}

var opOf = map[opcode.Op]Op{
	opcode.LogicAnd: OpAnd, opcode.LogicOr: OpOr, opcode.LogicXor: OpXor,
	opcode.EQ: OpEQ, opcode.NE: OpNE, opcode.LT: OpLT, opcode.LE: OpLE, opcode.GT: OpGT, opcode.GE: OpGE,
	opcode.NullEQ: OpNullEQ, opcode.Plus: OpPlus, opcode.Minus: OpMinus, opcode.Mul: OpMul,
	opcode.Div: OpDiv, opcode.Mod: OpMod, opcode.IntDiv: OpIntDiv, opcode.And: OpBitAnd,
	opcode.Or: OpBitOr, opcode.Xor: OpBitXor, opcode.LeftShift: OpLeftShift,
	opcode.RightShift: OpRightShift, opcode.Not: OpNot, opcode.Not2: OpNot2, opcode.BitNeg: OpBitNeg,
}

func convOp(o opcode.Op) Op { return opOf[o] }

// tidbWhat names a TiDB construct this package has no node for.
func tidbWhat(n ast.Node) string {
	switch n.(type) {
	case *ast.VariableExpr:
		return "a variable"
	case *ast.ValuesExpr:
		return "VALUES() here"
	case *ast.MatchAgainst:
		return "MATCH ... AGAINST"
	case *ast.SetCollationExpr:
		return "COLLATE"
	}
	if t := n.Text(); t != "" {
		return "the expression " + t
	}
	return "this expression"
}

// tidbChildren are the expressions directly inside n.
func tidbChildren(n ast.Node) []ast.ExprNode {
	k := &childCollector{root: n}
	n.Accept(k)
	return k.out
}

type childCollector struct {
	root ast.Node
	out  []ast.ExprNode
}

func (k *childCollector) Enter(n ast.Node) (ast.Node, bool) {
	if n == k.root {
		return n, false
	}
	if e, ok := n.(ast.ExprNode); ok {
		k.out = append(k.out, e)
	}
	return n, true
}

func (k *childCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func convWindow(s *ast.WindowSpec) WindowSpec {
	w := WindowSpec{Name: s.Name.O, Ref: s.Ref.O, OnlyAlias: s.OnlyAlias}
	if s.PartitionBy != nil {
		w.PartitionBy = make([]Expr, len(s.PartitionBy.Items))
		for i, it := range s.PartitionBy.Items {
			w.PartitionBy[i] = convExpr(it.Expr)
		}
	}
	w.OrderBy = convOrder(s.OrderBy)
	if s.Frame != nil {
		w.Frame = &Frame{Mode: FrameMode(s.Frame.Type), Start: convBound(&s.Frame.Extent.Start), End: convBound(&s.Frame.Extent.End)}
	}
	return w
}

func convBound(b *ast.FrameBound) FrameBound {
	return FrameBound{Kind: BoundKind(b.Type), Unbounded: b.UnBounded, Offset: convExpr(b.Expr)}
}

// convOrder is nil for no ORDER BY, and never nil for one.
func convOrder(ob *ast.OrderByClause) []OrderItem {
	if ob == nil {
		return nil
	}
	out := make([]OrderItem, len(ob.Items))
	for i, it := range ob.Items {
		key, nullsFirst := orderKey(convExpr(it.Expr))
		out[i] = OrderItem{Expr: key, Desc: it.Desc, NullsFirst: nullsFirst}
	}
	return out
}

func convLimit(l *ast.Limit) *Limit {
	if l == nil {
		return nil
	}
	return &Limit{Count: convExpr(l.Count), Offset: convExpr(l.Offset)}
}

func convQuery(n ast.Node) Query {
	switch x := n.(type) {
	case *ast.SelectStmt:
		return convSelect(x)
	case *ast.SetOprStmt:
		s := convSetList(x.SelectList)
		s.Nested, s.OrderBy, s.Limit = false, convOrder(x.OrderBy), convLimit(x.Limit)
		if x.With != nil {
			s.With = convWith(x.With)
		}
		return s
	case *ast.SetOprSelectList:
		s := convSetList(x)
		s.OrderBy, s.Limit = convOrder(x.OrderBy), convLimit(x.Limit)
		return s
	}
	return &OtherQuery{What: tidbWhat(n)}
}

func convSetList(l *ast.SetOprSelectList) *SetOp {
	s := &SetOp{With: convWith(l.With), Nested: true}
	for _, b := range l.Selects {
		var op *ast.SetOprType
		switch x := b.(type) {
		case *ast.SelectStmt:
			op = x.AfterSetOperator
		case *ast.SetOprSelectList:
			op = x.AfterSetOperator
		}
		s.Branches = append(s.Branches, Branch{Op: convSetOp(op), Query: convQuery(b)})
	}
	return s
}

func convSetOp(o *ast.SetOprType) SetOpKind {
	if o == nil {
		return SetOpNone
	}
	switch *o {
	case ast.UnionAll:
		return SetOpUnionAll
	case ast.Intersect:
		return SetOpIntersect
	case ast.IntersectAll:
		return SetOpIntersectAll
	case ast.Except:
		return SetOpExcept
	case ast.ExceptAll:
		return SetOpExceptAll
	}
	return SetOpUnion
}

func convWith(w *ast.WithClause) *With {
	if w == nil {
		return nil
	}
	out := &With{Recursive: w.IsRecursive}
	for _, c := range w.CTEs {
		d := CTE{Name: c.Name.O, Query: convQuery(c.Query.Query)}
		for _, col := range c.ColNameList {
			d.Columns = append(d.Columns, col.O)
		}
		out.CTEs = append(out.CTEs, d)
	}
	return out
}

func convSelect(sel *ast.SelectStmt) *Select {
	s := &Select{Distinct: sel.Distinct, With: convWith(sel.With), Where: convExpr(sel.Where),
		OrderBy: convOrder(sel.OrderBy), Limit: convLimit(sel.Limit)}
	switch sel.Kind {
	case ast.SelectStmtKindTable:
		s.Kind = SelectTable
	case ast.SelectStmtKindValues:
		s.Kind = SelectValues
	}
	if sel.Fields != nil {
		for _, f := range sel.Fields.Fields {
			if f.WildCard != nil {
				s.Fields = append(s.Fields, Field{Star: true, StarOf: f.WildCard.Table.O})
				continue
			}
			s.Fields = append(s.Fields, Field{Expr: convExpr(f.Expr), Alias: f.AsName.O})
		}
	}
	s.decodeDistinctOn()
	if sel.From != nil {
		s.From = convJoin(sel.From.TableRefs)
	}
	if sel.GroupBy != nil {
		s.GroupBy = make([]Expr, len(sel.GroupBy.Items))
		for i, it := range sel.GroupBy.Items {
			s.GroupBy[i] = convExpr(it.Expr)
		}
		s.decodeGroupingSets()
	}
	if sel.Having != nil {
		s.Having = convExpr(sel.Having.Expr)
	}
	for i := range sel.WindowSpecs {
		s.Windows = append(s.Windows, convWindow(&sel.WindowSpecs[i]))
	}
	return s
}

func convJoin(j *ast.Join) *Join {
	if j == nil {
		return nil
	}
	out := &Join{Left: convFrom(j.Left), Natural: j.NaturalJoin}
	if j.Right != nil {
		out.Right = convFrom(j.Right)
	}
	switch {
	case j.StraightJoin:
		out.Kind = JoinFull // the front end's spelling of FULL JOIN
	case j.Tp == ast.LeftJoin:
		out.Kind = JoinLeft
	case j.Tp == ast.RightJoin:
		out.Kind = JoinRight
	}
	if j.On != nil {
		if call, ok := j.On.Expr.(*ast.FuncCallExpr); ok && call.FnName.L == naturalMarker {
			out.Natural = true
		} else {
			out.On = convExpr(j.On.Expr)
		}
	}
	for _, u := range j.Using {
		out.Using = append(out.Using, u.Name.O)
	}
	return out
}

func convFrom(n ast.ResultSetNode) From {
	switch x := n.(type) {
	case *ast.Join:
		return convJoin(x)
	case *ast.TableSource:
		return &TableSource{Source: convSource(x.Source), Alias: x.AsName.O, Lateral: x.Lateral}
	}
	return &OtherFrom{What: tidbWhat(n)}
}

func convSource(n ast.ResultSetNode) Source {
	switch x := n.(type) {
	case *ast.TableName:
		return &TableName{Schema: x.Schema.O, Name: x.Name.O}
	case *ast.SelectStmt, *ast.SetOprStmt:
		return convQuery(x).(Source)
	case *ast.Join:
		return convJoin(x)
	}
	return &OtherSource{What: tidbWhat(n)}
}

// orderKey unwraps a nested ORDER BY key's NULLS FIRST|LAST marker:
// nullsFirst is nil when the key has none.
func orderKey(n Expr) (key Expr, nullsFirst *bool) {
	call, ok := n.(*FuncCall)
	if !ok || len(call.Args) != 1 || (call.Name != "__nulls_first" && call.Name != "__nulls_last") {
		return n, nil
	}
	first := call.Name == "__nulls_first"
	return call.Args[0], &first
}

// decodeGroupingSets turns the marker item that carries a nested query's
// grouping sets through TiDB (nestedGroupingSets) into GroupingSets.
func (s *Select) decodeGroupingSets() {
	n := len(s.GroupBy)
	if n == 0 {
		return
	}
	call, ok := s.GroupBy[n-1].(*FuncCall)
	if !ok || call.Name != groupingSetsMarker || len(call.Args) != 1 {
		return
	}
	text, ok := call.Args[0].(*Const)
	if !ok {
		return
	}
	str, _ := text.Value.(string)
	if sets, ok := decodeSets(str); ok {
		s.GroupingSets, s.GroupBy = sets, s.GroupBy[:n-1]
	}
}

// decodeDistinctOn turns the marker item that carries a nested query's
// DISTINCT ON keys through TiDB (nestedDistinctOn) into DistinctOn.
func (s *Select) decodeDistinctOn() {
	if !s.Distinct || len(s.Fields) < 2 {
		return
	}
	call, ok := s.Fields[0].Expr.(*FuncCall)
	if !ok || call.Name != distinctOnMarker {
		return
	}
	s.DistinctOn, s.Fields = call.Args, s.Fields[1:]
	if s.DistinctOn == nil {
		s.DistinctOn = []Expr{}
	}
}
