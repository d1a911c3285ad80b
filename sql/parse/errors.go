package parse

import (
	"fmt"

	"github.com/magmalake/magmalake/pgerr"
)

// SyntaxErrorAt is PostgreSQL's "syntax error at or near" for token t, or
// "at end of input" for a TokEOF token.
func SyntaxErrorAt(query string, t Token) *pgerr.Error {
	e := &pgerr.Error{Code: pgerr.SyntaxError, Position: CharPos(query, t.Pos)}
	if t.Kind == TokEOF {
		e.Message = "syntax error at end of input"
	} else {
		e.Message = fmt.Sprintf("syntax error at or near \"%s\"", query[t.Pos:t.End])
	}
	return e
}

// UnsupportedAt is a 0A000 error positioned at t.
func UnsupportedAt(query string, t Token, format string, args ...any) *pgerr.Error {
	e := pgerr.Errorf(pgerr.FeatureNotSupported, format, args...)
	if t.Kind != TokEOF || t.Pos > 0 {
		e.Position = CharPos(query, t.Pos)
	}
	return e
}
