package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// A quoted type name is a pg_type entry's own name, exact in case:
// 1::"int4", CAST(x AS "varchar"), 'x'::pg_catalog."timestamp", a column
// "numeric"(10,2). The SQL spellings the grammar knows ("integer",
// "character varying", "double precision") are no such names, and "char"
// is the one-byte internal type, not char(1).

// quotedTypeNames are the pg_type names magmalake reads, quoted.
var quotedTypeNames = map[string]bool{
	"bool": true, "int2": true, "int4": true, "int8": true, "float4": true, "float8": true,
	"numeric": true, "text": true, "name": true, "varchar": true, "bpchar": true, "bytea": true,
	"date": true, "time": true, "timestamp": true, "timestamptz": true, "interval": true,
	"uuid": true, "json": true, "jsonb": true, "oid": true, "regclass": true, "regtype": true,
	"regnamespace": true, "regproc": true, "regprocedure": true, "regrole": true, "record": true,
	"aclitem": true, "pg_node_tree": true, "xid": true, "int2vector": true, "oidvector": true,
	"anyarray": true, "char": true,
}

// unquoteTypeName rewrites a written type name whose base is quoted
// ("int4"(...)[], pg_catalog."int4") to the unquoted name ParseTypeName
// reads; "char" stays quoted (the internal type's spelling there). A name
// that is no type is 42704, named as written.
func unquoteTypeName(written string) (string, error) {
	s := strings.TrimSpace(written)
	for _, schema := range []string{`pg_catalog.`, `"pg_catalog".`} {
		s = strings.TrimPrefix(s, schema)
	}
	if !strings.HasPrefix(s, `"`) {
		return "", pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", written)
	}
	end := 1
	var b strings.Builder
	for end < len(s) {
		if s[end] == '"' {
			if end+1 < len(s) && s[end+1] == '"' {
				b.WriteByte('"')
				end += 2
				continue
			}
			break
		}
		b.WriteByte(s[end])
		end++
	}
	name, rest := b.String(), strings.TrimSpace(s[min(end+1, len(s)):])
	if !quotedTypeNames[name] {
		return "", pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", name)
	}
	if name == "char" {
		if strings.HasPrefix(rest, "(") {
			return "", pgerr.Errorf(pgerr.SyntaxError, `type modifier is not allowed for type "char"`)
		}
		return `"char"` + rest, nil
	}
	return name + rest, nil
}

// IsInternalChar reports a written type name that is "char", the one-byte
// internal type (carried as text).
func IsInternalChar(written string) bool {
	s := strings.TrimSpace(written)
	for _, schema := range []string{`pg_catalog.`, `"pg_catalog".`} {
		s = strings.TrimPrefix(s, schema)
	}
	return s == `"char"`
}
