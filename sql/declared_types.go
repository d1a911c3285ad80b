package sql

import (
	"strconv"

	"github.com/apache/iceberg-go"
)

// DeclaredTypePrefix starts the table properties that keep a column's SQL
// type where Iceberg's is wider (varchar(n) and char(n) are strings,
// smallint an int), keyed by field id: DeclaredTypePrefix + "3".
const DeclaredTypePrefix = "magmalake.declared-type."

// Narrowed reports a type stored wider than declared.
func Narrowed(t Type) bool {
	return t.Kind == KindInt16 || t.Kind == KindVarchar && t.Length > 0
}

// DeclaredTypes maps positions of fields to the declared types that props
// record for them.
func DeclaredTypes(props map[string]string, fields []iceberg.NestedField) map[int]Type {
	out := map[int]Type{}
	for i, f := range fields {
		name, ok := props[DeclaredTypePrefix+strconv.Itoa(f.ID)]
		if !ok {
			continue
		}
		if t, err := ParseTypeName(name); err == nil && Narrowed(t) {
			out[i] = t
		}
	}
	return out
}

// ColumnTypes are the SQL types fields are read as: their Iceberg types,
// except that declared varchar(n), char(n) and smallint columns read as
// such (their values are Iceberg strings and ints), so that clients see the
// declared type, char(n) compares, pads and prints as PostgreSQL's and
// smallint arithmetic is smallint's. A scan narrows a smallint column's
// Iceberg ints itself (NarrowInts).
func ColumnTypes(props map[string]string, fields []iceberg.NestedField) []Type {
	out := make([]Type, len(fields))
	for i, f := range fields {
		out[i] = TypeFromIceberg(f.Type)
		if out[i].Kind != KindText && out[i].Kind != KindInt32 {
			continue
		}
		if name, ok := props[DeclaredTypePrefix+strconv.Itoa(f.ID)]; ok {
			if t, err := ParseTypeName(name); err == nil && Narrowed(t) && (t.Kind == KindVarchar) == (out[i].Kind == KindText) {
				out[i] = t
			}
		}
	}
	return out
}

// ViewTypeProps records, keyed by field id as for tables, the SQL type of
// each view column whose Iceberg type reads back as another (sum(numeric)
// is an unbounded numeric stored as a string, varchar(2) a string,
// smallint an int): the catalog then describes the column as the view's
// query types it.
func ViewTypeProps(types []Type, fields []iceberg.NestedField) map[string]string {
	props := map[string]string{}
	for i, f := range fields {
		if i < len(types) && TypeFromIceberg(f.Type) != types[i] {
			props[DeclaredTypePrefix+strconv.Itoa(f.ID)] = types[i].String()
		}
	}
	return props
}

// ViewColumnTypes are the SQL types of a view's fields: those props record
// (ViewTypeProps), else their Iceberg types'.
func ViewColumnTypes(props map[string]string, fields []iceberg.NestedField) []Type {
	out := make([]Type, len(fields))
	for i, f := range fields {
		out[i] = TypeFromIceberg(f.Type)
		if name, ok := props[DeclaredTypePrefix+strconv.Itoa(f.ID)]; ok {
			if t, err := ParseTypeName(name); err == nil {
				out[i] = t
			}
		}
	}
	return out
}
