package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/ddl"
	"github.com/magmalake/magmalake/dml"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareCreateTableAs plans CREATE TABLE t AS query: the table takes the
// query's column names and types, then INSERT INTO t query fills it. The
// query is bound now for its parameters and columns; the table is created when the
// statement runs, and dropped again if filling it fails outside a
// transaction block (inside one, the block's rollback undoes both).
func (s *Session) prepareCreateTableAs(ctx context.Context, x *sql.CreateTable, params *sql.Params) (plan, []stmt.Column, error) {
	p, err := s.planQuery(ctx, x.Query, params)
	if err != nil {
		return nil, nil, err
	}
	p.anyColumns = true // no row description was given for them
	run := func(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
		// The query's columns as it reads now; the INSERT binds it to fill
		// the table.
		q, done, err := p.query(ctx, s)
		if err != nil {
			return nil, err
		}
		done()
		ct, err := ddl.TableOfQuery(x, q.Columns())
		if err != nil {
			return nil, err
		}
		res, err := ddl.Run(ctx, ddlPort{s}, ct)
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

// fillCreatedTable runs INSERT INTO t query; its tag is SELECT n, as
// PostgreSQL answers CREATE TABLE AS.
func (s *Session) fillCreatedTable(ctx context.Context, x *sql.CreateTable, params *sql.Params, args []stmt.Param) (*stmt.Result, error) {
	ins := &sql.Insert{Table: x.Name, Query: x.Query}
	run, _, err := dml.PrepareInsert(ctx, dmlPort{s}, ins, params)
	if err == nil {
		var res *stmt.Result
		if res, err = run(ctx, dmlPort{s}, args); err == nil {
			return stmt.TagOnly("SELECT " + strings.TrimPrefix(res.Tag, "INSERT 0 ")), nil
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
	schema, err := s.names.creationSchema(ctx, n)
	if err != nil {
		return err
	}
	return s.engine.wh.Tables().DropTable(ctx, lake.Ident(schema, n.Table), true)
}
