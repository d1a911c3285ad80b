package lake

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
)

// iceberg-go's partitioned writer takes each partition's rows out of a
// batch (Arrow's take kernel) unless the whole batch is one partition. A
// take whose string values are all empty has a value buffer with nil bytes,
// which arrow-go's statistics skip (see ParquetSafeBatch): when another
// batch adds other values to the same file, its min is wrong ('c' for a
// file holding '' and 'c'), and so is the Iceberg lower bound taken from
// it; `s = ''` then prunes the file, here and in every other engine. So a
// batch holding an empty string is split here into one batch per partition,
// each made safe, which iceberg-go writes as they are. Batches without one
// (nearly all) pass untouched.

// partitionSplitter splits batches of one write by partition tuple.
type partitionSplitter struct {
	fields []iceberg.PartitionField
	cols   []int // per spec field: the batch column of its source
	types  []iceberg.Type
}

// newPartitionSplitter is nil when batches need no splitting: an
// unpartitioned spec, or one with a source this cannot evaluate (a nested
// column, a multi-argument transform), where the writer goes on as before.
func newPartitionSplitter(sc *iceberg.Schema, spec iceberg.PartitionSpec, target *arrow.Schema) *partitionSplitter {
	if spec.IsUnpartitioned() {
		return nil
	}
	s := &partitionSplitter{}
	for _, f := range spec.Fields() {
		if len(f.SourceIDs) > 1 {
			return nil
		}
		src, ok := sc.FindFieldByID(f.SourceID())
		if !ok {
			return nil
		}
		idx := target.FieldIndices(src.Name)
		if len(idx) != 1 {
			return nil
		}
		s.fields = append(s.fields, f)
		s.cols = append(s.cols, idx[0])
		s.types = append(s.types, src.Type)
	}
	return s
}

// split returns rec as one batch per partition if it holds an empty string
// (consuming rec), else rec alone.
func (s *partitionSplitter) split(ctx context.Context, rec arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	if s == nil || !hasEmptyBytes(rec) {
		return []arrow.RecordBatch{rec}, nil
	}
	groups, ok := s.groups(rec)
	if !ok || len(groups) < 2 {
		return []arrow.RecordBatch{rec}, nil
	}
	defer rec.Release()
	out := make([]arrow.RecordBatch, 0, len(groups))
	for _, rows := range groups {
		part, err := takeRows(ctx, rec, rows)
		if err != nil {
			for _, b := range out {
				b.Release()
			}
			return nil, err
		}
		out = append(out, ParquetSafeBatch(part))
	}
	return out, nil
}

// groups are the rows of each partition tuple, in order of first row; false
// when a source value has no literal (the batch is then left whole).
func (s *partitionSplitter) groups(rec arrow.RecordBatch) ([][]int64, bool) {
	index := map[string]int{}
	var groups [][]int64
	var sb strings.Builder
	for i := 0; i < int(rec.NumRows()); i++ {
		sb.Reset()
		if PartitionRowKey(&sb, s.fields, s.cols, s.types, rec, i) != nil {
			return nil, false
		}
		g, ok := index[sb.String()]
		if !ok {
			g = len(groups)
			index[sb.String()] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], int64(i))
	}
	return groups, true
}

func takeRows(ctx context.Context, rec arrow.RecordBatch, rows []int64) (arrow.RecordBatch, error) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(rows, nil)
	idx := b.NewArray()
	defer idx.Release()
	out, err := compute.Take(ctx, *compute.DefaultTakeOptions(), compute.NewDatumWithoutOwning(rec), compute.NewDatumWithoutOwning(idx))
	if err != nil {
		return nil, err
	}
	return out.(*compute.RecordDatum).Value, nil
}

// hasEmptyBytes reports whether a string or binary column of rec, at any
// depth, holds an empty value.
func hasEmptyBytes(rec arrow.RecordBatch) bool {
	for _, c := range rec.Columns() {
		if dataHasEmptyBytes(c.Data()) {
			return true
		}
	}
	return false
}

func dataHasEmptyBytes(d arrow.ArrayData) bool {
	for _, ch := range d.Children() {
		if dataHasEmptyBytes(ch) {
			return true
		}
	}
	if !isByteArray(d.DataType()) {
		return false
	}
	arr := array.MakeFromData(d)
	defer arr.Release()
	type lengths interface {
		arrow.Array
		ValueLen(int) int
	}
	a, ok := arr.(lengths)
	if !ok {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if a.ValueLen(i) == 0 && a.IsValid(i) {
			return true
		}
	}
	return false
}
