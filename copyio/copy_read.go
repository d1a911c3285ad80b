package copyio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// copyFormat is COPY's options, checked as PostgreSQL checks them.
type copyFormat struct {
	csv    bool
	header bool
	delim  byte
	null   string
	quote  byte // CSV only
	escape byte // CSV only
}

func newCopyFormat(st *sql.Copy) (copyFormat, error) {
	f := copyFormat{csv: st.Format == "csv", header: st.Header, null: st.Null}
	one := func(what, v string) (byte, error) {
		if len(v) != 1 {
			return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY %s must be a single one-byte character", what)
		}
		return v[0], nil
	}
	var err error
	if f.delim, err = one("delimiter", st.Delimiter); err != nil {
		return f, err
	}
	if f.delim == '\n' || f.delim == '\r' {
		return f, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	}
	if strings.ContainsAny(f.null, "\r\n") {
		return f, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
	}
	if !f.csv {
		if st.Quote != "" {
			return f, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY quote available only in CSV mode")
		}
		if st.Escape != "" {
			return f, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY escape available only in CSV mode")
		}
		if strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, f.delim) >= 0 {
			return f, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter cannot be %q", string(f.delim))
		}
		return f, nil
	}
	if f.quote, err = one("quote", st.Quote); err != nil {
		return f, err
	}
	if f.escape, err = one("escape", st.Escape); err != nil {
		return f, err
	}
	if f.quote == f.delim {
		return f, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter and quote must be different")
	}
	if strings.IndexByte(f.null, f.delim) >= 0 {
		return f, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter must not appear in the NULL specification")
	}
	return f, nil
}

// output is the layout COPY TO STDOUT writes with these options.
func (f copyFormat) output() *stmt.CopyOutFormat {
	return &stmt.CopyOutFormat{CSV: f.csv, Header: f.header, Delimiter: f.delim, Null: f.null, Quote: f.quote, Escape: f.escape}
}

// copyField is one parsed field of a record.
type copyField struct {
	val  string
	null bool
}

// copyReader splits COPY input into records. line is the number of the
// record last returned (the header counts), for error messages.
type copyReader struct {
	f      copyFormat
	in     *bufio.Reader
	line   int64
	buf    []byte
	fields []copyField
	done   bool
}

func newCopyReader(r io.Reader, f copyFormat) *copyReader {
	return &copyReader{f: f, in: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next record's fields, valid until the next call, or io.EOF.
func (r *copyReader) next() ([]copyField, error) {
	for {
		line, err := r.readRecord()
		if err != nil {
			return nil, err
		}
		r.line++
		if r.line == 1 && r.f.header {
			continue
		}
		if r.f.csv {
			return r.splitCSV(line)
		}
		return r.splitText(line)
	}
}

// readRecord reads one record without its line ending. A text record ends at
// an unescaped newline, a CSV record at a newline outside quotes; a line
// holding only \. ends the data, as in PostgreSQL.
func (r *copyReader) readRecord() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	r.buf = r.buf[:0]
	for {
		chunk, err := r.in.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if len(r.buf) == 0 {
				return nil, io.EOF
			}
			r.done = true
			break
		}
		if err != nil {
			return nil, err
		}
		if r.f.csv && r.inQuotes(r.buf) || !r.f.csv && escapedNewline(r.buf) {
			continue
		}
		break
	}
	line := bytes.TrimSuffix(r.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if string(line) == `\.` {
		r.done = true
		return nil, io.EOF
	}
	return line, nil
}

// escapedNewline reports whether the newline ending b is backslash-escaped
// (part of the value, as PostgreSQL reads it).
func escapedNewline(b []byte) bool {
	n := 0
	for i := len(b) - 2; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// inQuotes reports whether b ends inside a CSV quoted field.
func (r *copyReader) inQuotes(b []byte) bool {
	in, esc := false, false
	// An escape equal to the quote is a plain toggle: "" flips twice.
	escape := r.f.escape
	if escape == r.f.quote {
		escape = 0
	}
	for _, c := range b {
		if in && c == escape {
			esc = !esc
		}
		if c == r.f.quote && !esc {
			in = !in
		}
		if c != escape {
			esc = false
		}
	}
	return in
}

// splitText splits a text-format record: the NULL string is matched before
// backslash escapes are processed, as PostgreSQL does.
func (r *copyReader) splitText(line []byte) ([]copyField, error) {
	r.fields = r.fields[:0]
	start := 0
	for {
		i := start
		for i < len(line) && line[i] != r.f.delim {
			if line[i] == '\\' && i+1 < len(line) {
				i++
			}
			i++
		}
		raw := line[start:min(i, len(line))]
		f := copyField{null: string(raw) == r.f.null}
		if !f.null {
			v := unescapeCopyText(raw)
			if !utf8.ValidString(v) {
				return nil, pgerr.Errorf(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
			}
			f.val = v
		}
		r.fields = append(r.fields, f)
		if i >= len(line) {
			return r.fields, nil
		}
		start = i + 1
	}
}

// unescapeCopyText decodes COPY text escapes: \b \f \n \r \t \v, octal
// \ooo, hex \xhh, and a backslash before any other byte for that byte.
func unescapeCopyText(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 == len(raw) {
			out = append(out, c)
			continue
		}
		i++
		c = raw[i]
		switch {
		case c >= '0' && c <= '7':
			v := c - '0'
			for k := 0; k < 2 && i+1 < len(raw) && raw[i+1] >= '0' && raw[i+1] <= '7'; k++ {
				i++
				v = v*8 + raw[i] - '0'
			}
			out = append(out, v)
		case c == 'x' && i+1 < len(raw) && isHexDigit(raw[i+1]):
			i++
			v := hexValue(raw[i])
			if i+1 < len(raw) && isHexDigit(raw[i+1]) {
				i++
				v = v*16 + hexValue(raw[i])
			}
			out = append(out, v)
		default:
			out = append(out, textEscape(c))
		}
	}
	return string(out)
}

func textEscape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	}
	return c
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// splitCSV splits a CSV record: quoted and unquoted parts may alternate in a
// field; only an unquoted field equal to the NULL string is NULL.
func (r *copyReader) splitCSV(line []byte) ([]copyField, error) {
	r.fields = r.fields[:0]
	var out []byte
	i := 0
	for {
		start, quoted := i, false
		out = out[:0]
	field:
		for i < len(line) {
			c := line[i]
			switch {
			case c == r.f.delim:
				break field
			case c == r.f.quote:
				quoted = true
				var err error
				if out, i, err = r.quotedCSV(line, i+1, out); err != nil {
					return nil, err
				}
			default:
				out = append(out, c)
				i++
			}
		}
		f := copyField{null: !quoted && string(line[start:i]) == r.f.null}
		if !f.null {
			if !utf8.Valid(out) {
				return nil, pgerr.Errorf(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
			}
			f.val = string(out)
		}
		r.fields = append(r.fields, f)
		if i >= len(line) {
			return r.fields, nil
		}
		i++
	}
}

// quotedCSV reads a quoted part starting after its opening quote and returns
// the position after its closing quote.
func (r *copyReader) quotedCSV(line []byte, i int, out []byte) ([]byte, int, error) {
	for i < len(line) {
		c := line[i]
		i++
		// The escape test comes first: quote and escape are often the same byte.
		if c == r.f.escape && i < len(line) && (line[i] == r.f.escape || line[i] == r.f.quote) {
			out = append(out, line[i])
			i++
			continue
		}
		if c == r.f.quote {
			return out, i, nil
		}
		out = append(out, c)
	}
	return nil, 0, pgerr.Errorf(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
}
