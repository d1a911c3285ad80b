package pgcatalog

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// Column is one result column.
type Column struct {
	Name string
	Type sql.Type
}

// Plan is a compiled catalog query, reusable across executions.
type Plan struct {
	q       *query
	columns []Column
	limit   evalFn
	offset  evalFn
}

// Compile compiles a SELECT over catalog relations; params collects the
// types of $n (unknown ones stay Unknown: the caller reports them as text).
// userTable, when set, tells a user table from a missing relation in errors.
func Compile(st *sql.Select, params *sql.Params, userTable func(schema, name string) bool) (*Plan, error) {
	if params == nil {
		params = &sql.Params{}
	}
	c := &compiler{params: params, userTable: userTable}
	var q *query
	var err error
	switch {
	case st.RawSetOpr != nil:
		q, err = c.setOpr(st.RawSetOpr.SelectList, st.RawSetOpr.OrderBy, st.RawSetOpr.Limit, nil)
	case st.Raw != nil:
		q, err = c.selectStmt(st.Raw, nil)
	default:
		return nil, sql.Errorf(sql.CodeFeatureNotSupported, "catalog query without a parse tree")
	}
	if err != nil {
		return nil, err
	}
	p := &Plan{q: q}
	if p.limit, p.offset, err = c.limitFns(&ast.Limit{Count: st.Limit, Offset: st.Offset}); err != nil {
		return nil, err
	}
	for _, col := range q.cols {
		p.columns = append(p.columns, Column{Name: col.name, Type: col.t})
	}
	return p, nil
}

// Columns is the row description.
func (p *Plan) Columns() []Column { return p.columns }

// Run executes the plan against the catalog as it is now. Rows hold datums
// of the columns' types (the forms sql.AppendValue takes).
func (p *Plan) Run(ctx context.Context, env *Env, params []any) ([][]any, error) {
	snap, err := loadSnapshot(ctx, env)
	if err != nil {
		return nil, err
	}
	ec := &execCtx{ctx: ctx, env: env, snap: snap, params: params, rels: map[*relDef][][]any{}}
	rows, err := p.q.run(ec, nil)
	if err != nil {
		return nil, err
	}
	if rows, err = applyLimit(ec, nil, rows, p.limit, p.offset); err != nil {
		return nil, err
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row := make([]any, len(p.columns))
		for j, col := range p.columns {
			if row[j], err = datum(r[j], col.Type); err != nil {
				return nil, err
			}
		}
		out[i] = row
	}
	return out, nil
}

// NamesCatalog reports whether a simple SELECT reads a catalog relation:
// schema pg_catalog or information_schema, or an unqualified pg_* name
// (the caller checks that no user table has that name).
func NamesCatalog(st *sql.Select) bool {
	if st.From == nil {
		return false
	}
	n := st.From.Name
	switch n.Schema {
	case "pg_catalog", "information_schema":
		return true
	case "":
		return strings.HasPrefix(n.Table, "pg_") && IsCatalogRelation("", n.Table)
	}
	return false
}

// ReadsCatalog reports whether any relation a query names (in FROM,
// joins, subqueries or set operations) is a catalog relation; isUser says
// whether an unqualified pg_* name is a user table instead.
func ReadsCatalog(st *sql.Select, isUser func(name string) bool) bool {
	if NamesCatalog(st) {
		return true
	}
	var root ast.Node
	switch {
	case st.RawSetOpr != nil:
		root = st.RawSetOpr
	case st.Raw != nil:
		root = st.Raw
	default:
		return false
	}
	v := &tableNames{}
	root.Accept(v)
	for _, tn := range v.names {
		switch tn.Schema.L {
		case "pg_catalog", "information_schema":
			return true
		case "":
			if strings.HasPrefix(tn.Name.L, "pg_") && IsCatalogRelation("", tn.Name.L) && !isUser(tn.Name.O) {
				return true
			}
		}
	}
	return false
}

// tableNames collects the table names of a tree.
type tableNames struct{ names []*ast.TableName }

func (t *tableNames) Enter(n ast.Node) (ast.Node, bool) {
	if tn, ok := n.(*ast.TableName); ok {
		t.names = append(t.names, tn)
	}
	return n, false
}

func (t *tableNames) Leave(n ast.Node) (ast.Node, bool) { return n, true }
