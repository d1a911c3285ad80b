package repl

import (
	"fmt"
	"io"
	"strings"
)

// writeExpanded prints t as psql's \x output with border 1
// (print_aligned_vertical): one "-[ RECORD n ]" block per row, header and
// value side by side. Values are left-aligned whatever their type.
func writeExpanded(w io.Writer, t *table) error {
	var b strings.Builder
	if len(t.rows) == 0 {
		if t.footer {
			b.WriteString(rowsFooter(0))
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		_, err := io.WriteString(w, b.String())
		return err
	}
	heads := make([]cellText, len(t.headers))
	hwidth, dwidth, dmulti := 0, 0, false
	for i, h := range t.headers {
		heads[i] = newCellText(h)
		hwidth = max(hwidth, heads[i].width())
	}
	cells := make([][]cellText, len(t.rows))
	for r, row := range t.rows {
		cells[r] = make([]cellText, len(row))
		for c, v := range row {
			cells[r][c] = newCellText(v)
			dwidth = max(dwidth, cells[r][c].width())
			dmulti = dmulti || len(cells[r][c].lines) > 1
		}
	}
	if t.title != "" {
		b.WriteString(t.title)
		b.WriteByte('\n')
	}
	for r, row := range cells {
		writeRecordLine(&b, r+1, hwidth, dwidth)
		for c, cell := range row {
			writeExpandedField(&b, heads[c], cell, hwidth, dwidth, dmulti)
		}
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRecordLine is print_aligned_vertical_line for border 1: the record
// label, then dashes (and a '+' under the separator) only where the label
// is shorter than the columns.
func writeRecordLine(b *strings.Builder, record, hwidth, dwidth int) {
	label := fmt.Sprintf("[ RECORD %d ]", record)
	b.WriteByte('-')
	b.WriteString(label)
	reclen := len(label) + 1
	for i := reclen; i < hwidth; i++ {
		b.WriteByte('-')
	}
	reclen -= hwidth
	for _, mark := range []byte{'-', '+', '-'} {
		if reclen <= 0 {
			b.WriteByte(mark)
		}
		reclen--
	}
	for i := max(reclen, 0); i < dwidth; i++ {
		b.WriteByte('-')
	}
	b.WriteByte('\n')
}

// writeExpandedField prints one "header | value" pair, walking the header's
// and the value's lines in parallel.
func writeExpandedField(b *strings.Builder, head, data cellText, hwidth, dwidth int, dmulti bool) {
	hline, dline := 0, 0
	hdone, ddone := false, false
	for !hdone || !ddone {
		if !hdone {
			b.WriteString(head.lines[hline])
			pad(b, hwidth-head.widths[hline])
			if hline+1 < len(head.lines) {
				b.WriteByte('+')
				hline++
			} else {
				b.WriteByte(' ')
				hdone = true
			}
		} else {
			pad(b, hwidth+1)
		}
		b.WriteByte('|')
		if ddone {
			b.WriteByte('\n')
			continue
		}
		b.WriteByte(' ')
		b.WriteString(data.lines[dline])
		if dline+1 < len(data.lines) {
			if dmulti {
				pad(b, dwidth-data.widths[dline])
				b.WriteByte('+')
			}
			dline++
		} else {
			ddone = true
		}
		b.WriteByte('\n')
	}
}
