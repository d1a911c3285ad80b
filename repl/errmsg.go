package repl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Verbosity is psql's VERBOSITY variable: how much of an error to print.
type Verbosity int

const (
	// VerbosityDefault prints severity, message, the LINE/caret display,
	// DETAIL and HINT.
	VerbosityDefault Verbosity = iota
	// VerbosityVerbose also prints the SQLSTATE after the severity
	// ("ERROR:  42P01: relation ... does not exist").
	VerbosityVerbose
	// VerbosityTerse prints only the message, with the position as
	// " at character N".
	VerbosityTerse
)

// asSQLError gives every error the shape the server would send: cancellation
// is 57014, anything that is not a *pgerr.Error an internal error.
func asSQLError(err error) *pgerr.Error {
	var se *pgerr.Error
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(err, context.Canceled) {
		return pgerr.Errorf(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	return &pgerr.Error{Code: pgerr.InternalError, Message: err.Error(), Err: err}
}

// formatError renders e as libpq's PQresultErrorMessage does for query, the
// statement text the position counts in.
func formatError(e *pgerr.Error, query string, v Verbosity) string {
	// An undefined name's position, as the wire layer adds it for clients.
	if located, ok := sql.Located(query, e).(*pgerr.Error); ok {
		e = located
	}
	return formatReport(e, query, v, true)
}

// formatReport renders an error or, without isError, a notice: libpq
// builds both alike, but psql's SHOW_CONTEXT (errors) shows CONTEXT for
// errors only.
func formatReport(e *pgerr.Error, query string, v Verbosity, isError bool) string {
	var b strings.Builder
	server := serverError(e)
	sev := e.Severity
	if sev == "" {
		sev = "ERROR"
	}
	b.WriteString(sev)
	b.WriteString(":  ")
	if v == VerbosityVerbose && e.Code != "" {
		b.WriteString(string(e.Code))
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Position > 0 && v == VerbosityTerse {
		fmt.Fprintf(&b, " at character %d", e.Position)
	} else if e.Position == 0 && v == VerbosityTerse {
		writeInternalPositionTerse(&b, server)
	}
	b.WriteByte('\n')
	if v == VerbosityTerse {
		return b.String()
	}
	if e.Position > 0 {
		b.WriteString(errorPosition(query, e.Position))
	} else {
		writeInternalPosition(&b, server)
	}
	if e.Detail != "" {
		b.WriteString("DETAIL:  " + e.Detail + "\n")
	}
	if e.Hint != "" {
		b.WriteString("HINT:  " + e.Hint + "\n")
	}
	writeServerFields(&b, server, v, isError)
	return b.String()
}

const (
	displaySize = 60 // screen width limit of the LINE display
	minRightCut = 10 // try to keep the cut this far right of the caret
)

// errorPosition is libpq's reportErrorPosition: the line of query holding
// character pos (1-based), cut to about 60 columns around it, and a caret
// under the character.
func errorPosition(query string, pos int) string {
	loc := pos - 1
	// Per character: byte offset and screen column, up to the line end.
	var qidx, scr []int
	lineNo, ibeg, iend := 1, 0, -1
	q := []byte(query)
	off, col, cno := 0, 0, 0
	for ; off < len(q); cno++ {
		qidx, scr = append(qidx, off), append(scr, col)
		ch := q[off]
		if ch == '\t' {
			q[off] = ' '
		} else if ch == '\r' || ch == '\n' {
			if cno >= loc {
				iend = cno
				break
			}
			if ch == '\r' || cno == 0 || q[qidx[cno-1]] != '\r' {
				lineNo++
			}
			ibeg = cno + 1
		}
		r, size := utf8.DecodeRune(q[off:])
		w := runeWidth(r)
		if w <= 0 {
			w = 1
		}
		col += w
		off += size
	}
	if iend < 0 {
		iend = cno
		qidx, scr = append(qidx, off), append(scr, col)
	}
	if loc > cno {
		return ""
	}
	begTrunc, endTrunc := false, false
	if scr[iend]-scr[ibeg] > displaySize {
		if scr[ibeg]+displaySize >= scr[loc]+minRightCut {
			for scr[iend]-scr[ibeg] > displaySize {
				iend--
			}
			endTrunc = true
		} else {
			for scr[loc]+minRightCut < scr[iend] {
				iend--
				endTrunc = true
			}
			for scr[iend]-scr[ibeg] > displaySize {
				ibeg++
				begTrunc = true
			}
		}
	}
	prefix := fmt.Sprintf("LINE %d: ", lineNo)
	if begTrunc {
		prefix += "..."
	}
	var b strings.Builder
	b.WriteString(prefix)
	b.Write(q[qidx[ibeg]:qidx[iend]])
	if endTrunc {
		b.WriteString("...")
	}
	b.WriteByte('\n')
	pad(&b, stringWidth(prefix)+scr[loc]-scr[ibeg])
	b.WriteString("^\n")
	return b.String()
}
