package ddl

import (
	"strconv"

	"github.com/magmalake/magmalake/sql"
)

// declaredTypeProps are the properties recording cols' declared types
// (sql/declared_types.go); the catalog numbers a new table's top-level
// fields 1..n in order.
func declaredTypeProps(cols []sql.ColumnDef) map[string]string {
	props := map[string]string{}
	for i, c := range cols {
		if sql.Narrowed(c.Type) {
			props[sql.DeclaredTypePrefix+strconv.Itoa(i+1)] = c.Type.String()
		}
	}
	return props
}
