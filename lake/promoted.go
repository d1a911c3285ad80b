package lake

import (
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// refersToPromoted reports a filter on a column whose type was widened
// (int to long, float to double): files written before keep 4-byte bounds
// and partition values of the narrower type, which neither decode nor
// compare as the new type. Such filters plan unpruned (PlanFiles); callers
// re-check rows.
func refersToPromoted(tbl *table.Table, filter iceberg.BooleanExpression) bool {
	promoted := PromotedFields(tbl)
	if len(promoted) == 0 {
		return false
	}
	bound, err := iceberg.BindExpr(tbl.Schema(), filter, false)
	if err != nil {
		return true
	}
	ids, err := iceberg.ExtractFieldIDs(bound)
	if err != nil {
		return true
	}
	for _, id := range ids {
		if promoted[id] {
			return true
		}
	}
	return false
}

// PromotedFields are the current schema's fields whose type an older
// schema of the table had narrower.
func PromotedFields(tbl *table.Table) map[int]bool {
	out := map[int]bool{}
	cur := tbl.Schema()
	for _, old := range tbl.Metadata().Schemas() {
		if old.ID == cur.ID {
			continue
		}
		for _, f := range cur.Fields() {
			if was, ok := old.FindFieldByID(f.ID); ok && !was.Type.Equals(f.Type) {
				out[f.ID] = true
			}
		}
	}
	return out
}
