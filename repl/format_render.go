package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/magmalake/magmalake/stmt"
)

// collectTable drains rows into a text table, remembering which values
// are NULL (the null display and json need to know). Batches are only
// valid until the next call to Next, so every value is turned into text
// right away.
func collectTable(ctx context.Context, cols []stmt.Column, rows stmt.Rows) (*table, error) {
	t := &table{headers: make([]string, len(cols)), right: make([]bool, len(cols)), footer: true}
	for i, c := range cols {
		t.headers[i] = c.Name
		t.right[i] = rightAligned(c.Type)
	}
	var buf []byte
	for {
		batch, err := rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		if int(batch.NumCols()) != len(cols) {
			return nil, fmt.Errorf("result batch has %d columns, row description %d", batch.NumCols(), len(cols))
		}
		for r := 0; r < int(batch.NumRows()); r++ {
			row, nulls := make([]string, len(cols)), make([]bool, len(cols))
			for c := range cols {
				nulls[c] = batch.Column(c).IsNull(r)
				row[c], buf = cellValue(buf, cols[c].Type, batch.Column(c), r)
			}
			t.rows, t.nulls = append(t.rows, row), append(t.nulls, nulls)
		}
	}
}

// withNullDisplay returns t with its NULLs shown as null (psql's
// nullPrint, which every format of psql's uses).
func (t *table) withNullDisplay(null string) *table {
	if null == "" || t.nulls == nil {
		return t
	}
	cp := *t
	cp.rows = make([][]string, len(t.rows))
	for r, row := range t.rows {
		cp.rows[r] = append([]string(nil), row...)
		for c, isNull := range t.nulls[r] {
			if isNull {
				cp.rows[r][c] = null
			}
		}
	}
	return &cp
}

// render writes t in the chosen format. expanded is on, off or auto;
// columns is the width auto compares the aligned table with (0: unknown,
// never expand).
func (ps *printSettings) render(b *bytes.Buffer, t *table, expanded string, columns int) {
	lo := layout{border: max(ps.border, 0), tuplesOnly: ps.tuplesOnly}
	on := expanded == "on"
	if ps.format != "json" {
		t = t.withNullDisplay(ps.null)
	}
	switch ps.format {
	case "unaligned":
		b.WriteString(unalignedText(t, lo, ps.fieldSep, ps.recordSep, on))
	case "csv":
		b.WriteString(csvText(t, lo, ps.csvFieldSep, on))
	case "html":
		b.WriteString(htmlText(t, lo, ps.tableAttr, on))
	case "asciidoc":
		b.WriteString(asciidocText(t, lo, on))
	case "json":
		b.WriteString(jsonText(t))
	case "markdown":
		b.WriteString(markdownText(t, lo))
	default:
		b.WriteString(ps.alignedOrExpanded(t, lo, expanded, columns))
	}
}

// alignedOrExpanded decides expanded auto as psql does: expanded when the
// aligned table would be wider than the screen, unless it has only one
// column (its expanded form would be wider still).
func (ps *printSettings) alignedOrExpanded(t *table, lo layout, expanded string, columns int) string {
	if ps.columns > 0 {
		columns = ps.columns
	}
	switch {
	case expanded == "on":
		return expandedText(t, lo)
	case expanded == "auto" && columns > 0 && len(t.headers) > 1 &&
		measure(t).totalWidth(min(lo.border, 2)) > columns:
		return expandedText(t, lo)
	}
	return alignedText(t, lo)
}
