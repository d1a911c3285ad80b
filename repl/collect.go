package repl

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/sql"
)

// collectTable drains rows into a text table. Batches are only valid until
// the next call to Next, so every value is turned into text right away.
func collectTable(ctx context.Context, cols []exec.Column, rows exec.Rows) (*table, error) {
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
			row := make([]string, len(cols))
			for c := range cols {
				row[c], buf = cellValue(buf, cols[c].Type, batch.Column(c), r)
			}
			t.rows = append(t.rows, row)
		}
	}
}

func cellValue(buf []byte, t sql.Type, arr arrow.Array, i int) (string, []byte) {
	if arr.IsNull(i) {
		return "", buf
	}
	buf = sql.AppendText(buf[:0], t, arr, i)
	return string(buf), buf
}

// rightAligned follows psql's column_type_alignment: numbers and OIDs
// line up on the right.
func rightAligned(t sql.Type) bool {
	return t.IsNumeric() || t.Kind == sql.KindOID
}
