package exec

import (
	"context"
	"errors"

	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/sql"
)

// canceled maps a context error to the SQLSTATE clients expect.
func canceled(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &sql.Error{Code: sql.CodeQueryCanceled, Message: "canceling statement due to statement timeout", Err: err}
	}
	return &sql.Error{Code: sql.CodeQueryCanceled, Message: "canceling statement due to user request", Err: err}
}

// errorCodes maps the lower layers' sentinels to SQLSTATEs; the first match wins.
var errorCodes = []struct {
	err  error
	code string
}{
	{iceberg.ErrNoSuchTable, sql.CodeUndefinedTable},
	{iceberg.ErrNoSuchNamespace, sql.CodeInvalidSchemaName},
	{iceberg.ErrTableExists, sql.CodeDuplicateTable},
	{iceberg.ErrNamespaceExists, sql.CodeDuplicateSchema},
	{iceberg.ErrNamespaceNotEmpty, sql.CodeSchemaNotEmpty},
	{iceberg.ErrCorruptMetadata, sql.CodeDataCorrupted},
	{iceberg.ErrInvalidTransform, sql.CodeDatatypeMismatch},
	{iceberg.ErrUnsupportedSpec, sql.CodeFeatureNotSupported},
	{iceberg.ErrFormatDowngrade, sql.CodeFeatureNotSupported},
	{iceberg.ErrInvalidProperty, sql.CodeInvalidParameterValue},
	{iceberg.ErrNoSnapshotAsOf, sql.CodeInvalidParameterValue},
	{iceberg.ErrNoSuchSnapshot, sql.CodeInvalidParameterValue},
	{iceberg.ErrNoSuchMetadataTable, sql.CodeUndefinedTable},
}

// toSQLError is the one place an error from any layer gets its SQLSTATE.
func toSQLError(err error) error {
	if err == nil {
		return nil
	}
	var se *sql.Error
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return canceled(err)
	}
	if iceberg.IsConflict(err) {
		return &sql.Error{Code: sql.CodeSerializationFailure, Message: "could not serialize access due to concurrent update: " + err.Error(), Err: err}
	}
	for _, m := range errorCodes {
		if errors.Is(err, m.err) {
			return &sql.Error{Code: m.code, Message: err.Error(), Err: err}
		}
	}
	return &sql.Error{Code: sql.CodeInternal, Message: err.Error(), Err: err}
}
