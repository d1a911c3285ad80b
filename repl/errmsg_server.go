package repl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
)

// serverError is the ErrorResponse (or NoticeResponse) an error came from
// when a session to a server reported it (repl/remote keeps it as the
// pgerr.Error's cause): it holds the fields libpq prints that pgerr.Error has
// no place for. nil for the embedded engine's errors.
func serverError(e *pgerr.Error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(e.Err, &pe) {
		return pe
	}
	return nil
}

// writeInternalPosition is libpq's caret under the internal query (a
// PL/pgSQL statement, a function body) when the error has no position in
// the statement itself.
func writeInternalPosition(b *strings.Builder, pe *pgconn.PgError) {
	if pe != nil && pe.InternalPosition > 0 && pe.InternalQuery != "" {
		b.WriteString(errorPosition(pe.InternalQuery, int(pe.InternalPosition)))
	}
}

// writeInternalPositionTerse is the terse form: " at character N".
func writeInternalPositionTerse(b *strings.Builder, pe *pgconn.PgError) {
	if pe != nil && pe.InternalPosition > 0 {
		fmt.Fprintf(b, " at character %d", pe.InternalPosition)
	}
}

// writeServerFields adds what libpq prints after HINT: QUERY, CONTEXT
// (for errors: psql's SHOW_CONTEXT default), and with VERBOSITY verbose
// the object names and LOCATION.
func writeServerFields(b *strings.Builder, pe *pgconn.PgError, v Verbosity, isError bool) {
	if pe == nil {
		return
	}
	line := func(label, value string) {
		if value != "" {
			b.WriteString(label + ":  " + value + "\n")
		}
	}
	line("QUERY", pe.InternalQuery)
	if isError {
		line("CONTEXT", pe.Where)
	}
	if v != VerbosityVerbose {
		return
	}
	line("SCHEMA NAME", pe.SchemaName)
	line("TABLE NAME", pe.TableName)
	line("COLUMN NAME", pe.ColumnName)
	line("DATATYPE NAME", pe.DataTypeName)
	line("CONSTRAINT NAME", pe.ConstraintName)
	if loc := location(pe); loc != "" {
		line("LOCATION", loc)
	}
}

// location is libpq's "routine, file:line".
func location(pe *pgconn.PgError) string {
	var s string
	if pe.Routine != "" {
		s = pe.Routine + ", "
	}
	if pe.File != "" && pe.Line > 0 {
		s += fmt.Sprintf("%s:%d", pe.File, pe.Line)
	}
	return s
}

// PrintNotice prints a server's notice (NOTICE, WARNING, INFO, ...) as psql
// does, the moment it arrives: a remote session calls it while the
// statement still runs.
func (sh *Shell) PrintNotice(n *pgerr.Error) {
	fmt.Fprint(sh.pr.errOut, formatReport(n, "", sh.pr.verbosity, false))
}
