package stmt

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/internal/progress"
)

// This file is the contract the clients' side (wire, repl) programs
// against, beside the results in result.go: what a client said at connect,
// a prepared statement, its parameters, the transaction status and
// progress reports. The session implements it.

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
	Columns []Column
	// Interactive statements (COPY ... FROM STDIN) talk with the client as
	// they run, so the wire layer must run them when they arrive.
	Interactive bool
	// Plan is the session's own form of the statement, opaque to clients.
	Plan any
	// Notices are the parser's (identifiers it truncated), which
	// PostgreSQL sends as it parses: before the statement's results.
	Notices []Notice
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

// ProgressReport is a running statement's work so far: the shell's
// progress line, and NOTICEs over the wire.
type ProgressReport struct {
	Elapsed time.Duration
	progress.Counts
	// Done is the last report of a statement that had reports: it ended.
	Done bool
}

// String is the report as one line: files, rows, bytes read (of the
// planned total) and written, the read rate and the time so far.
func (r ProgressReport) String() string {
	var b strings.Builder
	if r.FilesPlanned > 0 {
		fmt.Fprintf(&b, "%d/%d files, ", r.FilesDone, r.FilesPlanned)
	}
	fmt.Fprintf(&b, "%s rows, %s", groupDigits(r.Rows), sizeText(r.BytesRead))
	if r.BytesPlanned > 0 {
		fmt.Fprintf(&b, " of %s", sizeText(r.BytesPlanned))
	}
	fmt.Fprintf(&b, " read, %s written", sizeText(r.BytesWritten))
	if secs := r.Elapsed.Seconds(); secs > 0 {
		fmt.Fprintf(&b, ", %s/s", sizeText(int64(float64(r.BytesRead+r.BytesWritten)/secs)))
	}
	fmt.Fprintf(&b, ", %.1f s", r.Elapsed.Seconds())
	return b.String()
}

// Fraction is how far the statement is, 0 to 1, from the bytes of the
// planned reads read or found not needed (else the files done); -1 when
// nothing was planned.
func (r ProgressReport) Fraction() float64 {
	switch {
	case r.Done:
		return 1
	case r.BytesPlanned > 0:
		return min(float64(r.BytesRead+r.BytesSkipped)/float64(r.BytesPlanned), 0.99)
	case r.FilesPlanned > 0:
		return min(float64(r.FilesDone)/float64(r.FilesPlanned), 0.99)
	}
	return -1
}

// sizeText is n bytes as B, kB, MB, GB or TB with one decimal above bytes.
func sizeText(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n)/1024, "kB"
	for _, u := range []string{"MB", "GB", "TB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
}

// groupDigits writes n with thousands separators.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
