package sql

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// The server and client encoding is UTF8: text from a client (a query, a
// parameter, COPY data, a line typed in the shell) is checked at the
// boundary, as PostgreSQL checks it.

// CheckUTF8 checks text from a client: UTF-8 without NUL bytes (which no
// text value can hold), as PostgreSQL's pg_verify_mbstr does; 22021 else.
func CheckUTF8(s string) error {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return nil
	}
	return InvalidEncoding([]byte(s)) // rare: the copy does not matter
}

// CheckUTF8Bytes is CheckUTF8 for a byte slice.
func CheckUTF8Bytes(b []byte) error {
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		return nil
	}
	return InvalidEncoding(b)
}

// InvalidEncoding is PostgreSQL's error for the first invalid sequence in b:
// the bytes of the character it starts, as far as b holds them.
func InvalidEncoding(b []byte) error {
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
	return pgerr.Errorf(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", sb.String())
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
