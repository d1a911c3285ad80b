package wire

import (
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// extendedProtocol is the extended query protocol's state: the prepared
// statements and portals by name, the Execute held for the next message
// (pipeline.go), and the discarding of messages until Sync after an error.
type extendedProtocol struct {
	ex      *executor
	t       *transport
	stmts   map[string]*statement
	portals map[string]*portal

	ignoreTillSync bool // an extended-protocol error discards messages until Sync
	// held is an Execute outside a block waiting for the next message (see
	// pipeline.go).
	held *pgproto3.Execute
}

func newExtendedProtocol(ex *executor) *extendedProtocol {
	return &extendedProtocol{ex: ex, t: ex.t, stmts: map[string]*statement{}, portals: map[string]*portal{}}
}

// isEmptyQuery reports a query with nothing to run (pgjdbc's isValid sends "").
func isEmptyQuery(q string) bool {
	return strings.Trim(q, " \t\r\n;") == ""
}

// report reports an extended-protocol error and starts discarding until Sync.
func (e *extendedProtocol) report(err error) {
	if err != nil {
		e.t.sendError(err)
		e.ignoreTillSync = true
	}
}

// skips reports whether msg is discarded: after an error everything up to
// Sync is, except Terminate.
func (e *extendedProtocol) skips(msg pgproto3.FrontendMessage) bool {
	if !e.ignoreTillSync {
		return false
	}
	switch msg.(type) {
	case *pgproto3.Sync, *pgproto3.Terminate:
		return false
	}
	return true
}

func (e *extendedProtocol) parse(m *pgproto3.Parse) error {
	if err := checkUTF8(m.Query); err != nil {
		return err
	}
	if m.Name != "" {
		if _, exists := e.stmts[m.Name]; exists {
			return pgerr.Errorf(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", m.Name)
		}
	}
	st := &statement{empty: isEmptyQuery(m.Query)}
	if st.empty {
		st.prep = &stmt.Prepared{Query: m.Query}
	} else {
		ctx, done := e.ex.statementContext()
		defer done()
		oids := append([]uint32(nil), m.ParameterOIDs...)
		err := guard(func() (err error) {
			st.prep, err = e.ex.sess.Prepare(ctx, m.Query, oids)
			return err
		})
		if err != nil {
			return sql.Located(m.Query, err)
		}
		e.t.sendNotices(st.prep.Notices)
	}
	e.stmts[m.Name] = st
	e.t.send(&pgproto3.ParseComplete{})
	return nil
}

func (e *extendedProtocol) bind(m *pgproto3.Bind) error {
	st, ok := e.stmts[m.PreparedStatement]
	if !ok {
		return pgerr.Errorf(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", m.PreparedStatement)
	}
	if m.DestinationPortal != "" {
		if _, exists := e.portals[m.DestinationPortal]; exists {
			return pgerr.Errorf(pgerr.DuplicateCursor, "portal %q already exists", m.DestinationPortal)
		}
	}
	params, err := decodeParams(m.ParameterFormatCodes, m.Parameters, st.prep.ParamTypes)
	if err != nil {
		return err
	}
	if old := e.portals[m.DestinationPortal]; old != nil {
		old.close()
	}
	e.portals[m.DestinationPortal] = &portal{stmt: st, params: params, formatCodes: append([]int16(nil), m.ResultFormatCodes...)}
	e.t.send(&pgproto3.BindComplete{})
	return nil
}

func (e *extendedProtocol) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, ok := e.stmts[m.Name]
		if !ok {
			return pgerr.Errorf(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", m.Name)
		}
		e.t.send(&pgproto3.ParameterDescription{ParameterOIDs: st.prep.ParamTypes})
		e.describeColumns(st, nil)
	case 'P':
		p, ok := e.portals[m.Name]
		if !ok {
			return pgerr.Errorf(pgerr.InvalidCursorName, "portal %q does not exist", m.Name)
		}
		formats, err := columnFormats(p.formatCodes, len(p.stmt.prep.Columns))
		if err != nil {
			return err
		}
		e.describeColumns(p.stmt, formats)
	default:
		return protocolError("invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (e *extendedProtocol) describeColumns(st *statement, formats []int16) {
	if st.empty || st.prep.Columns == nil {
		e.t.send(&pgproto3.NoData{})
		return
	}
	e.t.sendRowDescription(st.prep.Columns, formats)
}

func (e *extendedProtocol) execute(m *pgproto3.Execute) error {
	p, ok := e.portals[m.Portal]
	if !ok {
		return pgerr.Errorf(pgerr.InvalidCursorName, "portal %q does not exist", m.Portal)
	}
	ctx, done := e.ex.statementContext()
	defer done()
	return sql.Located(p.stmt.prep.Query, e.ex.run(ctx, p, int(m.MaxRows), false))
}

func (e *extendedProtocol) close(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(e.stmts, m.Name)
	case 'P':
		e.closePortal(m.Name)
	default:
		return protocolError("invalid CLOSE message subtype %d", m.ObjectType)
	}
	e.t.send(&pgproto3.CloseComplete{})
	return nil
}

// sync ends an extended-protocol batch, before its ReadyForQuery. Outside
// a transaction block the implicit transaction ends, and with it every
// portal, as in PostgreSQL.
func (e *extendedProtocol) sync() {
	e.ignoreTillSync = false
	e.ex.endImplicit()
	if e.ex.sess.TxStatus() == stmt.TxIdle {
		e.closePortals()
	}
}

// closePortal closes and forgets the portal name, if there is one.
func (e *extendedProtocol) closePortal(name string) {
	if p := e.portals[name]; p != nil {
		p.close()
		delete(e.portals, name)
	}
}

func (e *extendedProtocol) closePortals() {
	for name, p := range e.portals {
		p.close()
		delete(e.portals, name)
	}
}
