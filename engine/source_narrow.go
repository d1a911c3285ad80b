package engine

import (
	"iter"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// narrowedBatches converts, in every batch of seq, the Iceberg int column
// of a column declared smallint to smallint values: the scope reads it as
// smallint (sql.ColumnTypes), so what the query computes from it and what
// clients are told is smallint. A value out of smallint's range (written by
// another engine) is 22003, as PostgreSQL's cast to smallint.
func narrowedBatches(seq iter.Seq2[arrow.RecordBatch, error], cols []sql.ScopeColumn) iter.Seq2[arrow.RecordBatch, error] {
	var narrow []int
	for i, c := range cols {
		if c.T.Kind == sql.KindInt16 {
			narrow = append(narrow, i)
		}
	}
	if len(narrow) == 0 {
		return seq
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err == nil {
				var nb arrow.RecordBatch
				nb, err = narrowBatch(b, narrow)
				b.Release()
				b = nb
			}
			if !yield(b, err) {
				if b != nil {
					b.Release()
				}
				return
			}
		}
	}
}

// narrowBatch is b with its int columns at cols made smallint.
func narrowBatch(b arrow.RecordBatch, cols []int) (arrow.RecordBatch, error) {
	arrs := append([]arrow.Array(nil), b.Columns()...)
	fields := append([]arrow.Field(nil), b.Schema().Fields()...)
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for _, c := range cols {
		in, ok := arrs[c].(*array.Int32)
		if !ok || c >= len(arrs) {
			continue
		}
		out, err := narrowInts(in)
		if err != nil {
			return nil, err
		}
		made = append(made, out)
		arrs[c] = out
		fields[c].Type = arrow.PrimitiveTypes.Int16
	}
	meta := b.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &meta), arrs, b.NumRows()), nil
}

func narrowInts(in *array.Int32) (arrow.Array, error) {
	bld := array.NewInt16Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.Reserve(in.Len())
	for i, v := range in.Int32Values() {
		if in.IsNull(i) {
			bld.AppendNull()
			continue
		}
		if v < math.MinInt16 || v > math.MaxInt16 {
			return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "smallint out of range")
		}
		bld.Append(int16(v))
	}
	return bld.NewArray(), nil
}
