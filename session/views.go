package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// viewNamed is what resolving a table finds when the name is a view's:
// 42809 for statements that need a table, the view for queries.
type viewNamed struct {
	err  *pgerr.Error
	view *logical.Table
}

func (e *viewNamed) Error() string { return e.err.Error() }
func (e *viewNamed) Unwrap() error { return e.err }

// findView looks n up among the views of its schema, or of search_path.
func (r *nameResolver) findView(ctx context.Context, n sql.TableName) (*logical.Table, bool, error) {
	schemas := []string{n.Schema}
	if n.Schema == "" {
		schemas = r.searchPath()
	}
	for _, ns := range schemas {
		ident := lake.Ident(ns, n.Table)
		if r.tx.active && r.tx.ddl.hides(viewKey(ident)) {
			continue
		}
		v, err := r.engine.wh.Views().LoadView(ctx, ident)
		if errors.Is(err, lake.ErrNoSuchView) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		names := make([]string, 0, len(v.Schema.Fields()))
		for _, f := range v.Schema.Fields() {
			names = append(names, f.Name)
		}
		return &logical.Table{Ident: ident, View: &logical.View{SQL: v.SQL, Columns: names}}, true, nil
	}
	return nil, false, nil
}

// viewKey is a view's key among a block's hidden (dropped) names.
func viewKey(ident table.Identifier) table.Identifier {
	return append(table.Identifier{"view:" + ident[0]}, ident[1:]...)
}

// isAView is the error for a view where a table is needed.
func isAView(name string, v *logical.Table) error {
	return &viewNamed{view: v, err: &pgerr.Error{Code: pgerr.WrongObjectType,
		Message: fmt.Sprintf("%q is a view", name),
		Hint:    "Views are read-only: write to the tables the view reads; DROP VIEW removes it."}}
}
