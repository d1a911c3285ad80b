package pgcatalog

import (
	"strconv"

	"github.com/magmalake/magmalake/sql"
)

// information_schema.schemata, tables and columns, as PostgreSQL 15 fills
// them for a superuser.

func addInformationSchema(m relSet) {
	m.add("information_schema", "schemata", 0, `catalog_name name, schema_name name, schema_owner name,
		default_character_set_catalog name, default_character_set_schema name,
		default_character_set_name name, sql_path text`, schemataRows)
	m.add("information_schema", "tables", 0, `table_catalog name, table_schema name, table_name name,
		table_type text, self_referencing_column_name name, reference_generation text,
		user_defined_type_catalog name, user_defined_type_schema name, user_defined_type_name name,
		is_insertable_into text, is_typed text, commit_action text`, infoTablesRows)
	m.add("information_schema", "views", 0, `table_catalog name, table_schema name, table_name name,
		view_definition text, check_option text, is_updatable text, is_insertable_into text,
		is_trigger_updatable text, is_trigger_deletable text, is_trigger_insertable_into text`, infoViewsRows)
	m.add("information_schema", "columns", 0, `table_catalog name, table_schema name, table_name name,
		column_name name, ordinal_position int4, column_default text, is_nullable text, data_type text,
		character_maximum_length int4, character_octet_length int4, numeric_precision int4,
		numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type text,
		interval_precision int4, character_set_catalog name, character_set_schema name,
		character_set_name name, collation_catalog name, collation_schema name, collation_name name,
		domain_catalog name, domain_schema name, domain_name name, udt_catalog name, udt_schema name,
		udt_name name, scope_catalog name, scope_schema name, scope_name name,
		maximum_cardinality int4, dtd_identifier name, is_self_referencing text, is_identity text,
		identity_generation text, identity_start text, identity_increment text, identity_maximum text,
		identity_minimum text, identity_cycle text, is_generated text, generation_expression text,
		is_updatable text`, infoColumnsRows)
}

func schemataRows(s *snapshot) [][]any {
	var out [][]any
	for _, ns := range s.namespaces {
		out = append(out, []any{s.env.Database, ns.name, s.env.User, nil, nil, nil, nil})
	}
	return out
}

func infoTablesRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		kind, insertable := "BASE TABLE", "YES"
		if t.view != "" {
			kind, insertable = "VIEW", "NO"
		}
		out = append(out, []any{s.env.Database, t.ns.name, t.name, kind, nil, nil,
			nil, nil, nil, insertable, "NO", nil})
	}
	return out
}

func infoViewsRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		if t.view != "" {
			out = append(out, []any{s.env.Database, t.ns.name, t.name, t.view, "NONE", "NO", "NO", "NO", "NO", "NO"})
		}
	}
	return out
}

func infoColumnsRows(s *snapshot) [][]any {
	var out [][]any
	for _, t := range s.tables {
		for i, c := range t.cols {
			pt := columnType(c.t)
			nullable := "YES"
			if c.notNull {
				nullable = "NO"
			}
			prec, radix, scale, dtPrec := numericFacets(pt.oid, int64(c.t.Typmod()))
			var collName any
			if pt.coll != 0 {
				collName = nil
			}
			maxLen, octets := charFacets(c.t, pt)
			out = append(out, []any{s.env.Database, t.ns.name, t.name,
				c.name, int64(i + 1), c.def, nullable, infoDataType(pt),
				maxLen, octets, prec,
				radix, scale, dtPrec, nil,
				nil, nil, nil,
				nil, nil, nil, collName,
				nil, nil, nil, s.env.Database, "pg_catalog",
				pt.name, nil, nil, nil,
				nil, strconv.Itoa(i + 1), "NO", "NO",
				nil, nil, nil, nil,
				nil, "NO", "NEVER", nil,
				"YES"})
		}
	}
	return out
}

// infoDataType is information_schema's data_type: the SQL-standard name.
func infoDataType(pt *pgType) string {
	switch pt.name {
	case "bpchar":
		return "character"
	case "char":
		return `"char"`
	case "name", "regclass", "regtype", "regproc":
		return pt.name
	}
	return pt.display
}

// charFacets are character_maximum_length and character_octet_length: a
// declared varchar(n) holds n characters of up to 4 bytes in UTF8.
func charFacets(t sql.Type, pt *pgType) (maxLen, octets any) {
	if t.Kind == sql.KindVarchar && t.Length > 0 {
		return int64(t.Length), int64(4 * t.Length)
	}
	return nil, octetLength(pt)
}

func octetLength(pt *pgType) any {
	if pt.coll != 0 && pt.name != "name" {
		return int64(1073741824)
	}
	return nil
}

// numericFacets are numeric_precision, _radix, _scale and datetime_precision.
func numericFacets(oid, typmod int64) (prec, radix, scale, dtPrec any) {
	switch oid {
	case 21:
		return int64(16), int64(2), int64(0), nil
	case 23:
		return int64(32), int64(2), int64(0), nil
	case 20:
		return int64(64), int64(2), int64(0), nil
	case 700:
		return int64(24), int64(2), nil, nil
	case 701:
		return int64(53), int64(2), nil, nil
	case 1700:
		if typmod < 4 {
			return nil, int64(10), nil, nil
		}
		m := typmod - 4
		return m >> 16, int64(10), m & 0xffff, nil
	case 1082:
		return nil, nil, nil, int64(0)
	case 1083, 1114, 1184:
		return nil, nil, nil, int64(6)
	}
	return nil, nil, nil, nil
}
