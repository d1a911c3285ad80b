package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// handleQuery runs a simple Query: each statement in turn, the first error
// stops the rest, one ReadyForQuery at the end.
func (c *conn) handleQuery(q string) {
	defer c.readyForQuery()
	// A simple Query ends any unnamed portal, as in PostgreSQL.
	c.ext.closePortal("")
	if err := checkUTF8(q); err != nil {
		c.t.sendError(err)
		return
	}
	var stmts []string
	err := guard(func() (err error) {
		stmts, err = c.ex.sess.Split(q)
		return err
	})
	if err != nil {
		c.t.sendError(err)
		return
	}
	if len(stmts) == 0 {
		c.t.send(&pgproto3.EmptyQueryResponse{})
		return
	}
	// Several statements share an implicit transaction, as in PostgreSQL:
	// the first error undoes them all. A COMMIT among them ends it and the
	// next statement starts another; a BEGIN makes it explicit.
	several := len(stmts) > 1
	for k, s := range stmts {
		if several {
			c.ex.beginImplicit()
		}
		if err := c.runSimple(s); err != nil {
			c.t.sendError(sql.InQuery(q, k, sql.Located(s, err)))
			break
		}
	}
	c.ex.endImplicit()
	if c.ex.sess.TxStatus() == stmt.TxIdle {
		c.ext.closePortals()
	}
}

func (c *conn) runSimple(query string) error {
	ctx, done := c.ex.statementContext()
	defer done()
	st := &statement{}
	err := guard(func() (err error) {
		st.prep, err = c.ex.sess.Prepare(ctx, query, nil)
		return err
	})
	if err != nil {
		return err
	}
	c.t.sendNotices(st.prep.Notices)
	p := &portal{stmt: st}
	defer p.close()
	return c.ex.run(ctx, p, 0, true)
}
