package exec

import (
	"github.com/magmalake/magmalake/exec/engine"

	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/exec/pgcatalog"
	"github.com/magmalake/magmalake/sql"
)

// catalogSelect routes a query to the catalog evaluator when it is complex
// (joins, subqueries, set operations), names a pg_catalog or
// information_schema relation (or an unqualified pg_* one that is not a user
// table), or calls a catalog function the scalar binder does not know (a
// SELECT without FROM such as current_schemas(true)). ok is false when the
// ordinary SELECT path should handle st.
func (s *Session) catalogSelect(ctx context.Context, st *sql.Select, params *sql.Params) (pl plan, cols []Column, ok bool, err error) {
	isUser := func(name string) bool {
		_, err := s.resolveTable(ctx, sql.TableName{Table: name})
		return err == nil
	}
	switch {
	case st.Complex && pgcatalog.ReadsCatalog(st, isUser):
	case st.Complex:
		if _, err := engine.Plan(ctx, s.queryEnv(), st, params); !sql.IsUnknownFunction(err) {
			return nil, nil, false, nil
		}
	case pgcatalog.NamesCatalog(st):
		if st.From.Name.Schema == "" {
			if _, err := s.resolveTable(ctx, st.From.Name); err == nil {
				return nil, nil, false, nil
			}
		}
	case st.From == nil:
		if _, err := engine.Plan(ctx, s.queryEnv(), st, params); !sql.IsUnknownFunction(err) {
			return nil, nil, false, nil
		}
		if err := refusedItem(st, params); err != nil {
			return nil, nil, true, err
		}
	default:
		return nil, nil, false, nil
	}
	pl, cols, err = s.prepareCatalog(ctx, st, params)
	return pl, cols, true, err
}

func (s *Session) prepareCatalog(ctx context.Context, st *sql.Select, params *sql.Params) (plan, []Column, error) {
	userTable := func(schema, name string) bool {
		_, err := s.resolveTable(ctx, sql.TableName{Schema: schema, Table: name})
		return err == nil
	}
	p, err := pgcatalog.Compile(st, params, userTable)
	if err != nil {
		return nil, nil, err
	}
	var cols []Column
	for _, c := range p.Columns() {
		cols = append(cols, Column{Name: c.Name, Type: c.Type})
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		rows, err := p.Run(ctx, s.catalogEnv(), args)
		if err != nil {
			return nil, err
		}
		batch, err := catalogBatch(cols, rows)
		if err != nil {
			return nil, err
		}
		return &Result{Columns: cols, Rows: engine.NewBatchRows("SELECT", []arrow.RecordBatch{batch})}, nil
	}
	return planFunc(run), cols, nil
}

func (s *Session) catalogEnv() *pgcatalog.Env {
	return &pgcatalog.Env{
		Warehouse:  s.engine.wh,
		User:       s.info.User,
		Database:   s.info.Database,
		SearchPath: s.searchPath(),
		Setting: func(name string) (string, bool) {
			v, err := s.settings.Get(name)
			return v, err == nil
		},
		Settings: s.settings.All,
		Version:  VersionString,
	}
}

// catalogBatch builds one record batch from the evaluator's rows.
func catalogBatch(cols []Column, rows [][]any) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for i, c := range cols {
			if err := sql.AppendValue(b.Field(i), c.Type, r[i]); err != nil {
				return nil, err
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// refusedItem is the error of a select-list item the scalar binder refuses
// for a reason other than an unknown function name (an operator over the
// wrong types, say): the catalog evaluator must not answer what PostgreSQL
// refuses just because another item calls a catalog function.
func refusedItem(st *sql.Select, params *sql.Params) error {
	for _, it := range st.Items {
		if it.Star || sql.HasAggregate(it.Expr) {
			continue
		}
		// A probe copy: binding must not settle the statement's parameter types.
		probe := &sql.Params{}
		if params != nil {
			probe.Types = append(probe.Types, params.Types...)
		}
		if _, err := sql.Bind(it.Expr, &sql.Scope{}, probe); err != nil && !sql.IsUnknownFunction(err) {
			return err
		}
	}
	return nil
}
