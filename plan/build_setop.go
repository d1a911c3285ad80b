package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// setOperation plans UNION / INTERSECT / EXCEPT [ALL] over the branches of
// list; INTERSECT binds tighter than UNION and EXCEPT, as in PostgreSQL.
func (p *Builder) setOperation(set *sql.SetOperation, outer *sql.Outer) (Node, error) {
	var leaves []*Query
	var ops []sql.SetOp
	for i, b := range set.Branches() {
		st, err := b.Query.Select()
		if err != nil {
			return nil, err
		}
		p.untyped = true
		q, err := p.query(st, outer)
		p.untyped = false
		if err != nil {
			return nil, err
		}
		if i > 0 {
			op := b.Op
			ops = append(ops, op)
			if len(q.Columns()) != len(leaves[0].Columns()) {
				return nil, pgerr.Errorf(pgerr.SyntaxError, "each %s query must have the same number of columns", setOpName(op))
			}
		}
		leaves = append(leaves, q)
	}
	if err := p.unifyBranches(leaves, ops); err != nil {
		return nil, err
	}
	root := setTree(leaves, ops)
	sc := &sql.Scope{}
	for _, c := range leaves[0].Columns() {
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Name: c.Name, T: c.Type})
	}
	return &SetOp{Root: root, Sc: sc}, nil
}

func setOpName(op sql.SetOp) string {
	switch op {
	case sql.SetIntersect, sql.SetIntersectAll:
		return "INTERSECT"
	case sql.SetExcept, sql.SetExceptAll:
		return "EXCEPT"
	}
	return "UNION"
}

// unifyBranches gives each output column the type PostgreSQL resolves
// across the branches, converting the branches that differ.
func (p *Builder) unifyBranches(leaves []*Query, ops []sql.SetOp) error {
	what := "UNION"
	if len(ops) > 0 {
		what = setOpName(ops[0])
	}
	for c := 0; c < leaves[0].Visible; c++ {
		col := make([]sql.Expr, len(leaves))
		for i, q := range leaves {
			col[i] = q.Outputs[c]
		}
		t, err := sql.CommonType(col, what)
		if err != nil {
			return err
		}
		for _, q := range leaves {
			if q.Outputs[c].Type() == t {
				continue
			}
			e, err := sql.CoerceTo(q.Outputs[c], t, p.params)
			if err != nil {
				return err
			}
			q.Outputs[c] = e
		}
	}
	return nil
}

// setTree folds the branches: INTERSECT first, then UNION and EXCEPT from
// left to right.
func setTree(leaves []*Query, ops []sql.SetOp) *SetTree {
	nodes := []*SetTree{{Leaf: leaves[0]}}
	var rest []sql.SetOp
	for i, op := range ops {
		n := &SetTree{Leaf: leaves[i+1]}
		if op == sql.SetIntersect || op == sql.SetIntersectAll {
			last := nodes[len(nodes)-1]
			nodes[len(nodes)-1] = &SetTree{Op: op, Left: last, Right: n}
			continue
		}
		nodes = append(nodes, n)
		rest = append(rest, op)
	}
	root := nodes[0]
	for i, op := range rest {
		root = &SetTree{Op: op, Left: root, Right: nodes[i+1]}
	}
	return root
}
