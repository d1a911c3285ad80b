package deletes

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/lake"
)

// planDynamic plans a dynamic partition overwrite: every data file of the
// current spec whose partition tuple one of the added files has is removed
// whole, unread; a file of an older spec is read and its rows whose tuple
// under the current spec is replaced are deleted row by row.
func planDynamic(ctx context.Context, head *table.Table, added []iceberg.DataFile, opts PlanOptions) ([]RowDelete, error) {
	opts = opts.withDefaults()
	spec := head.Spec()
	keys := map[string]bool{}
	for _, f := range added {
		if f.SpecID() != int32(spec.ID()) {
			return nil, fmt.Errorf("partition spec changed from %d to %d during the overwrite: %w", f.SpecID(), spec.ID(), ErrConflict)
		}
		keys[partitionKey(&spec, f.Partition())] = true
	}
	if len(keys) == 0 {
		return nil, nil
	}
	groups, err := planTasks(ctx, head, Predicate{}, opts)
	if err != nil {
		return nil, err
	}
	tm, err := newTupleMatcher(head.Schema(), &spec, keys)
	if err != nil {
		return nil, err
	}
	p, err := newPlanner(ctx, head, Predicate{Filter: iceberg.AlwaysTrue{}, Columns: tm.columns, Match: tm.match}, opts)
	if err != nil {
		return nil, err
	}
	results := make([]*RowDelete, len(groups))
	err = forEachParallel(ctx, len(groups), p.workers(), func(ctx context.Context, i int) error {
		r, err := p.planDynamicFile(ctx, groups[i], &spec, keys)
		results[i] = r
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []RowDelete
	for _, r := range results {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

// planDynamicFile decides one data file; nil means it stays.
func (p *planner) planDynamicFile(ctx context.Context, tasks []table.FileScanTask, spec *iceberg.PartitionSpec, keys map[string]bool) (*RowDelete, error) {
	df := tasks[0].File
	current := df.SpecID() == int32(spec.ID())
	if current && !keys[partitionKey(spec, df.Partition())] {
		return nil, nil
	}
	ex, err := p.ix.load(ctx, df.FilePath(), tasks)
	if err != nil {
		return nil, fmt.Errorf("existing deletes of %s: %w", df.FilePath(), err)
	}
	r := &RowDelete{Task: tasks[0], File: df, Existing: ex.positions, Superseded: ex.superseded,
		PositionDeleteFiles: ex.posFiles, eqDeleted: dv.NewRoaringPositionBitmap(), posTargets: ex.posTargets}
	if current {
		err = p.planWhole(ctx, r, ex)
	} else {
		err = p.planRead(ctx, r, ex)
	}
	if err != nil || r.Deleted() == 0 {
		return nil, err
	}
	return r, nil
}

// partitionKey encodes a partition tuple of spec so that equal tuples give
// equal strings whichever way the values were produced (writer or manifest).
func partitionKey(spec *iceberg.PartitionSpec, part map[int]any) string {
	var sb strings.Builder
	for _, f := range spec.Fields() {
		sb.WriteString(lake.PartitionValueKey(part[f.FieldID]))
		sb.WriteByte('|')
	}
	return sb.String()
}

// tupleMatcher computes each row's partition tuple under a spec and tests
// it against a set of keys.
type tupleMatcher struct {
	fields  []iceberg.PartitionField // the spec's, collected once (Fields copies each)
	keys    map[string]bool
	columns []string // source columns, in the order Match receives them
	colOf   []int    // per spec field: index into columns
	types   []iceberg.Type
}

func newTupleMatcher(sc *iceberg.Schema, spec *iceberg.PartitionSpec, keys map[string]bool) (*tupleMatcher, error) {
	tm := &tupleMatcher{keys: keys}
	index := map[int]int{}
	for _, f := range spec.Fields() {
		if len(f.SourceIDs) != 1 {
			return nil, fmt.Errorf("partition field %s: multi-argument transforms are not supported", f.Name)
		}
		src, ok := sc.FindFieldByID(f.SourceIDs[0])
		if !ok {
			return nil, fmt.Errorf("partition field %s: source column %d not in schema", f.Name, f.SourceIDs[0])
		}
		i, seen := index[src.ID]
		if !seen {
			i = len(tm.columns)
			index[src.ID] = i
			tm.columns = append(tm.columns, src.Name)
		}
		tm.fields = append(tm.fields, f)
		tm.colOf = append(tm.colOf, i)
		tm.types = append(tm.types, src.Type)
	}
	return tm, nil
}

func (tm *tupleMatcher) match(_ context.Context, b arrow.RecordBatch) ([]bool, error) {
	out := make([]bool, b.NumRows())
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		if err := lake.PartitionRowKey(&sb, tm.fields, tm.colOf, tm.types, b, i); err != nil {
			return nil, err
		}
		out[i] = tm.keys[sb.String()]
	}
	return out, nil
}
