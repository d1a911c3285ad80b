package repl

import (
	"fmt"
	"io"
	"strings"
)

// table is a fully materialised result in text form, ready to print. NULL is
// the empty string, psql's default null display, unless the null display
// has been applied.
type table struct {
	title   string
	headers []string
	right   []bool // right-aligned (numeric) columns
	rows    [][]string
	// nulls marks the NULL values of rows (nil: none known), for the
	// null display and for json.
	nulls [][]bool
	// footer prints "(N rows)" below an aligned table (and for an empty
	// expanded one).
	footer bool
}

// layout is what the text formats take from \pset besides the table.
type layout struct {
	border     int // 0, 1 or 2; more counts as 2
	tuplesOnly bool
}

// defaultLayout is psql's: border 1, headers and footers shown.
var defaultLayout = layout{border: 1}

// cellText is one value split into display lines.
type cellText struct {
	lines  []string
	widths []int
}

func newCellText(s string) cellText {
	l, w := displayLines(s)
	return cellText{lines: l, widths: w}
}

func (c cellText) width() int {
	m := 0
	for _, w := range c.widths {
		m = max(m, w)
	}
	return m
}

func rowsFooter(n int) string {
	if n == 1 {
		return "(1 row)"
	}
	return fmt.Sprintf("(%d rows)", n)
}

// alignedCells is a table measured for the aligned format: every header
// and value split into lines, and the widest line of each column (headers
// count even when they are not printed, as in psql).
type alignedCells struct {
	heads  []cellText
	cells  [][]cellText
	widths []int
}

func measure(t *table) alignedCells {
	a := alignedCells{heads: make([]cellText, len(t.headers)), widths: make([]int, len(t.headers))}
	for i, h := range t.headers {
		a.heads[i] = newCellText(h)
		a.widths[i] = a.heads[i].width()
	}
	a.cells = make([][]cellText, len(t.rows))
	for r, row := range t.rows {
		a.cells[r] = make([]cellText, len(row))
		for c, v := range row {
			a.cells[r][c] = newCellText(v)
			a.widths[c] = max(a.widths[c], a.cells[r][c].width())
		}
	}
	return a
}

// totalWidth is psql's width_total: the columns and their borders.
func (a alignedCells) totalWidth(border int) int {
	n := len(a.widths)
	total := n*3 + 1
	switch border {
	case 0:
		total = n
	case 1:
		total = max(n*3-1, 0)
	}
	for _, w := range a.widths {
		total += w
	}
	return total
}

// writeAligned prints t as psql's default aligned format with border 1.
func writeAligned(w io.Writer, t *table) error {
	_, err := io.WriteString(w, alignedText(t, defaultLayout))
	return err
}

// alignedText is psql's print_aligned_text with the ascii line style,
// including the blank line psql ends a table with.
func alignedText(t *table, lo layout) string {
	border := min(lo.border, 2)
	a := measure(t)
	var b strings.Builder
	if t.title != "" && !lo.tuplesOnly {
		total := a.totalWidth(border)
		if tw := stringWidth(t.title); tw < total {
			pad(&b, (total-tw)/2)
		}
		b.WriteString(t.title)
		b.WriteByte('\n')
	}
	if !lo.tuplesOnly {
		if border == 2 {
			writeRule(&b, a.widths, border)
		}
		writeAlignedHeader(&b, a.heads, a.widths, border)
		writeRule(&b, a.widths, border)
	}
	for _, row := range a.cells {
		writeAlignedRow(&b, row, a.widths, t.right, border)
	}
	if border == 2 {
		writeRule(&b, a.widths, border)
	}
	if t.footer && !lo.tuplesOnly {
		b.WriteString(rowsFooter(len(t.rows)))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.String()
}

// writeAlignedHeader centres each header line in its column; a header with
// more lines to come ends its cell with '+'.
func writeAlignedHeader(b *strings.Builder, heads []cellText, widths []int, border int) {
	for line := 0; ; line++ {
		more := false
		if border == 2 {
			b.WriteByte('|')
		}
		for i, h := range heads {
			if border != 0 {
				b.WriteByte(' ')
			}
			done := line >= len(h.lines)-1
			if line < len(h.lines) {
				space := widths[i] - h.widths[line]
				pad(b, space/2)
				b.WriteString(h.lines[line])
				pad(b, (space+1)/2)
			} else {
				pad(b, widths[i])
			}
			if done {
				b.WriteByte(' ')
			} else {
				b.WriteByte('+')
				more = true
			}
			if border != 0 && i < len(heads)-1 {
				b.WriteByte('|')
			}
		}
		if border == 2 {
			b.WriteByte('|')
		}
		b.WriteByte('\n')
		if !more {
			return
		}
	}
}

// writeRule is psql's _print_horizontal_line.
func writeRule(b *strings.Builder, widths []int, border int) {
	switch border {
	case 1:
		b.WriteByte('-')
	case 2:
		b.WriteString("+-")
	}
	for i, w := range widths {
		b.WriteString(strings.Repeat("-", w))
		if i < len(widths)-1 {
			if border == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString("-+-")
			}
		}
	}
	switch border {
	case 1:
		b.WriteByte('-')
	case 2:
		b.WriteString("-+")
	}
	b.WriteByte('\n')
}

// writeAlignedRow prints one row, one output line per value line; a value
// continued on the next line ends with '+'. Unless border is 2 the last
// column is not padded when nothing has to follow it.
func writeAlignedRow(b *strings.Builder, row []cellText, widths []int, right []bool, border int) {
	cur := make([]int, len(row))
	for more := true; more; {
		more = false
		if border == 2 {
			b.WriteByte('|')
		}
		for j, c := range row {
			inner := border == 2 || j < len(row)-1
			if border != 0 {
				b.WriteByte(' ')
			}
			used := widths[j]
			if cur[j] >= len(c.lines) {
				if inner {
					pad(b, widths[j])
				}
			} else {
				used = c.widths[cur[j]]
				if right[j] {
					pad(b, widths[j]-used)
				}
				b.WriteString(c.lines[cur[j]])
				cur[j]++
				more = more || cur[j] < len(c.lines)
			}
			continues := cur[j] < len(c.lines)
			if !right[j] && (inner || continues) {
				pad(b, widths[j]-used)
			}
			switch {
			case continues:
				b.WriteByte('+')
			case inner:
				b.WriteByte(' ')
			}
			if border != 0 && j < len(row)-1 {
				b.WriteByte('|')
			}
		}
		if border == 2 {
			b.WriteByte('|')
		}
		b.WriteByte('\n')
	}
}

func pad(b *strings.Builder, n int) {
	for ; n > 0; n-- {
		b.WriteByte(' ')
	}
}
