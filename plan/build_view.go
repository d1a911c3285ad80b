package plan

import (
	"context"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// maxViewDepth bounds views defined over views.
const maxViewDepth = 32

// viewSource plans a view's query where the view is named, as a derived
// table: it sees none of the naming query's WITH lists, and its names
// resolve through the session's search_path as they do now.
func (p *Builder) viewSource(v *View, qual string) (Node, error) {
	if p.views >= maxViewDepth {
		return nil, pgerr.Errorf(pgerr.StatementTooComplex, "views nested more than %d deep", maxViewDepth)
	}
	st, err := sql.ParseOne(v.SQL)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "view %q does not hold a query", qual)
	}
	saved := p.ctes
	p.ctes, p.views = nil, p.views+1
	defer func() { p.ctes, p.views = saved, p.views-1 }()
	q, err := p.query(sel, nil)
	if err != nil {
		return nil, err
	}
	var src Node = NewDerived(q, qual)
	if len(v.Columns) == 0 {
		return src, nil
	}
	// The view's columns are those it was created with, as PostgreSQL
	// fixes them: a table's later columns do not appear through SELECT *.
	n := len(src.Scope().Columns)
	switch {
	case n < len(v.Columns):
		return nil, pgerr.Errorf(pgerr.UndefinedColumn, "view %q has %d columns but its query now gives %d: a column it reads was dropped", qual, len(v.Columns), n)
	case n > len(v.Columns):
		keep := make([]int, len(v.Columns))
		for i := range keep {
			keep[i] = i
		}
		src = NewPick(src, keep)
	}
	return renameColumns(src, v.Columns)
}

// ViewColumns are the columns a view's query gives now, under the view's
// column names.
func ViewColumns(ctx context.Context, env Env, v *View) ([]sql.Column, error) {
	p := NewBuilder(ctx, env, nil)
	p.params.Subqueries = p
	src, err := p.viewSource(v, "")
	if err != nil {
		return nil, err
	}
	sc := src.Scope()
	cols := make([]sql.Column, 0, len(sc.Columns))
	for _, c := range sc.Columns {
		if !c.Hidden && !c.System {
			cols = append(cols, sql.Column{Name: c.Name, Type: c.T})
		}
	}
	return cols, nil
}
