package wire

import (
	"unicode/utf8"

	"github.com/magmalake/magmalake/sql"
)

// The server and client encoding is UTF8, so text from the client must be
// UTF-8 without NUL bytes (which no text value can hold), as PostgreSQL's
// pg_verify_mbstr checks at the protocol boundary.

// checkUTF8 and checkUTF8Bytes check text from the client (sql's checks,
// shared with the session layer, which the shell goes through).
func checkUTF8(s string) error { return sql.CheckUTF8(s) }

func checkUTF8Bytes(b []byte) error { return sql.CheckUTF8Bytes(b) }

// utf8Stream checks a byte stream that arrives in pieces (COPY data): a
// character split between two pieces is held back and checked whole.
type utf8Stream struct {
	carry []byte // the start of an incomplete character, at most 3 bytes
}

// check checks the next piece.
func (u *utf8Stream) check(p []byte) error {
	if len(u.carry) > 0 {
		joined := append(u.carry, p[:min(len(p), utf8.UTFMax-len(u.carry))]...)
		if !utf8.FullRune(joined) {
			u.carry = joined // still incomplete: p was that short
			return nil
		}
		r, n := utf8.DecodeRune(joined)
		if r == utf8.RuneError && n == 1 {
			return sql.InvalidEncoding(joined)
		}
		p = p[n-len(u.carry):]
		u.carry = u.carry[:0]
	}
	body, tail := splitIncomplete(p)
	if err := checkUTF8Bytes(body); err != nil {
		return err
	}
	u.carry = append(u.carry, tail...)
	return nil
}

// end reports a character the stream left incomplete.
func (u *utf8Stream) end() error {
	if len(u.carry) > 0 {
		return sql.InvalidEncoding(u.carry)
	}
	return nil
}

// splitIncomplete splits off the start of a character that p ends in the
// middle of.
func splitIncomplete(p []byte) (body, tail []byte) {
	for k := 1; k < utf8.UTFMax && k <= len(p); k++ {
		ch := p[len(p)-k]
		if ch < utf8.RuneSelf {
			break // ASCII: nothing is incomplete
		}
		if utf8.RuneStart(ch) {
			if !utf8.FullRune(p[len(p)-k:]) {
				return p[:len(p)-k], p[len(p)-k:]
			}
			break
		}
	}
	return p, nil
}
