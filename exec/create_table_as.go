package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/exec/engine"
	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareCreateTableAs plans CREATE TABLE t AS query: the table takes the
// query's column names and types, then INSERT INTO t query fills it. The
// query is bound now for its parameters; the table is created when the
// statement runs, and dropped again if filling it fails outside a
// transaction block (inside one, the block's rollback undoes both).
func (s *Session) prepareCreateTableAs(ctx context.Context, x *sql.CreateTable, params *sql.Params) (plan, []stmt.Column, error) {
	if _, err := engine.Plan(ctx, s.queryEnv(), x.Query, params); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*stmt.Result, error) {
		ct, err := s.tableFromQuery(ctx, x, params)
		if err != nil {
			return nil, err
		}
		created, _, err := s.prepareDDL(ct)
		if err != nil {
			return nil, err
		}
		res, err := created.execute(ctx, s, args)
		if err != nil {
			return nil, err
		}
		if len(res.Notices) > 0 || x.NoData {
			// IF NOT EXISTS over an existing table: nothing is filled.
			res.Tag = "CREATE TABLE AS"
			return res, nil
		}
		return s.fillCreatedTable(ctx, x, params, args)
	}
	return planFunc(run), nil, nil
}

// tableFromQuery is the CREATE TABLE the query's columns describe.
func (s *Session) tableFromQuery(ctx context.Context, x *sql.CreateTable, params *sql.Params) (*sql.CreateTable, error) {
	q, err := engine.Plan(ctx, s.queryEnv(), x.Query, params)
	if err != nil {
		return nil, err
	}
	cols := q.Columns()
	if len(x.ColumnNames) > len(cols) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "too many column names were specified")
	}
	ct := *x
	ct.Query, ct.Columns = nil, make([]sql.ColumnDef, len(cols))
	seen := map[string]bool{}
	for i, c := range cols {
		name := c.Name
		if i < len(x.ColumnNames) {
			name = x.ColumnNames[i]
		}
		if seen[name] {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen[name] = true
		t, err := storedType(name, c.Type)
		if err != nil {
			return nil, err
		}
		ct.Columns[i] = sql.ColumnDef{Name: name, Type: t}
	}
	return &ct, nil
}

// storedType is the column type a query's output becomes: untyped text is
// text, and numeric without a precision takes Iceberg's widest decimal at
// the values' scale.
func storedType(name string, t sql.Type) (sql.Type, error) {
	switch {
	case t.Kind == sql.KindUnknown:
		return sql.Text, nil
	case t.Kind == sql.KindNumeric && t.Precision == 0:
		return sql.Numeric(38, t.Scale), nil
	}
	if _, err := t.IcebergType(); err != nil {
		return sql.Type{}, pgerr.Errorf(pgerr.FeatureNotSupported, "column %q has type %s, which cannot be stored in an Iceberg table", name, t)
	}
	return t, nil
}

// fillCreatedTable runs INSERT INTO t query; its tag is SELECT n, as
// PostgreSQL answers CREATE TABLE AS.
func (s *Session) fillCreatedTable(ctx context.Context, x *sql.CreateTable, params *sql.Params, args []Param) (*stmt.Result, error) {
	ins := &sql.Insert{Table: x.Name, Query: x.Query}
	pl, _, err := s.prepareInsert(ctx, ins, params)
	if err == nil {
		var res *stmt.Result
		if res, err = pl.execute(ctx, s, args); err == nil {
			return tagOnly("SELECT " + strings.TrimPrefix(res.Tag, "INSERT 0 ")), nil
		}
	}
	if !s.tx.active {
		if derr := s.dropCreated(ctx, x.Name); derr != nil {
			return nil, errors.Join(err, fmt.Errorf("drop the table CREATE TABLE AS created: %w", derr))
		}
	}
	return nil, err
}

func (s *Session) dropCreated(ctx context.Context, n sql.TableName) error {
	schema, err := s.creationSchema(ctx, n)
	if err != nil {
		return err
	}
	return s.engine.wh.DropTable(ctx, iceberg.Ident(schema, n.Table), true)
}
