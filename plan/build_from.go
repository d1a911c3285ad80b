package plan

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// fromItem plans one item of a FROM clause: a join tree, a table, a WITH
// query, a derived table or a set-returning function.
func (p *Builder) fromItem(n sql.FromItem, outer *sql.Outer) (Node, error) {
	switch x := n.(type) {
	case *sql.FromJoin:
		return p.join(x, outer)
	case *sql.FromTable:
		return p.tableSource(x, outer)
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported in FROM", n.Construct())
}

func (p *Builder) tableSource(ts *sql.FromTable, outer *sql.Outer) (Node, error) {
	alias, cols := splitAlias(ts.Alias())
	var src Node
	var err error
	if name, ok := ts.Relation(); ok {
		src, err = p.namedRelation(name, alias)
	} else if q, ok := ts.Query(); ok {
		if alias == "" {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery in FROM must have an alias")
		}
		src, err = p.derived(q, alias, outer)
	} else {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported in FROM", ts.Construct())
	}
	if err != nil {
		return nil, err
	}
	if len(cols) > 0 {
		return renameColumns(src, cols)
	}
	return src, nil
}

// splitAlias undoes the front end's folding of s(a, b) into one alias.
func splitAlias(a string) (string, []string) {
	parts := strings.Split(a, sql.AliasColumnSep)
	return parts[0], parts[1:]
}

// namedRelation is a table or a WITH query named in FROM.
func (p *Builder) namedRelation(name sql.TableName, alias string) (Node, error) {
	ref := &sql.TableRef{Name: name, Alias: alias}
	if c := p.lookupCTE(ref.Name); c != nil {
		return p.cteRef(c, ref)
	}
	return p.openTable(ref)
}

// cteRef is a WITH query named in FROM.
func (p *Builder) cteRef(c *cte, ref *sql.TableRef) (Node, error) {
	if ref.SnapshotID != nil || ref.AsOfTimestamp != nil || ref.Ref != "" {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "time travel applies to tables, not to the WITH query %q", c.name)
	}
	qual := ref.Alias
	if qual == "" {
		qual = c.name
	}
	if c.work != nil {
		sc := &sql.Scope{}
		for _, col := range c.work.Sc.Columns {
			sc.Columns = append(sc.Columns, sql.ScopeColumn{Table: qual, Name: col.Name, T: col.T})
		}
		return &WorkRef{Work: c.work, Sc: sc}, nil
	}
	return p.cteSource(c, qual)
}

// cteSource plans a WITH query's body where it is referenced, seeing the
// WITH lists that were in scope where it was defined.
func (p *Builder) cteSource(c *cte, qual string) (Node, error) {
	saved := p.ctes
	visible := map[string]*cte{}
	for name, d := range p.ctes[c.depth] {
		if d.index < c.index || c.recursive && d.index == c.index {
			visible[name] = d
		}
	}
	p.ctes = append(append([]map[string]*cte(nil), p.ctes[:c.depth]...), visible)
	defer func() { p.ctes = saved }()
	if c.recursive && c.body.References(c.name) {
		return p.recursiveCTE(c, qual)
	}
	q := c.shared
	if q == nil {
		st, err := c.body.Select()
		if err != nil {
			return nil, err
		}
		if q, err = p.query(st, nil); err != nil {
			return nil, err
		}
		if c.refs > 1 {
			q.Shared, c.shared = true, q
		}
	}
	src := NewDerived(q, qual)
	if len(c.cols) > 0 {
		return renameColumns(src, c.cols)
	}
	return src, nil
}

// derived plans a subquery in FROM.
func (p *Builder) derived(n *sql.Query, alias string, outer *sql.Outer) (Node, error) {
	st, err := n.Select()
	if err != nil {
		return nil, err
	}
	if srf, ok, err := p.setReturning(st, alias, outer); ok || err != nil {
		return srf, err
	}
	q, err := p.query(st, outer)
	if err != nil {
		return nil, err
	}
	return NewDerived(q, alias), nil
}

// renameColumns applies an alias's column list: the first len(names)
// columns take the names, the rest keep theirs.
func renameColumns(src Node, names []string) (Node, error) {
	sc := src.Scope()
	if len(names) > len(sc.Columns) {
		return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified",
			QualifierOf(sc), len(sc.Columns), len(names))
	}
	out := &sql.Scope{Aliased: sc.Aliased}
	for i, c := range sc.Columns {
		if i < len(names) {
			c.Name = names[i]
		}
		out.Columns = append(out.Columns, c)
	}
	return &Rename{Input: src, Sc: out}, nil
}

// QualifierOf is the table name the columns of sc are qualified by.
func QualifierOf(sc *sql.Scope) string {
	for _, c := range sc.Columns {
		if c.Table != "" {
			return c.Table
		}
	}
	return ""
}
