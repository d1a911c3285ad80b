package session

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/copyio"
	"github.com/magmalake/magmalake/dml"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareCopy hands COPY to package copyio; the plan runs it on the session
// executing it.
func prepareCopy(ctx context.Context, s *Session, st *sql.Copy, params *sql.Params) (plan, []stmt.Column, error) {
	run, err := copyio.Prepare(ctx, copyioPort{s}, st, params)
	if err != nil {
		return nil, nil, err
	}
	return planFunc(func(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
		return run(ctx, copyioPort{s}, args)
	}), nil, nil
}

// copyioPort is the session as COPY, read_csv and read_parquet see it.
type copyioPort struct{ s *Session }

var _ copyio.Port = copyioPort{}

func (p copyioPort) CheckWrite() error { return p.s.tx.checkWrite() }

// InsertTarget is INSERT's own target resolution (dml owns it), on this
// port's session.
func (p copyioPort) InsertTarget(ctx context.Context, ins *sql.Insert) (*copyio.Target, error) {
	port := dmlPort{p.s}
	t, err := dml.ResolveInsertTarget(ctx, port, ins)
	if err != nil {
		return nil, err
	}
	return &copyio.Target{
		Relation: t.Relation(),
		Scope:    t.Scope(),
		Feeds:    t.Feeds(),
		Require:  t.Require(),
		Schema:   t.Schema(),
		Width:    t.Width(),
		Append: func(ctx context.Context, rows iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
			return t.Append(ctx, port, rows)
		},
	}, nil
}

func (p copyioPort) FailLoad(err error) error {
	p.s.tx.fail()
	return toSQLError(err)
}

func (p copyioPort) ResolveTable(ctx context.Context, n sql.TableName) (*logical.Table, error) {
	return p.s.names.resolveTable(ctx, n)
}

func (p copyioPort) PrepareQuery(ctx context.Context, q *sql.Select, params *sql.Params) (copyio.Query, error) {
	sel, _, err := p.s.prepareSelect(ctx, q, params)
	if qp, ok := sel.(*queryPlan); ok {
		// COPY sends no row description at Prepare: bound again over a
		// table that changed, it copies the columns the table has then.
		qp.anyColumns = true
	}
	return sel, err
}

// RunQuery runs a plan PrepareQuery made, on this port's session.
func (p copyioPort) RunQuery(ctx context.Context, q copyio.Query, args []any) (*stmt.Result, error) {
	return q.(plan).execute(ctx, p.s, args)
}

func (p copyioPort) InputStyle() sql.InputStyle { return p.s.settings.inputStyle() }

func (p copyioPort) BatchSize() int { return p.s.engine.opts.BatchSize }

func (p copyioPort) FileReadRoots() []string { return p.s.engine.opts.FileReadRoots }
