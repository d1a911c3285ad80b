package repl

import (
	"fmt"
	"io"
	"strings"
)

// table is a fully materialised result in text form, ready to print. NULL is
// the empty string, psql's default null display.
type table struct {
	title   string
	headers []string
	right   []bool // right-aligned (numeric) columns
	rows    [][]string
	// footer prints "(N rows)" below an aligned table (and for an empty
	// expanded one).
	footer bool
}

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

// writeAligned prints t as psql's default aligned format with border 1
// (print_aligned_text), including the blank line psql ends a table with.
func writeAligned(w io.Writer, t *table) error {
	heads := make([]cellText, len(t.headers))
	widths := make([]int, len(t.headers))
	for i, h := range t.headers {
		heads[i] = newCellText(h)
		widths[i] = heads[i].width()
	}
	cells := make([][]cellText, len(t.rows))
	for r, row := range t.rows {
		cells[r] = make([]cellText, len(row))
		for c, v := range row {
			cells[r][c] = newCellText(v)
			widths[c] = max(widths[c], cells[r][c].width())
		}
	}
	var b strings.Builder
	if t.title != "" {
		total := len(widths)*3 - 1
		for _, cw := range widths {
			total += cw
		}
		if tw := stringWidth(t.title); tw < total {
			b.WriteString(strings.Repeat(" ", (total-tw)/2))
		}
		b.WriteString(t.title)
		b.WriteByte('\n')
	}
	writeAlignedHeader(&b, heads, widths)
	writeRule(&b, widths)
	for _, row := range cells {
		writeAlignedRow(&b, row, widths, t.right)
	}
	if t.footer {
		b.WriteString(rowsFooter(len(t.rows)))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAlignedHeader centres each header line in its column; a header with
// more lines to come ends its cell with '+'.
func writeAlignedHeader(b *strings.Builder, heads []cellText, widths []int) {
	for line := 0; ; line++ {
		more := false
		for i, h := range heads {
			b.WriteByte(' ')
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
			if i < len(heads)-1 {
				b.WriteByte('|')
			}
		}
		b.WriteByte('\n')
		if !more {
			return
		}
	}
}

func writeRule(b *strings.Builder, widths []int) {
	b.WriteByte('-')
	for i, w := range widths {
		b.WriteString(strings.Repeat("-", w))
		if i < len(widths)-1 {
			b.WriteString("-+-")
		}
	}
	b.WriteString("-\n")
}

// writeAlignedRow prints one row, one output line per value line; a value
// continued on the next line ends with '+'. The last column is not padded
// unless a '+' has to follow it.
func writeAlignedRow(b *strings.Builder, row []cellText, widths []int, right []bool) {
	cur := make([]int, len(row))
	for more := true; more; {
		more = false
		for j, c := range row {
			last := j == len(row)-1
			b.WriteByte(' ')
			used := widths[j]
			if cur[j] >= len(c.lines) {
				if !last {
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
			if !right[j] && (!last || continues) {
				pad(b, widths[j]-used)
			}
			switch {
			case continues:
				b.WriteByte('+')
			case !last:
				b.WriteByte(' ')
			}
			if !last {
				b.WriteByte('|')
			}
		}
		b.WriteByte('\n')
	}
}

func pad(b *strings.Builder, n int) {
	for ; n > 0; n-- {
		b.WriteByte(' ')
	}
}
