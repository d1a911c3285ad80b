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
