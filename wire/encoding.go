package wire

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/sql"
)

// The server and client encoding is UTF8, so text from the client must be
// UTF-8 without NUL bytes (which no text value can hold), as PostgreSQL's
// pg_verify_mbstr checks at the protocol boundary.

// checkUTF8 checks text from the client.
func checkUTF8(s string) error {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return nil
	}
	return invalidEncoding([]byte(s)) // rare: the copy does not matter
}

// checkUTF8Bytes is checkUTF8 for a byte slice.
func checkUTF8Bytes(b []byte) error {
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		return nil
	}
	return invalidEncoding(b)
}

// invalidEncoding is PostgreSQL's error for the first invalid sequence in b:
// the bytes of the character it starts, as far as b holds them.
func invalidEncoding(b []byte) error {
	i := firstInvalid(b)
	if i < 0 {
		i = 0
	}
	bad := b[i:]
	bad = bad[:min(len(bad), pgUTF8Len(bad[0]), 8)]
	var sb strings.Builder
	for k, ch := range bad {
		if k > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "0x%02x", ch)
	}
	return sql.Errorf(sql.CodeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", sb.String())
}

// firstInvalid is the offset of the first NUL or invalid UTF-8 sequence in
// b, -1 when there is none.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if b[i] == 0 {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// pgUTF8Len is the length PostgreSQL's pg_utf_mblen reads from a lead byte.
func pgUTF8Len(lead byte) int {
	switch {
	case lead&0xe0 == 0xc0:
		return 2
	case lead&0xf0 == 0xe0:
		return 3
	case lead&0xf8 == 0xf0:
		return 4
	}
	return 1
}

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
			return invalidEncoding(joined)
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
		return invalidEncoding(u.carry)
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
