package repl

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// psql has no json or markdown format; these two follow DuckDB's CLI.

// jsonNumber is the grammar of a JSON number: what a numeric column holds
// except NaN and the infinities, which stay strings.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// jsonText is one JSON array with an object per row, one per line: the
// column names are the keys (in column order, repeated if a name is),
// numbers are numbers, NULL is null and every other value its text.
// Title, footer, tuples-only and expanded do not apply.
func jsonText(t *table) string {
	var b strings.Builder
	b.WriteByte('[')
	for r, row := range t.rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n{")
		for c, v := range row {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(t.headers[c]) + ":" + jsonValue(t, r, c, v))
		}
		b.WriteByte('}')
	}
	if len(t.rows) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.String()
}

func jsonValue(t *table, r, c int, v string) string {
	switch {
	case t.nulls != nil && t.nulls[r][c]:
		return "null"
	case t.right[c] && jsonNumber.MatchString(v):
		return v
	}
	return jsonString(v)
}

// jsonString quotes s as JSON without escaping <, > and & (the output is
// not embedded in HTML).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// markdownText is a GitHub-flavoured Markdown table: a header row, a
// delimiter row, a row per result row; pipes in values are escaped and
// line breaks become <br>, so that every row stays one line. Tuples-only
// drops the header and delimiter rows; title, footer and expanded do not
// apply.
func markdownText(t *table, lo layout) string {
	var b strings.Builder
	row := func(cells []string) {
		b.WriteByte('|')
		for _, c := range cells {
			b.WriteString(" " + markdownEscape(c) + " |")
		}
		b.WriteByte('\n')
	}
	if !lo.tuplesOnly {
		row(t.headers)
		b.WriteString("|" + strings.Repeat("---|", len(t.headers)) + "\n")
	}
	for _, r := range t.rows {
		row(r)
	}
	return b.String()
}

var markdownEscaper = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>")

func markdownEscape(s string) string { return markdownEscaper.Replace(s) }
