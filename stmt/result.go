// Package stmt holds what the session and its clients (wire, the shell)
// exchange: what a client said at connect, a prepared statement and its
// parameters (session.go), and what executing a statement gives back:
// the result columns, rows, command tag, notices and COPY data. It sits
// below the session and the packages that plan each statement family, so
// that they and the wire protocol share one vocabulary without importing
// one another.
package stmt

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Column describes one result column (RowDescription).
type Column struct {
	Name string
	Type sql.Type
	// TableOID and AttNum identify the source column when the result column is a
	// plain table column; both 0 otherwise.
	TableOID uint32
	AttNum   int16
}

// Notice is a NoticeResponse to send before the statement completes.
type Notice struct {
	Severity string     // NOTICE, WARNING, INFO
	Code     pgerr.Code // SQLSTATE, e.g. pgerr.SuccessfulCompletion
	Message  string
}

// Rows streams a result as Arrow record batches whose columns follow
// Result.Columns in order and use each column's sql.Type.ArrowType().
type Rows interface {
	// Next returns the next batch, or io.EOF when there are none left. The batch
	// is valid until the next call to Next or Close; the caller must not Release it.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Tag is the command tag ("SELECT 3"); valid once Next returned io.EOF.
	Tag() string
	Close() error
}

// CopyIn asks the client for COPY data (CopyInResponse). The wire layer feeds
// the client's CopyData bytes to Load as one stream; CopyDone ends it with EOF,
// CopyFail cancels ctx. Load returns the number of rows loaded.
type CopyIn struct {
	Columns int  // number of columns, for CopyInResponse
	Binary  bool // binary COPY format (not supported yet: always false)
	Load    func(ctx context.Context, r io.Reader) (int64, error)
}

// Result is the outcome of executing one statement.
type Result struct {
	// Columns is nil for statements that return no row description (DDL, DML
	// without RETURNING). Rows is non-nil exactly when Columns is non-nil.
	Columns []Column
	Rows    Rows
	// Tag is the command tag when Rows is nil ("CREATE TABLE", "DELETE 3").
	Tag     string
	Notices []Notice
	// CopyIn is set for COPY ... FROM STDIN; Tag is then filled by the wire layer
	// as "COPY n" from Load's count.
	CopyIn *CopyIn
	// CopyOut is true for COPY ... TO STDOUT: Rows are sent as CopyData in
	// PostgreSQL text COPY format (tab-separated, \N for NULL) and the tag is
	// "COPY n".
	CopyOut bool
	// CopyCSV selects CSV instead of text format for CopyOut.
	CopyCSV bool
	// CopyFormat is CopyOut's layout with the statement's options; nil means
	// the defaults of the format CopyCSV selects.
	CopyFormat *CopyOutFormat
	// ParameterChanges are sent as ParameterStatus messages before CommandComplete.
	ParameterChanges []ParameterChange
}

// CommandTag returns the command tag, draining nothing: for results with Rows
// it must be called after Rows.Next returned io.EOF.
func (r *Result) CommandTag() string {
	if r.Rows != nil {
		return r.Rows.Tag()
	}
	return r.Tag
}

// ParameterChange reports a setting whose new value the client must be told
// (ParameterStatus after SET application_name, SET TimeZone, ...).
type ParameterChange struct {
	Name, Value string
}

// CopyOutFormat is the layout of COPY ... TO STDOUT data: PostgreSQL's text
// or CSV format with the statement's options.
type CopyOutFormat struct {
	CSV       bool
	Header    bool   // a first line with the column names
	Delimiter byte   // between fields
	Null      string // a NULL field's text
	Quote     byte   // CSV only
	Escape    byte   // CSV only: precedes Quote (or itself) inside quotes
}

// DefaultCopyOutFormat is the layout of COPY TO STDOUT without options.
func DefaultCopyOutFormat(csv bool) CopyOutFormat {
	if csv {
		return CopyOutFormat{CSV: true, Delimiter: ',', Quote: '"', Escape: '"'}
	}
	return CopyOutFormat{Delimiter: '\t', Null: `\N`}
}

// CopyLayout is the layout CopyOut data is written in.
func (r *Result) CopyLayout() CopyOutFormat {
	if r.CopyFormat != nil {
		return *r.CopyFormat
	}
	return DefaultCopyOutFormat(r.CopyCSV)
}

// TagOnly is a statement's result with no rows: its command tag alone.
func TagOnly(tag string) *Result { return &Result{Tag: tag} }

// NewNotice is a NOTICE with SQLSTATE 00000.
func NewNotice(msg string) Notice {
	return Notice{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: msg}
}
