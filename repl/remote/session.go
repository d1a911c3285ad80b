// Package remote is the shell's session with a PostgreSQL-protocol server
// (a magmalake serve, or PostgreSQL itself): each statement goes out as a
// simple-protocol Query, as psql sends it, and comes back as the same
// stmt.Result an embedded session returns, so that one shell prints both.
package remote

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// Session is a connection to a server, driven by one shell: it is not safe
// for concurrent statements.
type Session struct {
	conn   *pgconn.PgConn
	guard  *authGuard // the connection under pgconn (TLS state for \conninfo)
	target target     // where it connected, for \conninfo and errors
	notice func(*pgerr.Error)
	// unfinished ends what the last Execute left open on the wire (a COPY
	// nobody fed or read); nil when the connection is ready.
	unfinished func() error
}

// errNoConnection is every statement's answer once the connection is gone.
var errNoConnection = pgerr.Errorf(pgerr.ConnectionDoesNotExist, "no connection to the server")

// HandleNotices makes f print every NoticeResponse (NOTICE, WARNING, ...)
// as it arrives, while a statement still runs, as psql does; without it
// they are kept in the Result. f may be called from the goroutine loading
// a COPY FROM STDIN.
func (s *Session) HandleNotices(f func(*pgerr.Error)) { s.notice = f }

// Prepare only records the statement: it is sent, as psql sends it, when it
// is executed.
func (s *Session) Prepare(_ context.Context, query string, paramTypes []uint32) (*stmt.Prepared, error) {
	if len(paramTypes) > 0 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "statement parameters are not supported over a server connection")
	}
	return &stmt.Prepared{Query: query}, nil
}

// Verbatim tells the shell to send statements as typed, with their ';':
// the server's error positions and "at end of input" messages then match
// psql's.
func (s *Session) Verbatim() {}

// Execute sends p's text as one Query and reads the answer up to
// ReadyForQuery, or up to the start of COPY data, which the Result's
// CopyIn or Rows then carry. Cancelling ctx sends a CancelRequest: the
// statement ends with the server's "canceling statement due to user
// request" and the session stays usable.
func (s *Session) Execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	if len(params) > 0 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "statement parameters are not supported over a server connection")
	}
	q, err := s.send(ctx, p.Query)
	if err != nil {
		return nil, err
	}
	return q.answer()
}

// TxStatus is the transaction status of the last ReadyForQuery: the
// prompt's '*' and '!'.
func (s *Session) TxStatus() byte {
	if st := s.conn.TxStatus(); st != 0 && !s.conn.IsClosed() {
		return st
	}
	return stmt.TxIdle
}

// Database is the database connected to (psql's %/ in the prompt).
func (s *Session) Database() string { return s.target.database }

// Superuser reports the server's is_superuser (the prompt's '#').
func (s *Session) Superuser() bool { return s.conn.ParameterStatus("is_superuser") == "on" }

// Close ends the session with a Terminate message.
func (s *Session) Close(ctx context.Context) error {
	if err := s.conn.Close(ctx); err != nil {
		return fmt.Errorf("close connection: %w", err)
	}
	return nil
}

// send puts text on the wire as a Query, after finishing what an earlier
// statement left open.
func (s *Session) send(ctx context.Context, text string) (*query, error) {
	if s.unfinished != nil {
		finish := s.unfinished
		s.unfinished = nil
		if err := finish(); err != nil {
			return nil, err
		}
	}
	if s.conn.IsClosed() {
		return nil, errNoConnection
	}
	fe := s.conn.Frontend()
	fe.Send(&pgproto3.Query{String: text})
	if err := fe.Flush(); err != nil {
		return nil, s.lost(err)
	}
	return &query{s: s, stopCancel: s.watchCancel(ctx)}, nil
}

// receive reads the next message. The statement's context is watched by
// watchCancel instead, so that cancelling sends a CancelRequest rather
// than breaking the connection.
func (s *Session) receive() (pgproto3.BackendMessage, error) {
	msg, err := s.conn.ReceiveMessage(context.Background())
	if err != nil {
		return nil, s.lost(err)
	}
	return msg, nil
}

// lost closes a connection that failed to read or write and says so as
// psql does.
func (s *Session) lost(err error) error {
	s.conn.Close(context.Background())
	return &pgerr.Error{Code: pgerr.ConnectionFailure, Message: "server closed the connection unexpectedly", Err: err}
}

// sqlError is a server's ErrorResponse or NoticeResponse as the shell
// prints it; the fields pgerr.Error has no place for (QUERY, CONTEXT, the
// object names and LOCATION) stay in the wrapped *pgconn.PgError.
func sqlError(pe *pgconn.PgError) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.Code(pe.Code), Message: pe.Message, Detail: pe.Detail, Hint: pe.Hint,
		Position: int(pe.Position), Severity: pe.Severity, Err: pe}
}

// errorFrom converts a message known to be an ErrorResponse.
func errorFrom(m *pgproto3.ErrorResponse) *pgerr.Error {
	return sqlError(pgconn.ErrorResponseToPgError(m))
}

// report hands a notice to the shell, or keeps it in notices.
func (s *Session) report(m *pgproto3.NoticeResponse, notices *[]stmt.Notice) {
	n := errorFrom((*pgproto3.ErrorResponse)(m))
	if s.notice != nil {
		s.notice(n)
		return
	}
	*notices = append(*notices, stmt.Notice{Severity: n.Severity, Code: n.Code, Message: n.Message})
}
