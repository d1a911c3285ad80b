package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"syscall"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// errorCodes maps the lower layers' sentinels to SQLSTATEs; the first match wins.
var errorCodes = []struct {
	err  error
	code pgerr.Code
}{
	{lake.ErrNoSuchTable, pgerr.UndefinedTable},
	{lake.ErrNoSuchNamespace, pgerr.InvalidSchemaName},
	{lake.ErrTableExists, pgerr.DuplicateTable},
	{lake.ErrNamespaceExists, pgerr.DuplicateSchema},
	{lake.ErrNamespaceNotEmpty, pgerr.DependentObjectsStillExist},
	{lake.ErrCorruptMetadata, pgerr.DataCorrupted},
	{lake.ErrInvalidTransform, pgerr.DatatypeMismatch},
	{lake.ErrUnsupportedSpec, pgerr.FeatureNotSupported},
	{lake.ErrFormatDowngrade, pgerr.FeatureNotSupported},
	{lake.ErrInvalidProperty, pgerr.InvalidParameterValue},
	{lake.ErrNoSnapshotAsOf, pgerr.InvalidParameterValue},
	{lake.ErrNoSuchSnapshot, pgerr.InvalidParameterValue},
	{lake.ErrNotAncestor, pgerr.InvalidParameterValue},
	{lake.ErrInvalidName, pgerr.InvalidName},
}

// toSQLError is the one place an error from any layer gets its SQLSTATE.
func toSQLError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, lake.ErrLockTimeout) {
		return &pgerr.Error{Code: pgerr.LockNotAvailable, Message: "canceling statement due to lock timeout", Err: err}
	}
	var se *pgerr.Error
	if errors.As(err, &se) {
		return err
	}
	// A real cause first: parallel writers stop each other with their own
	// cancellation, so a full disk arrives joined with context.Canceled.
	// (A client's cancel is mapped by Execute from the statement's context.)
	if se := locationRefused(err); se != nil {
		return se
	}
	if se := diskFull(err); se != nil {
		return se
	}
	if se := fileGone(err); se != nil {
		return se
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return pgerr.Canceled(err)
	}
	if lake.IsConflict(err) {
		return &pgerr.Error{Code: pgerr.SerializationFailure, Message: "could not serialize access due to concurrent update: " + err.Error(), Err: err}
	}
	for _, m := range errorCodes {
		if errors.Is(err, m.err) {
			return &pgerr.Error{Code: m.code, Message: err.Error(), Err: err}
		}
	}
	return &pgerr.Error{Code: pgerr.InternalError, Message: err.Error(), Err: err}
}

// locationRefused is 42501 for a table property that would make the server
// write outside the warehouse; the message names the property, without the
// lower layers' context.
func locationRefused(err error) *pgerr.Error {
	var le *lake.LocationError
	if !errors.As(err, &le) {
		return nil
	}
	return &pgerr.Error{Code: pgerr.InsufficientPrivilege,
		Message: fmt.Sprintf("permission denied to set table property %q: %q is not under the warehouse location or a path the server allows", le.Property, le.Value),
		Hint:    "Leave the property unset so the table's files stay under its location, or have the server's operator allow the path (--allow-path).",
		Err:     err}
}

// diskFull is PostgreSQL's 53100 for a write that ran out of space or
// quota anywhere in a statement's write path, naming the file when the
// error carries it. What the statement wrote was removed by the layer that
// failed, so the client may retry once space is freed.
func diskFull(err error) *pgerr.Error {
	var reason string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		reason = "No space left on device"
	case errors.Is(err, syscall.EDQUOT):
		reason = "Disk quota exceeded"
	default:
		return nil
	}
	msg := "could not write file: " + reason
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != "" {
		msg = fmt.Sprintf("could not write file %q: %s", pe.Path, reason)
	}
	return &pgerr.Error{Code: pgerr.DiskFull, Message: msg, Err: err}
}

// fileGone is PostgreSQL's 72000 for a read that found a file of the
// table gone: the snapshot it reads was expired meanwhile, by another
// server's maintenance or by VACUUM (PURGE), which expires what this
// server's readers read too. Its path stays in the server's log.
func fileGone(err error) *pgerr.Error {
	if !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return &pgerr.Error{Code: pgerr.SnapshotTooOld, Message: "snapshot too old",
		Detail: "A file the statement reads was removed by maintenance (snapshot expiry or VACUUM (PURGE)) after the statement began.",
		Hint:   "Run the statement again: it reads the table's current snapshot.", Err: err}
}

// droppedConcurrently turns "the table does not exist" from a statement's
// commit into PostgreSQL's words for the table the statement named: it was
// resolved when the statement started, so another session dropped it since.
// The lower layers have already removed what the statement wrote.
func droppedConcurrently(ident table.Identifier, err error) error {
	if !errors.Is(err, lake.ErrNoSuchTable) && !errors.Is(err, lake.ErrNoSuchNamespace) {
		return err
	}
	se := sql.UndefinedTable("", ident[len(ident)-1])
	se.Detail = "The table was dropped while the statement ran; the statement changed nothing."
	se.Err = err
	return se
}

// recoverInternal turns a panic into an XX000 error in *err. The panic value
// goes to Detail and the stack to the wrapped cause (for the server's log):
// the client sees SQL words, and every other session goes on.
func recoverInternal(err *error) {
	p := recover()
	if p == nil {
		return
	}
	*err = &pgerr.Error{Code: pgerr.InternalError, Message: "internal error",
		Detail: fmt.Sprint(p), Err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
}
