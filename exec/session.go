package exec

import (
	"context"

	"github.com/magmalake/magmalake/sql"
)

// Engine executes statements against one warehouse; it is shared by all sessions.
type Engine struct {
}

// NewSession starts a session for one client connection or REPL.
func (e *Engine) NewSession(info SessionInfo) *Session {
	return &Session{engine: e, info: info}
}

// Session holds per-connection state: settings, transaction, prepared plans.
type Session struct {
	engine *Engine
	info   SessionInfo
}

// ParameterStatus is the set of ParameterStatus messages sent after
// authentication, as PostgreSQL 15 sends them.
func (s *Session) ParameterStatus() map[string]string {
	return map[string]string{}
}

// Split cuts a simple-query string into its statements (PostgreSQL lexical
// rules: quotes, dollar quotes, comments). An empty or whitespace-only query
// gives no statements (EmptyQueryResponse).
func (s *Session) Split(query string) ([]string, error) {
	return nil, sql.Errorf(sql.CodeFeatureNotSupported, "not implemented")
}

// Prepare parses and binds one statement. paramTypes are the client's
// parameter OIDs (0 = infer).
func (s *Session) Prepare(ctx context.Context, query string, paramTypes []uint32) (*Prepared, error) {
	return nil, sql.Errorf(sql.CodeFeatureNotSupported, "not implemented")
}

// Execute runs a prepared statement with bound parameters. Cancelling ctx
// cancels the statement (SQLSTATE 57014) and removes what it wrote.
func (s *Session) Execute(ctx context.Context, p *Prepared, params []Param) (*Result, error) {
	return nil, sql.Errorf(sql.CodeFeatureNotSupported, "not implemented")
}

// TxStatus is the ReadyForQuery status: TxIdle, TxActive or TxFailed.
func (s *Session) TxStatus() byte { return TxIdle }

// Close ends the session, rolling back an open transaction.
func (s *Session) Close() {}
