package engine

import (
	"testing"

	"github.com/magmalake/magmalake/sql"
)

// typeFromArrow inverts sql.Type.ArrowType for every type whose Arrow type
// is its own; text-like types (json, varchar) share String and read as text.
func TestTypeFromArrowInvertsArrowType(t *testing.T) {
	for _, typ := range []sql.Type{sql.Bool, sql.Int16, sql.Int32, sql.Int64, sql.Float32, sql.Float64,
		sql.Numeric(10, 2), sql.Numeric(38, 0), sql.Text, sql.Bytea, sql.Date, sql.Time, sql.Timestamp,
		sql.TimestampTZ, sql.UUID, sql.OID} {
		if got := sql.TypeFromArrow(typ.ArrowType()); got != typ {
			t.Errorf("sql.TypeFromArrow(%s) = %s, want %s", typ.ArrowType(), got, typ)
		}
	}
	if got := sql.TypeFromArrow(sql.JSON.ArrowType()); got != sql.Text {
		t.Errorf("json reads back as %s, want text", got)
	}
}
