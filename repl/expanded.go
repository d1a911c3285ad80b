package repl

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// writeExpanded prints t as psql's \x output with border 1.
func writeExpanded(w io.Writer, t *table) error {
	_, err := io.WriteString(w, expandedText(t, defaultLayout))
	return err
}

// expandedText is psql's print_aligned_vertical with the ascii line style:
// one "-[ RECORD n ]" block per row, header and value side by side. Values
// are left-aligned whatever their type.
func expandedText(t *table, lo layout) string {
	border := min(lo.border, 2)
	var b strings.Builder
	if len(t.rows) == 0 {
		if t.footer && !lo.tuplesOnly {
			b.WriteString(rowsFooter(0))
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		return b.String()
	}
	v := measureVertical(t)
	if !lo.tuplesOnly {
		v.fitRecordLabel(len(t.rows), border)
	}
	if t.title != "" && !lo.tuplesOnly {
		b.WriteString(t.title)
		b.WriteByte('\n')
	}
	for r, row := range v.cells {
		switch {
		case !lo.tuplesOnly:
			writeRecordLine(&b, r+1, v.hwidth, v.dwidth, border)
		case r > 0 || border == 2:
			writeRecordLine(&b, 0, v.hwidth, v.dwidth, border)
		}
		for c, cell := range row {
			v.writeField(&b, v.heads[c], cell, border)
		}
	}
	if border == 2 {
		writeRecordLine(&b, 0, v.hwidth, v.dwidth, border)
	}
	b.WriteByte('\n')
	return b.String()
}

// vertical is a table measured for the expanded format: the widest header
// and value, and whether any of them has several lines.
type vertical struct {
	heads          []cellText
	cells          [][]cellText
	hwidth, dwidth int
	hmulti, dmulti bool
}

func measureVertical(t *table) vertical {
	v := vertical{heads: make([]cellText, len(t.headers)), cells: make([][]cellText, len(t.rows))}
	for i, h := range t.headers {
		v.heads[i] = newCellText(h)
		v.hwidth = max(v.hwidth, v.heads[i].width())
		v.hmulti = v.hmulti || len(v.heads[i].lines) > 1
	}
	for r, row := range t.rows {
		v.cells[r] = make([]cellText, len(row))
		for c, s := range row {
			v.cells[r][c] = newCellText(s)
			v.dwidth = max(v.dwidth, v.cells[r][c].width())
			v.dmulti = v.dmulti || len(v.cells[r][c].lines) > 1
		}
	}
	return v
}

// fitRecordLabel widens the value column until data lines are as wide as
// the "-[ RECORD n ]" lines, as psql does since PostgreSQL 15.20 (15.18
// padded to the values alone). The padding shows in border 2's right rule
// and where wrap markers stand. Every record gets the width that the
// label of the last one needs; tuples-only output has no labels.
func (v *vertical) fitRecordLabel(nrows, border int) {
	label := len(strconv.Itoa(nrows)) + [...]int{len("* RECORD "), len("-[ RECORD  ]"), len("+-[ RECORD  ]-+")}[border]
	v.dwidth = max(v.dwidth, label-v.hwidth-v.separatorWidth(border))
}

// separatorWidth is how many columns a data line has besides its header
// and value: rules, spacers and the newline marker columns.
func (v *vertical) separatorWidth(border int) int {
	n := [...]int{1, 3, 7}[border]
	if border == 0 && v.hmulti {
		n++ // the header's newline marker
	}
	if border < 2 && v.dmulti {
		n++ // the value's newline marker; border 2 uses its spacer
	}
	return n
}

// writeRecordLine is print_aligned_vertical_line: the record label (none
// for record 0, the line between records of tuples-only output), then
// rules only where the label is shorter than the columns. Border 0 has
// spaces for rules.
func writeRecordLine(b *strings.Builder, record, hwidth, dwidth, border int) {
	rule := "-"
	switch border {
	case 0:
		rule = " "
	case 1:
		b.WriteByte('-')
	case 2:
		b.WriteString("+-")
	}
	reclen := 0
	switch {
	case record > 0 && border == 0:
		reclen, _ = fmt.Fprintf(b, "* Record %d", record)
	case record > 0:
		reclen, _ = fmt.Fprintf(b, "[ RECORD %d ]", record)
	}
	if border != 2 {
		reclen++
	}
	for i := reclen; i < hwidth; i++ {
		b.WriteString(rule)
	}
	reclen -= hwidth
	marks := []string{"-", "+", "-"}
	if border == 0 {
		marks = []string{" "}
	}
	for _, mark := range marks {
		if reclen <= 0 {
			b.WriteString(mark)
		}
		reclen--
	}
	for i := max(reclen, 0); i < dwidth; i++ {
		b.WriteString(rule)
	}
	if border == 2 {
		b.WriteString("-+")
	}
	b.WriteByte('\n')
}

// writeField prints one "header | value" pair, walking the header's and
// the value's lines in parallel.
func (v vertical) writeField(b *strings.Builder, head, data cellText, border int) {
	hline, dline := 0, 0
	hdone, ddone := false, false
	for !hdone || !ddone {
		if border == 2 {
			b.WriteString("| ")
		}
		if !hdone {
			hdone = v.writeHeaderLine(b, head, hline, border)
			hline++
		} else {
			n := v.hwidth + min(border, 1)
			if border == 0 && v.hmulti {
				n++
			}
			pad(b, n)
		}
		if border > 0 {
			b.WriteByte('|')
		}
		if ddone {
			if border == 2 {
				pad(b, v.dwidth+2)
				b.WriteByte('|')
			}
			b.WriteByte('\n')
			continue
		}
		ddone = v.writeDataLine(b, data, dline, border)
		dline++
	}
}

// writeHeaderLine prints one line of a header and says whether it was the
// last one.
func (v vertical) writeHeaderLine(b *strings.Builder, head cellText, line, border int) (done bool) {
	b.WriteString(head.lines[line])
	pad(b, v.hwidth-head.widths[line])
	done = line+1 >= len(head.lines)
	if border > 0 || v.hmulti {
		if done {
			b.WriteByte(' ')
		} else {
			b.WriteByte('+')
		}
	}
	return done
}

// writeDataLine prints one line of a value and says whether it was the
// last one.
func (v vertical) writeDataLine(b *strings.Builder, data cellText, line, border int) (done bool) {
	b.WriteByte(' ')
	b.WriteString(data.lines[line])
	done = line+1 >= len(data.lines)
	switch {
	case !done && (border == 2 || v.dmulti):
		pad(b, v.dwidth-data.widths[line])
		b.WriteByte('+')
	case done && border == 2:
		pad(b, v.dwidth-data.widths[line])
		b.WriteByte(' ')
	}
	if border == 2 {
		b.WriteByte('|')
	}
	b.WriteByte('\n')
	return done
}
