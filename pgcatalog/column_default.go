package pgcatalog

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// defaultText is field f's write-default, f read as type t, as PostgreSQL
// shows a default (information_schema.columns.column_default): numbers and
// booleans bare, other values quoted and cast to the column's type; nil
// when it has none (or one that cannot be read: INSERT reports that).
func defaultText(t sql.Type, f iceberg.NestedField) any {
	if f.WriteDefault == nil {
		return nil
	}
	v, err := lake.TypedDefault(f.Type, f.WriteDefault)
	if err != nil {
		return nil
	}
	k, err := sql.DefaultConst(t, v)
	if err != nil {
		return nil
	}
	arr, err := sql.Eval(context.Background(), k, nil, nil)
	if err != nil {
		return nil
	}
	defer arr.Release()
	text := string(sql.AppendText(nil, t, arr, 0))
	switch t.Kind {
	case sql.KindBool:
		if text == "t" {
			return "true"
		}
		return "false"
	case sql.KindInt16, sql.KindInt32, sql.KindInt64, sql.KindNumeric, sql.KindFloat32, sql.KindFloat64:
		if !strings.HasPrefix(text, "-") {
			return text
		}
		// PostgreSQL keeps -7 as the constant '-7' of the literal's type.
		return "'" + text + "'::" + negativeLiteralType(t, text)
	}
	return "'" + strings.ReplaceAll(text, "'", "''") + "'::" + infoDataType(columnType(t))
}

// negativeLiteralType is the type PostgreSQL gives a negative numeric
// literal: integer when it fits, then bigint, else numeric.
func negativeLiteralType(t sql.Type, text string) string {
	switch t.Kind {
	case sql.KindInt16, sql.KindInt32, sql.KindInt64:
		if n, err := strconv.ParseInt(text, 10, 64); err == nil && n >= math.MinInt32 {
			return "integer"
		}
		return "bigint"
	}
	return "numeric"
}

// attrdefRows are pg_attrdef's: one per column with a default, adbin its
// text (pg_get_expr returns it as it is).
func attrdefRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		for i, c := range t.cols {
			if c.def == nil {
				continue
			}
			oid := stableOID(fmt.Sprintf("attrdef:%d:%d", t.oid, i+1), nil)
			out = append(out, []any{oid, t.oid, int64(i + 1), c.def})
		}
	}
	return out
}
