package pgcatalog

import (
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// pgType is one row of pg_type: every type magmalake exposes, the catalog
// types its own relations use, and text even when no column uses it.
type pgType struct {
	oid      int64
	name     string
	length   int64
	byVal    bool
	category string
	array    int64
	input    string
	output   string
	align    string
	coll     int64
	display  string // format_type's spelling
}

var pgTypes = []pgType{
	{16, "bool", 1, true, "B", 1000, "boolin", "boolout", "c", 0, "boolean"},
	{17, "bytea", -1, false, "U", 1001, "byteain", "byteaout", "i", 0, "bytea"},
	{18, "char", 1, true, "Z", 1002, "charin", "charout", "c", 0, `"char"`},
	{19, "name", 64, false, "S", 1003, "namein", "nameout", "c", 950, "name"},
	{20, "int8", 8, true, "N", 1016, "int8in", "int8out", "d", 0, "bigint"},
	{21, "int2", 2, true, "N", 1005, "int2in", "int2out", "s", 0, "smallint"},
	{23, "int4", 4, true, "N", 1007, "int4in", "int4out", "i", 0, "integer"},
	{24, "regproc", 4, true, "N", 1008, "regprocin", "regprocout", "i", 0, "regproc"},
	{25, "text", -1, false, "S", 1009, "textin", "textout", "i", collDefault, "text"},
	{26, "oid", 4, true, "N", 1028, "oidin", "oidout", "i", 0, "oid"},
	{114, "json", -1, false, "U", 199, "json_in", "json_out", "i", 0, "json"},
	{194, "pg_node_tree", -1, false, "Z", 0, "pg_node_tree_in", "pg_node_tree_out", "i", collDefault, "pg_node_tree"},
	{700, "float4", 4, true, "N", 1021, "float4in", "float4out", "i", 0, "real"},
	{701, "float8", 8, true, "N", 1022, "float8in", "float8out", "d", 0, "double precision"},
	{705, "unknown", -2, false, "X", 0, "unknownin", "unknownout", "c", 0, "unknown"},
	{1042, "bpchar", -1, false, "S", 1014, "bpcharin", "bpcharout", "i", collDefault, "character"},
	{1043, "varchar", -1, false, "S", 1015, "varcharin", "varcharout", "i", collDefault, "character varying"},
	{1082, "date", 4, true, "D", 1182, "date_in", "date_out", "i", 0, "date"},
	{1083, "time", 8, true, "D", 1183, "time_in", "time_out", "d", 0, "time without time zone"},
	{1114, "timestamp", 8, true, "D", 1115, "timestamp_in", "timestamp_out", "d", 0, "timestamp without time zone"},
	{1184, "timestamptz", 8, true, "D", 1185, "timestamptz_in", "timestamptz_out", "d", 0, "timestamp with time zone"},
	{1186, "interval", 16, false, "T", 1187, "interval_in", "interval_out", "d", 0, "interval"},
	{1700, "numeric", -1, false, "N", 1231, "numeric_in", "numeric_out", "i", 0, "numeric"},
	{2205, "regclass", 4, true, "N", 2210, "regclassin", "regclassout", "i", 0, "regclass"},
	{2206, "regtype", 4, true, "N", 2211, "regtypein", "regtypeout", "i", 0, "regtype"},
	{2950, "uuid", 16, false, "U", 2951, "uuid_in", "uuid_out", "c", 0, "uuid"},
	// The types pg_proc's rows name that no column has: the pseudo-types of
	// polymorphic, variadic and support functions, and trigger, which psql's
	// \df filters name (pg_node_tree, pg_get_expr's argument, is above); in
	// PostgreSQL's order, which pgjdbc's getTypeInfo keeps.
	{2275, "cstring", -2, false, "P", 1263, "cstring_in", "cstring_out", "c", 0, "cstring"},
	{2276, "any", 4, true, "P", 0, "any_in", "any_out", "i", 0, `"any"`},
	{2277, "anyarray", -1, false, "P", 0, "anyarray_in", "anyarray_out", "d", 0, "anyarray"},
	{2279, "trigger", 4, true, "P", 0, "trigger_in", "trigger_out", "i", 0, "trigger"},
	{2281, "internal", 8, true, "P", 0, "internal_in", "internal_out", "d", 0, "internal"},
	{2283, "anyelement", 4, true, "P", 0, "anyelement_in", "anyelement_out", "i", 0, "anyelement"},
	{2776, "anynonarray", 4, true, "P", 0, "anynonarray_in", "anynonarray_out", "i", 0, "anynonarray"},
	{325, "index_am_handler", 4, true, "P", 0, "index_am_handler_in", "index_am_handler_out", "i", 0, "index_am_handler"},
	{269, "table_am_handler", 4, true, "P", 0, "table_am_handler_in", "table_am_handler_out", "i", 0, "table_am_handler"},
	{5077, "anycompatible", 4, true, "P", 0, "anycompatible_in", "anycompatible_out", "i", 0, "anycompatible"},
	{5078, "anycompatiblearray", -1, false, "P", 0, "anycompatiblearray_in", "anycompatiblearray_out", "d", 0, "anycompatiblearray"},
}

func typeByOID(oid int64) *pgType {
	for i := range pgTypes {
		if pgTypes[i].oid == oid {
			return &pgTypes[i]
		}
	}
	return nil
}

// typeByArrayOID is the element type of the array type oid.
func typeByArrayOID(oid int64) *pgType {
	for i := range pgTypes {
		if pgTypes[i].array == oid {
			return &pgTypes[i]
		}
	}
	return nil
}

// typeByName resolves a type name as ::regtype does (internal or SQL spelling).
func typeByName(name string) *pgType {
	name = strings.TrimPrefix(strings.TrimSpace(strings.ToLower(name)), "pg_catalog.")
	if t, err := sql.ParseTypeName(name); err == nil {
		if p := typeByOID(int64(t.OID())); p != nil {
			return p
		}
	}
	for i := range pgTypes {
		if pgTypes[i].name == name || pgTypes[i].display == name {
			return &pgTypes[i]
		}
	}
	return nil
}

// formatType is format_type(oid, typmod).
func formatType(oid, typmod int64) string {
	t := typeByOID(oid)
	if t == nil {
		if e := typeByArrayOID(oid); e != nil {
			return formatType(e.oid, typmod) + "[]"
		}
		return "???"
	}
	switch {
	case t.oid == 1700 && typmod >= 4:
		m := typmod - 4
		return fmt.Sprintf("numeric(%d,%d)", m>>16, m&0xffff)
	case (t.oid == 1043 || t.oid == 1042) && typmod >= 4:
		return fmt.Sprintf("%s(%d)", t.display, typmod-4)
	}
	return t.display
}

// storage is pg_type.typstorage / pg_attribute.attstorage.
func (t *pgType) storage() string {
	if t.length == -1 {
		return "x"
	}
	return "p"
}

// columnType is the pg_type row of a user column's type.
func columnType(t sql.Type) *pgType {
	if p := typeByOID(int64(t.OID())); p != nil {
		return p
	}
	return typeByOID(25)
}
