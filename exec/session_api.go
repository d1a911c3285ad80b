package exec

import "github.com/magmalake/magmalake/stmt"

// This file is the contract wire and repl program against. Its implementation
// lives in session.go.

// SessionInfo is what a client said at connect.
type SessionInfo struct {
	User            string
	Database        string
	ApplicationName string
	// PID is the connection's process id (BackendKeyData) and Remote the
	// client's address, for the log; zero for the shell.
	PID    uint32
	Remote string
	// Options are startup parameters beyond user/database (client_encoding, DateStyle, ...).
	Options map[string]string
}

// Prepared is one parsed and bound statement, reusable across executions.
type Prepared struct {
	Query string
	// ParamTypes are the inferred (or client-given) types of $1..$n.
	ParamTypes []uint32
	// Columns is the row description the statement will produce, nil for none.
	Columns []stmt.Column
	// Interactive statements (COPY ... FROM STDIN) talk with the client as
	// they run, so the wire layer must run them when they arrive.
	Interactive bool
	// plan is the session's internal representation.
	plan any
	// logClass is what log_statement sees of it.
	logClass logClass
	// Notices are the parser's (identifiers it truncated), which
	// PostgreSQL sends as it parses: before the statement's results.
	Notices []stmt.Notice
}

// TxStatus values for ReadyForQuery.
const (
	TxIdle   byte = 'I'
	TxActive byte = 'T'
	TxFailed byte = 'E'
)

// Param values accepted by Session.Execute: nil (SQL NULL); string (the text
// representation, coerced to the parameter's type exactly as a quoted literal
// would be); bool; int64; float64; []byte (bytea); time.Time (date, time,
// timestamp, timestamptz: the wire layer decodes binary values to UTC);
// [16]byte (uuid). Binary numeric arrives as its decimal string.
type Param = any
