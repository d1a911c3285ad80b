package iceberg

import (
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// SchemaForSnapshot is the schema a read of snapID sees: that snapshot's own
// for time travel, the current one when snapID is nil.
func SchemaForSnapshot(tbl *table.Table, snapID *int64) *ice.Schema {
	return schemaForSnapshot(tbl, snapID)
}
