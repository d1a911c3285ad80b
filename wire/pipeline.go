package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/magmalake/magmalake/stmt"
)

// An extended-protocol pipeline is one implicit transaction up to Sync, as
// in PostgreSQL: pgjdbc's executeBatch and pgx's batches in autocommit send
// N Bind/Execute pairs and one Sync, and expect all or none of them to
// stick. Yet the usual pipeline is one statement (Parse/Bind/Execute/Sync
// in one write), which must stay an autocommit statement: re-planned rather
// than failed on a conflict, and free to be VACUUM. So an Execute outside a
// block is held until the next message says which it is: Sync runs it as
// autocommit; anything else opens the implicit transaction first. Nothing
// is lost by waiting: PostgreSQL too sends nothing before Sync or Flush,
// and a client that hangs up before Sync has its statement rolled back.

// holds reports whether an Execute waits for the next message.
func (e *extendedProtocol) holds(m *pgproto3.Execute) bool {
	if e.ex.sess.TxStatus() != stmt.TxIdle {
		return false
	}
	p, ok := e.portals[m.Portal]
	// COPY FROM STDIN asks for its data at once; a resumed portal already
	// runs in its transaction; unknown portals fail now.
	return ok && !p.stmt.empty && p.res == nil && !p.stmt.prep.Interactive
}

// runHeld runs the held Execute now that next has arrived (and before it).
func (e *extendedProtocol) runHeld(next pgproto3.FrontendMessage) {
	m := e.held
	e.held = nil
	switch next.(type) {
	case *pgproto3.Terminate:
		return // no Sync: PostgreSQL would roll it back
	case *pgproto3.Sync:
	default:
		e.ex.beginImplicit()
	}
	e.report(e.execute(m))
}
