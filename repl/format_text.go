package repl

import (
	"fmt"
	"strings"
)

// unalignedText is psql's print_unaligned_text (print_unaligned_vertical
// when expanded): values as they are, fieldSep between them, recordSep
// between records, and a newline (or the zero byte) after the last.
func unalignedText(t *table, lo layout, fieldSep, recordSep separator, expanded bool) string {
	if expanded {
		return unalignedVertical(t, lo, fieldSep, recordSep)
	}
	var b strings.Builder
	fs, rs := fieldSep.String(), recordSep.String()
	needSep := false
	if t.title != "" && !lo.tuplesOnly {
		b.WriteString(t.title)
		b.WriteString(rs)
	}
	if !lo.tuplesOnly {
		b.WriteString(strings.Join(t.headers, fs))
		needSep = true
	}
	for _, row := range t.rows {
		if needSep {
			b.WriteString(rs)
		}
		b.WriteString(strings.Join(row, fs))
		needSep = true
	}
	if t.footer && !lo.tuplesOnly {
		if needSep {
			b.WriteString(rs)
		}
		b.WriteString(rowsFooter(len(t.rows)))
		needSep = true
	}
	if needSep {
		b.WriteString(lastRecordEnd(recordSep))
	}
	return b.String()
}

// lastRecordEnd is what psql ends unaligned output with: a newline
// whatever the record separator, unless that is the zero byte.
func lastRecordEnd(recordSep separator) string {
	if recordSep.zero {
		return "\x00"
	}
	return "\n"
}

// unalignedVertical prints one "header<fieldsep>value" per record
// separator, records apart by two of them; no footer.
func unalignedVertical(t *table, lo layout, fieldSep, recordSep separator) string {
	var b strings.Builder
	fs, rs := fieldSep.String(), recordSep.String()
	needSep := false
	if t.title != "" && !lo.tuplesOnly {
		b.WriteString(t.title)
		needSep = true
	}
	for _, row := range t.rows {
		if needSep {
			b.WriteString(rs + rs)
		}
		for c, v := range row {
			if c > 0 {
				b.WriteString(rs)
			}
			b.WriteString(t.headers[c] + fs + v)
		}
		needSep = true
	}
	if needSep {
		b.WriteString(lastRecordEnd(recordSep))
	}
	return b.String()
}

// csvText is psql's print_csv_text (print_csv_vertical when expanded):
// RFC 4180 fields, no title and no footer.
func csvText(t *table, lo layout, sep byte, expanded bool) string {
	var b strings.Builder
	field := func(s string) { b.WriteString(csvField(s, sep)) }
	if expanded {
		for _, row := range t.rows {
			for c, v := range row {
				field(t.headers[c])
				b.WriteByte(sep)
				field(v)
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	rows := t.rows
	if !lo.tuplesOnly {
		rows = append([][]string{t.headers}, rows...)
	}
	for _, row := range rows {
		for c, v := range row {
			if c > 0 {
				b.WriteByte(sep)
			}
			field(v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// csvField quotes a value holding the separator, a quote or a line break,
// and psql's end-of-data marker \. (which COPY would stop at).
func csvField(s string, sep byte) string {
	if s != `\.` && !strings.ContainsAny(s, "\"\r\n"+string(sep)) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// htmlText is psql's print_html_text (print_html_vertical when expanded).
func htmlText(t *table, lo layout, attr optional, expanded bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<table border=\"%d\"", lo.border)
	if attr.set {
		b.WriteString(" " + attr.text)
	}
	b.WriteString(">\n")
	if t.title != "" && !lo.tuplesOnly {
		b.WriteString("  <caption>" + htmlEscape(t.title) + "</caption>\n")
	}
	if expanded {
		writeHTMLRecords(&b, t, lo)
	} else {
		writeHTMLRows(&b, t, lo)
	}
	b.WriteString("</table>\n")
	if t.footer && !lo.tuplesOnly && !expanded {
		b.WriteString("<p>" + rowsFooter(len(t.rows)) + "<br />\n</p>")
	}
	b.WriteByte('\n')
	return b.String()
}

func writeHTMLRows(b *strings.Builder, t *table, lo layout) {
	if !lo.tuplesOnly {
		b.WriteString("  <tr>\n")
		for _, h := range t.headers {
			b.WriteString("    <th align=\"center\">" + htmlEscape(h) + "</th>\n")
		}
		b.WriteString("  </tr>\n")
	}
	for _, row := range t.rows {
		b.WriteString("  <tr valign=\"top\">\n")
		for c, v := range row {
			b.WriteString("    <td align=\"" + htmlAlign(t.right[c]) + "\">" + htmlCell(v) + "</td>\n")
		}
		b.WriteString("  </tr>\n")
	}
}

func writeHTMLRecords(b *strings.Builder, t *table, lo layout) {
	for r, row := range t.rows {
		if lo.tuplesOnly {
			b.WriteString("\n  <tr><td colspan=\"2\">&nbsp;</td></tr>\n")
		} else {
			fmt.Fprintf(b, "\n  <tr><td colspan=\"2\" align=\"center\">Record %d</td></tr>\n", r+1)
		}
		for c, v := range row {
			b.WriteString("  <tr valign=\"top\">\n    <th>" + htmlEscape(t.headers[c]) + "</th>\n")
			b.WriteString("    <td align=\"" + htmlAlign(t.right[c]) + "\">" + htmlCell(v) + "</td>\n  </tr>\n")
		}
	}
}

func htmlAlign(right bool) string {
	if right {
		return "right"
	}
	return "left"
}

// htmlCell shows a blank value as a non-breaking space, so that the cell
// keeps its borders.
func htmlCell(s string) string {
	if strings.Trim(s, " \t") == "" {
		return "&nbsp; "
	}
	return htmlEscape(s)
}

// htmlEscape is psql's html_escaped_print: leading spaces become &nbsp;
// (for EXPLAIN's indentation) and newlines <br />.
func htmlEscape(s string) string {
	var b strings.Builder
	leading := true
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\n':
			b.WriteString("<br />\n")
		case ' ':
			if leading {
				b.WriteString("&nbsp;")
			} else {
				b.WriteByte(' ')
			}
		default:
			b.WriteRune(r)
		}
		leading = leading && r == ' '
	}
	return b.String()
}

// asciidocText is psql's print_asciidoc_text (print_asciidoc_vertical
// when expanded).
func asciidocText(t *table, lo layout, expanded bool) string {
	var b strings.Builder
	b.WriteByte('\n')
	if t.title != "" && !lo.tuplesOnly {
		b.WriteString("." + t.title + "\n")
	}
	if expanded {
		writeAsciidocRecords(&b, t, lo)
	} else {
		writeAsciidocRows(&b, t, lo)
	}
	b.WriteString("|====\n")
	if t.footer && !lo.tuplesOnly && !expanded {
		b.WriteString("\n....\n" + rowsFooter(len(t.rows)) + "\n....\n")
	}
	return b.String()
}

// asciidocFrame is the table attributes for a border.
func asciidocFrame(border int) string {
	return [...]string{`,frame="none",grid="none"`, `,frame="none"`, `,frame="all",grid="all"`}[min(border, 2)]
}

func writeAsciidocRows(b *strings.Builder, t *table, lo layout) {
	b.WriteByte('[')
	if !lo.tuplesOnly {
		b.WriteString(`options="header",`)
	}
	b.WriteString(`cols="`)
	for c := range t.headers {
		if c > 0 {
			b.WriteByte(',')
		}
		b.WriteString(map[bool]string{true: ">l", false: "<l"}[t.right[c]])
	}
	b.WriteString(`"` + asciidocFrame(lo.border) + "]\n|====\n")
	if !lo.tuplesOnly {
		for c, h := range t.headers {
			if c > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("^l|" + asciidocEscape(h))
		}
		b.WriteByte('\n')
	}
	for _, row := range t.rows {
		for c, v := range row {
			if c > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('|')
			switch {
			case strings.Trim(v, " \t") != "":
				b.WriteString(asciidocEscape(v))
			case c < len(row)-1:
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
}

func writeAsciidocRecords(b *strings.Builder, t *table, lo layout) {
	b.WriteString(`[cols="h,l"` + asciidocFrame(lo.border) + "]\n|====\n")
	for r, row := range t.rows {
		if lo.tuplesOnly {
			b.WriteString("2+|\n")
		} else {
			fmt.Fprintf(b, "2+^|Record %d\n", r+1)
		}
		for c, v := range row {
			b.WriteString("<l|" + asciidocEscape(t.headers[c]))
			b.WriteString(map[bool]string{true: " >l|", false: " <l|"}[t.right[c]])
			if strings.Trim(v, " \t") == "" {
				v = " "
			}
			b.WriteString(asciidocEscape(v) + "\n")
		}
	}
}

// asciidocEscape protects the cell separator.
func asciidocEscape(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
