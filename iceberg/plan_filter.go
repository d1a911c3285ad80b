package iceberg

import (
	"context"
	"fmt"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// PlanFilter is the filter to plan a scan of snapshot snapID (nil: current)
// with: filter itself, or AlwaysTrue when manifest pruning cannot be trusted.
//
// iceberg-go v0.7.0 writes a string partition value "" as a missing summary
// bound (StringLiteral.MarshalBinary of "" is a nil slice, stored as null),
// and its manifest evaluator reads a missing bound as "every value is null":
// an equality or range filter then skips the whole manifest, and the rows in
// it. Such manifests are planned without a filter; callers re-check rows.
func PlanFilter(ctx context.Context, tbl *table.Table, snapID *int64, filter ice.BooleanExpression) (ice.BooleanExpression, error) {
	if filter == nil {
		return ice.AlwaysTrue{}, nil
	}
	if refersToPromoted(tbl, filter) {
		return ice.AlwaysTrue{}, nil
	}
	snap := tbl.CurrentSnapshot()
	if snapID != nil {
		snap = tbl.Metadata().SnapshotByID(*snapID)
	}
	if snap == nil {
		return filter, nil
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan filter: %w", err)
	}
	manifests, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("plan filter: read manifest list: %w", err)
	}
	for _, m := range manifests {
		if missingStringBound(tbl, m) {
			return ice.AlwaysTrue{}, nil
		}
	}
	return filter, nil
}

// refersToPromoted reports a filter on a column whose type was widened
// (int to long, float to double): files written before keep 4-byte bounds,
// which iceberg-go v0.7.0 decodes as the new type and fails on ("expected
// 8 bytes"). Such filters plan unpruned; callers re-check rows.
func refersToPromoted(tbl *table.Table, filter ice.BooleanExpression) bool {
	promoted := PromotedFields(tbl)
	if len(promoted) == 0 {
		return false
	}
	bound, err := ice.BindExpr(tbl.Schema(), filter, false)
	if err != nil {
		return true
	}
	ids, err := ice.ExtractFieldIDs(bound)
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

// missingStringBound reports a string or binary partition field whose
// manifest summary lacks a bound: possibly an "" value, see PlanFilter.
func missingStringBound(tbl *table.Table, m ice.ManifestFile) bool {
	if m.ManifestContent() != ice.ManifestContentData {
		return false
	}
	spec := tbl.Metadata().PartitionSpecByID(int(m.PartitionSpecID()))
	if spec == nil {
		return true
	}
	fields := spec.PartitionType(tbl.Schema()).FieldList
	for i, s := range m.Partitions() {
		if i >= len(fields) {
			break
		}
		switch fields[i].Type.(type) {
		case ice.StringType, ice.BinaryType, ice.FixedType:
			if s.LowerBound == nil || s.UpperBound == nil {
				return true
			}
		}
	}
	return false
}
