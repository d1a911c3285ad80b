package stmt

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/sql"
)

// CopyEncoder formats COPY ... TO rows as PostgreSQL's CopyOneRowTo does:
// one line per row, ended by '\n', in the statement's text or CSV layout.
// The wire layer frames each line as CopyData; the shell writes them to a
// file or its output.
type CopyEncoder struct {
	f       CopyOutFormat
	cols    []Column
	single  bool // one column: a lone \. must be quoted in CSV
	scratch []byte
}

// NewCopyEncoder encodes res's rows in its layout.
func NewCopyEncoder(res *Result) *CopyEncoder {
	return &CopyEncoder{f: res.CopyLayout(), cols: res.Columns, single: len(res.Columns) == 1}
}

// Header reports whether the layout starts with a line of column names.
func (e *CopyEncoder) Header() bool { return e.f.Header }

// AppendHeader appends the line naming the columns.
func (e *CopyEncoder) AppendHeader(buf []byte) []byte {
	for j, col := range e.cols {
		if j > 0 {
			buf = append(buf, e.f.Delimiter)
		}
		buf = e.appendField(buf, []byte(col.Name))
	}
	return append(buf, '\n')
}

// AppendRow appends the line of row of b.
func (e *CopyEncoder) AppendRow(buf []byte, b arrow.RecordBatch, row int) []byte {
	for j, col := range e.cols {
		if j > 0 {
			buf = append(buf, e.f.Delimiter)
		}
		arr := b.Column(j)
		if arr.IsNull(row) {
			buf = append(buf, e.f.Null...)
			continue
		}
		e.scratch = sql.AppendText(e.scratch[:0], col.Type, arr, row)
		buf = e.appendField(buf, e.scratch)
	}
	return append(buf, '\n')
}

func (e *CopyEncoder) appendField(buf, v []byte) []byte {
	if e.f.CSV {
		return appendCSVField(buf, v, e.f, e.single)
	}
	return appendCopyText(buf, v, e.f.Delimiter)
}

// appendCopyText escapes a value for COPY's text format; the delimiter is
// backslash-escaped wherever it occurs.
func appendCopyText(buf, v []byte, delim byte) []byte {
	for _, ch := range v {
		switch ch {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\v':
			buf = append(buf, '\\', 'v')
		case delim:
			buf = append(buf, '\\', ch)
		default:
			buf = append(buf, ch)
		}
	}
	return buf
}

// appendCSVField quotes a value when CSV requires it: it holds the
// delimiter, the quote or a line break (not the escape: PostgreSQL leaves
// that bare), it equals the NULL string (so that it reads back as a value),
// or it is a lone \. in a one-column COPY.
func appendCSVField(buf, v []byte, f CopyOutFormat, single bool) []byte {
	quote := string(v) == f.Null || (single && string(v) == `\.`)
	for _, ch := range v {
		if ch == f.Delimiter || ch == f.Quote || ch == '\n' || ch == '\r' {
			quote = true
			break
		}
	}
	if !quote {
		return append(buf, v...)
	}
	buf = append(buf, f.Quote)
	for _, ch := range v {
		if ch == f.Quote || ch == f.Escape {
			buf = append(buf, f.Escape)
		}
		buf = append(buf, ch)
	}
	return append(buf, f.Quote)
}
