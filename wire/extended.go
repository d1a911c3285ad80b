package wire

import (
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// isEmptyQuery reports a query with nothing to run (pgjdbc's isValid sends "").
func isEmptyQuery(q string) bool {
	return strings.Trim(q, " \t\r\n;") == ""
}

func (c *conn) handleParse(m *pgproto3.Parse) error {
	if err := checkUTF8(m.Query); err != nil {
		return err
	}
	if m.Name != "" {
		if _, exists := c.stmts[m.Name]; exists {
			return pgerr.Errorf(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", m.Name)
		}
	}
	st := &statement{empty: isEmptyQuery(m.Query)}
	if st.empty {
		st.prep = &exec.Prepared{Query: m.Query}
	} else {
		ctx, done := c.statementContext()
		defer done()
		oids := append([]uint32(nil), m.ParameterOIDs...)
		err := guard(func() (err error) {
			st.prep, err = c.sess.Prepare(ctx, m.Query, oids)
			return err
		})
		if err != nil {
			return sql.Located(m.Query, err)
		}
		c.sendNotices(st.prep.Notices)
	}
	c.stmts[m.Name] = st
	c.send(&pgproto3.ParseComplete{})
	return nil
}

func (c *conn) handleBind(m *pgproto3.Bind) error {
	st, ok := c.stmts[m.PreparedStatement]
	if !ok {
		return pgerr.Errorf(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", m.PreparedStatement)
	}
	if m.DestinationPortal != "" {
		if _, exists := c.portals[m.DestinationPortal]; exists {
			return pgerr.Errorf(pgerr.DuplicateCursor, "portal %q already exists", m.DestinationPortal)
		}
	}
	params, err := decodeParams(m.ParameterFormatCodes, m.Parameters, st.prep.ParamTypes)
	if err != nil {
		return err
	}
	if old := c.portals[m.DestinationPortal]; old != nil {
		old.close()
	}
	c.portals[m.DestinationPortal] = &portal{stmt: st, params: params, formatCodes: append([]int16(nil), m.ResultFormatCodes...)}
	c.send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) handleDescribe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, ok := c.stmts[m.Name]
		if !ok {
			return pgerr.Errorf(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", m.Name)
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: st.prep.ParamTypes})
		c.describeColumns(st, nil)
	case 'P':
		p, ok := c.portals[m.Name]
		if !ok {
			return pgerr.Errorf(pgerr.InvalidCursorName, "portal %q does not exist", m.Name)
		}
		formats, err := columnFormats(p.formatCodes, len(p.stmt.prep.Columns))
		if err != nil {
			return err
		}
		c.describeColumns(p.stmt, formats)
	default:
		return protocolError("invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (c *conn) describeColumns(st *statement, formats []int16) {
	if st.empty || st.prep.Columns == nil {
		c.send(&pgproto3.NoData{})
		return
	}
	c.sendRowDescription(st.prep.Columns, formats)
}

func (c *conn) handleExecute(m *pgproto3.Execute) error {
	p, ok := c.portals[m.Portal]
	if !ok {
		return pgerr.Errorf(pgerr.InvalidCursorName, "portal %q does not exist", m.Portal)
	}
	ctx, done := c.statementContext()
	defer done()
	return sql.Located(p.stmt.prep.Query, c.run(ctx, p, int(m.MaxRows), false))
}

func (c *conn) handleClose(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		if p := c.portals[m.Name]; p != nil {
			p.close()
			delete(c.portals, m.Name)
		}
	default:
		return protocolError("invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// handleSync ends an extended-protocol batch. Outside a transaction block the
// implicit transaction ends, and with it every portal, as in PostgreSQL.
func (c *conn) handleSync() {
	c.ignoreTillSync = false
	c.endImplicit()
	if c.sess.TxStatus() == exec.TxIdle {
		c.closePortals()
	}
	c.readyForQuery()
}

func (c *conn) closePortals() {
	for name, p := range c.portals {
		p.close()
		delete(c.portals, name)
	}
}
