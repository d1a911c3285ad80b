package plan

// Walk calls f for each relation of q's plan, the derived queries' and set
// operations' included (not the subqueries of expressions: the builder
// lists those).
func Walk(q *Query, f func(Node)) {
	walkNode(q.From, f)
}

func walkNode(n Node, f func(Node)) {
	if n == nil {
		return
	}
	f(n)
	switch x := n.(type) {
	case *Derived:
		Walk(x.Query, f)
	case *Pick:
		walkNode(x.Input, f)
	case *Rename:
		walkNode(x.Input, f)
	case *Filter:
		walkNode(x.Input, f)
	case *SRF:
		walkNode(x.Input, f)
	case *Using:
		walkNode(x.Input, f)
	case *Join:
		walkNode(x.Left, f)
		walkNode(x.Right, f)
	case *Lateral:
		walkNode(x.Left, f)
		Walk(x.Right, f)
	case *SetOp:
		walkSet(x.Root, f)
	case *Recursive:
		Walk(x.Start, f)
		Walk(x.Step, f)
	}
}

func walkSet(t *SetTree, f func(Node)) {
	if t.Leaf != nil {
		Walk(t.Leaf, f)
		return
	}
	walkSet(t.Left, f)
	walkSet(t.Right, f)
}
