package session

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/ddl"
	"github.com/magmalake/magmalake/lake"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareDDL plans schema, table and view definition statements (package
// ddl). They bind nothing, so all work happens at execution.
func (s *Session) prepareDDL(st sql.Statement) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		return ddl.Run(ctx, ddlPort{s}, st)
	}
	return planFunc(run), nil, nil
}

// ddlPort is what package ddl asks of the session (ddl.Port).
type ddlPort struct{ s *Session }

var _ ddl.Port = ddlPort{}

func (p ddlPort) Warehouse() *lake.Warehouse { return p.s.engine.wh }

func (p ddlPort) ResolveTable(ctx context.Context, n sql.TableName) (*logical.Table, error) {
	return p.s.names.resolveTable(ctx, n)
}

func (p ddlPort) TableItself(rt *logical.Table, n sql.TableName) error { return tableItself(rt, n) }

func (p ddlPort) CreationSchema(ctx context.Context, n sql.TableName) (string, error) {
	return p.s.names.creationSchema(ctx, n)
}

func (p ddlPort) FindView(ctx context.Context, n sql.TableName) (*logical.Table, bool, error) {
	return p.s.names.findView(ctx, n)
}

func (p ddlPort) CheckWrite() error { return p.s.tx.checkWrite() }

func (p ddlPort) Block() ddl.Block {
	if !p.s.tx.active {
		return nil
	}
	return ddlBlock{p.s}
}

func (p ddlPort) CheckProperties(props map[string]string) error { return checkProperties(props) }

func (p ddlPort) QueryColumns(ctx context.Context, q *sql.Select) ([]stmt.Column, error) {
	_, cols, err := p.s.prepareSelect(ctx, q, &sql.Params{})
	return cols, err
}

// AnyRow runs SELECT 1 FROM ident WHERE cond LIMIT 1.
func (p ddlPort) AnyRow(ctx context.Context, ident table.Identifier, cond string) (bool, error) {
	q := fmt.Sprintf("SELECT 1 FROM %s WHERE %s LIMIT 1", qualifiedName(ident), cond)
	st, err := sql.ParseOne(q)
	if err != nil {
		return false, err
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		return false, fmt.Errorf("check rows: %s is not a query", q)
	}
	pl, _, err := p.s.prepareSelect(ctx, sel, &sql.Params{})
	if err != nil {
		return false, err
	}
	res, err := pl.execute(ctx, p.s, nil)
	if err != nil {
		return false, err
	}
	defer res.Rows.Close()
	for {
		b, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if b.NumRows() > 0 {
			return true, nil
		}
	}
}

// ddlBlock is the open transaction block's DDL log (tx_ddl.go) as package
// ddl stages into it.
type ddlBlock struct{ s *Session }

func (b ddlBlock) HidesTable(ident table.Identifier) bool { return b.s.tx.ddl.hides(ident) }

func (b ddlBlock) HidesSchema(name string) bool { return b.s.tx.ddl.hidden[name+"."] }

func (b ddlBlock) HideTable(ident table.Identifier) {
	key := lake.IdentKey(ident)
	if tt, ok := b.s.tx.tables[key]; ok {
		tt.abandon()
		tt.leave()
		delete(b.s.tx.tables, key)
	}
	b.s.tx.ddl.hide(key)
}

func (b ddlBlock) HideSchema(name string) { b.s.tx.ddl.hide(name + ".") }

func (b ddlBlock) HideView(ident table.Identifier) { b.s.tx.ddl.hide(lake.IdentKey(viewKey(ident))) }

func (b ddlBlock) OnRollback(undo func(context.Context) error) {
	b.s.tx.ddl.undo = append(b.s.tx.ddl.undo, undo)
}

func (b ddlBlock) AtCommit(apply func(context.Context) error) {
	b.s.tx.ddl.deferred = append(b.s.tx.ddl.deferred, apply)
}
