package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// recursiveCTE plans a self-referencing WITH query: body must be
// non-recursive-term UNION [ALL] recursive-term.
func (p *Builder) recursiveCTE(c *cte, qual string) (Node, error) {
	start, step, op, err := splitRecursive(c)
	if err != nil {
		return nil, err
	}
	sst, err := start.Select()
	if err != nil {
		return nil, err
	}
	sq, err := p.query(sst, nil)
	if err != nil {
		return nil, err
	}
	cols := sq.Columns()
	if len(c.cols) > len(cols) {
		return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.name, len(cols), len(c.cols))
	}
	sc := &sql.Scope{}
	for i, col := range cols {
		name := col.Name
		if i < len(c.cols) {
			name = c.cols[i]
		}
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Table: qual, Name: name, T: col.Type})
	}
	work := &WorkTable{Sc: sc}
	c.work = work
	defer func() { c.work = nil }()
	rst, err := step.Select()
	if err != nil {
		return nil, err
	}
	rq, err := p.query(rst, nil)
	if err != nil {
		return nil, err
	}
	if err := matchRecursiveTypes(c.name, sq, rq); err != nil {
		return nil, err
	}
	return &Recursive{Start: sq, Step: rq, Distinct: op == sql.SetUnion, Work: work, Sc: sc}, nil
}

// splitRecursive finds the two terms of a recursive WITH query's body.
func splitRecursive(c *cte) (start, step *sql.Query, op sql.SetOp, err error) {
	start, step, op, ok := c.body.RecursiveTerms()
	if !ok {
		return nil, nil, 0, pgerr.Errorf(pgerr.InvalidRecursion,
			"recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", c.name)
	}
	if start.References(c.name) {
		return nil, nil, 0, pgerr.Errorf(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", c.name)
	}
	return start, step, op, nil
}

// matchRecursiveTypes requires the recursive term's columns to have the
// non-recursive term's types, as PostgreSQL does.
func matchRecursiveTypes(name string, start, step *Query) error {
	sc, rc := start.Columns(), step.Columns()
	if len(sc) != len(rc) {
		return pgerr.Errorf(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	for i := range sc {
		if sc[i].Type != rc[i].Type {
			err := pgerr.Errorf(pgerr.DatatypeMismatch,
				"recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1, sc[i].Type, rc[i].Type)
			err.Hint = "Cast the output of the non-recursive term to the correct type."
			return err
		}
	}
	return nil
}
