package lake

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ParquetSafeBatch returns rec (or a relabelled copy) fit for arrow-go's
// Parquet writer, consuming rec.
//
// arrow-go v18.8's byte-array statistics take each value as a sub-slice of
// the array's value buffer and treat a nil slice as "no value". A string or
// binary array whose values are all empty strings has an empty value buffer
// whose bytes are nil, so each of its empty strings is skipped: the row
// group's min ignores them, and Iceberg's lower bound (taken from those
// statistics) comes out above the empty string. Readers and deletes then
// prune a file that holds one. A non-nil empty value buffer makes the empty
// string count like any other value.
func ParquetSafeBatch(rec arrow.RecordBatch) arrow.RecordBatch {
	var cols []arrow.Array
	for i, c := range rec.Columns() {
		fixed, ok := parquetSafeData(c.Data())
		if !ok {
			continue
		}
		if cols == nil {
			cols = append([]arrow.Array(nil), rec.Columns()...)
		}
		cols[i] = array.MakeFromData(fixed)
		fixed.Release()
	}
	if cols == nil {
		return rec
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for i, c := range cols {
		if c != rec.Column(i) {
			c.Release()
		}
	}
	rec.Release()
	return out
}

// emptyValues is the shared non-nil empty value buffer (never written to).
var emptyValues = []byte{}

// parquetSafeData rebuilds d when it, or a child, is a byte-array column with
// a nil value buffer; ok is false when d is fine as it is.
func parquetSafeData(d arrow.ArrayData) (arrow.ArrayData, bool) {
	children := d.Children()
	var newChildren []arrow.ArrayData
	for i, ch := range children {
		fixed, ok := parquetSafeData(ch)
		if !ok {
			continue
		}
		if newChildren == nil {
			newChildren = append([]arrow.ArrayData(nil), children...)
		}
		newChildren[i] = fixed
	}
	bufs := d.Buffers()
	var newBufs []*memory.Buffer
	if isByteArray(d.DataType()) && len(bufs) == 3 && (bufs[2] == nil || bufs[2].Bytes() == nil) {
		newBufs = append([]*memory.Buffer(nil), bufs...)
		newBufs[2] = memory.NewBufferBytes(emptyValues)
	}
	if newChildren == nil && newBufs == nil {
		return nil, false
	}
	if newChildren == nil {
		newChildren = children
	}
	if newBufs == nil {
		newBufs = bufs
	}
	out := array.NewData(d.DataType(), d.Len(), newBufs, newChildren, d.NullN(), d.Offset())
	for i, ch := range newChildren {
		if ch != children[i] {
			ch.Release()
		}
	}
	return out, true
}

func isByteArray(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	}
	return false
}
