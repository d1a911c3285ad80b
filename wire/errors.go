package wire

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
)

// errorResponse is the one place an error becomes an ErrorResponse: a
// *pgerr.Error keeps its SQLSTATE, a cancelled or expired context is 57014
// (user request or statement timeout), anything else is XX000 with its
// message.
func errorResponse(err error) *pgproto3.ErrorResponse {
	var se *pgerr.Error
	if errors.As(err, &se) {
		sev := se.Severity
		if sev == "" {
			sev = "ERROR"
		}
		code := se.Code
		if code == "" {
			code = pgerr.InternalError
		}
		return &pgproto3.ErrorResponse{
			Severity: sev, SeverityUnlocalized: sev, Code: string(code), Message: se.Message,
			Detail: se.Detail, Hint: se.Hint, Position: int32(se.Position),
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errorResponse(pgerr.Canceled(err))
	}
	return &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: string(pgerr.InternalError), Message: err.Error()}
}

// sendError reports a statement error. A FATAL *pgerr.Error is sent as is; the
// caller decides whether the connection ends.
func (t *transport) sendError(err error) {
	t.send(errorResponse(err))
}

// sendFatal sends a FATAL error and flushes it: the connection is closing.
func (t *transport) sendFatal(code pgerr.Code, msg string) {
	t.send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: string(code), Message: msg})
	t.flush()
}

// sendFatalErr sends err as FATAL and flushes it: the connection is closing.
func (t *transport) sendFatalErr(err error) {
	e := errorResponse(err)
	e.Severity, e.SeverityUnlocalized = "FATAL", "FATAL"
	t.send(e)
	t.flush()
}

// protocolError is an ERROR for a malformed but recoverable request.
func protocolError(format string, args ...any) error {
	return pgerr.Errorf(pgerr.ProtocolViolation, format, args...)
}

// isFatal reports errors after which the session cannot go on.
func isFatal(err error) bool {
	var se *pgerr.Error
	return errors.As(err, &se) && (se.Severity == "FATAL" || se.Severity == "PANIC")
}
