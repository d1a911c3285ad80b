package sql

import (
	"fmt"

	"github.com/magmalake/magmalake/pgerr"
)

// syntaxErrorAt is PostgreSQL's "syntax error at or near" for token t, or
// "at end of input" for a tkEOF token.
func syntaxErrorAt(query string, t token) *pgerr.Error {
	e := &pgerr.Error{Code: pgerr.SyntaxError, Position: pgCharPos(query, t.pos)}
	if t.kind == tkEOF {
		e.Message = "syntax error at end of input"
	} else {
		e.Message = fmt.Sprintf("syntax error at or near \"%s\"", query[t.pos:t.end])
	}
	return e
}

// unsupportedAt is a 0A000 error positioned at t.
func unsupportedAt(query string, t token, format string, args ...any) *pgerr.Error {
	e := pgerr.Errorf(pgerr.FeatureNotSupported, format, args...)
	if t.kind != tkEOF || t.pos > 0 {
		e.Position = pgCharPos(query, t.pos)
	}
	return e
}
