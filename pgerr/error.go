package pgerr

import (
	"context"
	"errors"
	"fmt"
)

// Error is the one error type that carries a SQLSTATE to the client. Position is
// 1-based in characters of the original statement text, 0 when unknown.
type Error struct {
	Code     Code
	Message  string
	Detail   string
	Hint     string
	Position int
	Severity string // "ERROR" when empty; "FATAL" closes the connection
	// Ref is the qualified name (table, or [qualifier.]column) an undefined
	// relation or column error is about; the SQL layer, which has the
	// statement text, turns it into Position.
	Ref *NameRef
	Err error // wrapped cause, if any
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// NameRef is a name an error is about, for finding it in the statement text:
// the binder and the catalog lookup know the name but not where it was
// written, the wire layer knows the text but not the name.
type NameRef struct {
	Parts  []string // as resolved: unquoted parts lower-cased, quoted ones as written
	Column bool     // a column reference (else a relation)
	// Literal: Parts[0] is the content of a string constant that failed to
	// read as the type its context gave it (PostgreSQL points at it).
	Literal bool
}

// Errorf builds an *Error with the given SQLSTATE.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Canceled maps a context error to the SQLSTATE clients expect.
func Canceled(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: QueryCanceled, Message: "canceling statement due to statement timeout", Err: err}
	}
	return &Error{Code: QueryCanceled, Message: "canceling statement due to user request", Err: err}
}
