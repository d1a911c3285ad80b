package wire

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// appendArrayBinary sends array text of type t in array_send's format: one
// dimension with lower bound 1, the element type's oid, then each element
// as its own binary value (length -1 for NULL).
func appendArrayBinary(buf []byte, t sql.Type, text string) []byte {
	ds, err := sql.ArrayDatums(text, t)
	if err != nil {
		return append(buf, text...) // unreadable: the text, as before arrays had types
	}
	be := binary.BigEndian
	elem := t.ElemType()
	hasNull := uint32(0)
	for _, d := range ds {
		if d == nil {
			hasNull = 1
		}
	}
	ndim := uint32(1)
	if len(ds) == 0 {
		ndim = 0
	}
	buf = be.AppendUint32(buf, ndim)
	buf = be.AppendUint32(buf, hasNull)
	buf = be.AppendUint32(buf, elem.OID())
	if ndim == 0 {
		return buf
	}
	buf = be.AppendUint32(buf, uint32(len(ds)))
	buf = be.AppendUint32(buf, 1)
	// The elements go through a one-value Arrow array so that each one is
	// encoded exactly as a column of the element type would be.
	bld := array.NewBuilder(memory.DefaultAllocator, elem.ArrowType())
	defer bld.Release()
	for _, d := range ds {
		if err := sql.AppendDatum(bld, elem, d); err != nil {
			return buf
		}
	}
	arr := bld.NewArray()
	defer arr.Release()
	for i := range ds {
		if arr.IsNull(i) {
			buf = be.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = be.AppendUint32(buf, 0)
		buf = appendBinary(buf, elem, arr, i)
		be.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf
}
