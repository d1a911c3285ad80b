package dml

import (
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/sql"
)

// declaredTypes maps column positions of tbl to their declared types
// (sql/declared_types.go: varchar(n), char(n) and smallint, which Iceberg
// stores wider).
func declaredTypes(tbl *table.Table) map[int]sql.Type {
	return sql.DeclaredTypes(tbl.Properties(), tbl.Schema().Fields())
}
