package parse

// Inspect calls f on n and, in the order written, on every node inside it,
// subqueries included; f returns false to skip a node's children.
func Inspect(n Node, f func(Node) bool) {
	if n == nil {
		return
	}
	w := &walker{enter: f}
	w.node(n)
}

// Rewrite replaces, bottom up, every expression of e (subqueries included)
// by what f returns for it, changing the tree in place; the result is e's
// replacement.
func Rewrite(e Expr, f func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	w := &walker{enter: func(Node) bool { return true }, leave: f}
	return w.expr(e)
}

// walker visits a tree: enter before a node's children (false: skip them),
// leave after an expression's, returning its replacement.
type walker struct {
	enter func(Node) bool
	leave func(Expr) Expr
}

func (w *walker) node(n Node) {
	switch x := n.(type) {
	case Expr:
		w.expr(x)
	case Query:
		w.query(x)
	case From:
		w.from(x)
	case Source:
		w.source(x)
	}
}

func (w *walker) expr(e Expr) Expr {
	if e == nil {
		return nil
	}
	if w.enter(e) {
		w.children(e)
	}
	if w.leave != nil {
		return w.leave(e)
	}
	return e
}

func (w *walker) exprs(es []Expr) {
	for i := range es {
		es[i] = w.expr(es[i])
	}
}

func (w *walker) children(e Expr) {
	switch x := e.(type) {
	case *Paren:
		x.X = w.expr(x.X)
	case *Unary:
		x.X = w.expr(x.X)
	case *Binary:
		x.L, x.R = w.expr(x.L), w.expr(x.R)
	case *IsNull:
		x.X = w.expr(x.X)
	case *IsTruth:
		x.X = w.expr(x.X)
	case *In:
		x.X = w.expr(x.X)
		w.exprs(x.List)
		x.Sel = w.expr(x.Sel)
	case *Between:
		x.X, x.Lo, x.Hi = w.expr(x.X), w.expr(x.Lo), w.expr(x.Hi)
	case *Like:
		x.X, x.Pattern = w.expr(x.X), w.expr(x.Pattern)
	case *Regexp:
		x.X, x.Pattern = w.expr(x.X), w.expr(x.Pattern)
	case *Case:
		x.Value = w.expr(x.Value)
		for i := range x.Whens {
			x.Whens[i].Cond, x.Whens[i].Result = w.expr(x.Whens[i].Cond), w.expr(x.Whens[i].Result)
		}
		x.Else = w.expr(x.Else)
	case *FuncCall:
		w.exprs(x.Args)
	case *AggregateCall:
		w.exprs(x.Args)
	case *WindowCall:
		w.exprs(x.Args)
		w.window(&x.Spec)
	case *Subquery:
		w.query(x.Query)
	case *Exists:
		x.Sel = w.expr(x.Sel)
	case *CompareSubquery:
		x.L, x.R = w.expr(x.L), w.expr(x.R)
	case *Row:
		w.exprs(x.Values)
	case *Position:
		x.P = w.expr(x.P)
	case *Other:
		w.exprs(x.Args)
	}
}

func (w *walker) window(s *WindowSpec) {
	w.exprs(s.PartitionBy)
	w.order(s.OrderBy)
	if s.Frame != nil {
		s.Frame.Start.Offset = w.expr(s.Frame.Start.Offset)
		s.Frame.End.Offset = w.expr(s.Frame.End.Offset)
	}
}

func (w *walker) order(items []OrderItem) {
	for i := range items {
		items[i].Expr = w.expr(items[i].Expr)
	}
}

func (w *walker) limit(l *Limit) {
	if l != nil {
		l.Count, l.Offset = w.expr(l.Count), w.expr(l.Offset)
	}
}

func (w *walker) with(x *With) {
	if x == nil {
		return
	}
	for _, c := range x.CTEs {
		w.query(c.Query)
	}
}

func (w *walker) query(q Query) {
	if q == nil || !w.enter(q) {
		return
	}
	switch x := q.(type) {
	case *Select:
		w.with(x.With)
		for i := range x.Fields {
			x.Fields[i].Expr = w.expr(x.Fields[i].Expr)
		}
		if x.From != nil {
			w.from(x.From)
		}
		x.Where = w.expr(x.Where)
		w.exprs(x.GroupBy)
		x.Having = w.expr(x.Having)
		for i := range x.Windows {
			w.window(&x.Windows[i])
		}
		w.order(x.OrderBy)
		w.limit(x.Limit)
	case *SetOp:
		w.with(x.With)
		for _, b := range x.Branches {
			w.query(b.Query)
		}
		w.order(x.OrderBy)
		w.limit(x.Limit)
	}
}

func (w *walker) from(f From) {
	if f == nil || !w.enter(f) {
		return
	}
	switch x := f.(type) {
	case *Join:
		w.from(x.Left)
		w.from(x.Right)
		x.On = w.expr(x.On)
	case *TableSource:
		w.source(x.Source)
	}
}

func (w *walker) source(s Source) {
	switch x := s.(type) {
	case Query:
		w.query(x)
	case From:
		w.from(x)
	case nil:
	default:
		w.enter(x)
	}
}
