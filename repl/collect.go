package repl

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/sql"
)

// cellValue is one value as psql prints it; NULL is "" (the table keeps
// which values are NULL for the null display).
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
