package engine

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeArray is a new array of arr's values at idx, in idx's order; an index
// below zero is a NULL (the missing side of an outer join). Fixed-width,
// boolean and string/binary columns are copied buffer to buffer, without a
// builder call or a type switch per value; extension columns (numeric,
// uuid) through their storage; anything else value by value.
func takeArray(mem memory.Allocator, arr arrow.Array, idx []int32) (arrow.Array, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		st, err := takeArray(mem, ext.Storage(), idx)
		if err != nil {
			return nil, err
		}
		defer st.Release()
		return array.NewExtensionArrayWithStorage(ext.ExtensionType(), st), nil
	}
	var data *array.Data
	switch dt := arr.DataType().(type) {
	case *arrow.NullType: // a join's placeholder for a column no one reads
		return array.NewNull(len(idx)), nil
	case *arrow.BooleanType:
		data = takeBools(mem, arr, idx)
	case *arrow.StringType, *arrow.BinaryType:
		data = takeBinary(mem, arr, idx)
	case arrow.FixedWidthDataType:
		data = takeFixed(mem, arr, idx, dt.BitWidth())
	}
	if data == nil {
		return takeByValue(mem, arr, idx)
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

// takeValidity is the validity bitmap of the taken values (nil when all are
// valid) and how many are NULL.
func takeValidity(mem memory.Allocator, arr arrow.Array, idx []int32) (*memory.Buffer, int) {
	srcNulls := arr.NullN() > 0
	need := srcNulls
	if !need {
		for _, j := range idx {
			if j < 0 {
				need = true
				break
			}
		}
	}
	if !need {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bits := buf.Bytes()
	clear(bits)
	nulls := 0
	for i, j := range idx {
		if j >= 0 && (!srcNulls || arr.IsValid(int(j))) {
			bitutil.SetBit(bits, i)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

func takeFixed(mem memory.Allocator, arr arrow.Array, idx []int32, bits int) *array.Data {
	if bits%8 != 0 || len(arr.Data().Buffers()) < 2 {
		return nil
	}
	width := bits / 8
	switch width {
	case 1, 2, 4, 8, 16:
	default:
		return nil
	}
	validity, nulls := takeValidity(mem, arr, idx)
	if validity != nil {
		defer validity.Release()
	}
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(len(idx) * width)
	d := arr.Data()
	switch width {
	case 1:
		copyTaken(arrow.GetValues[uint8](d, 1), arrow.GetData[uint8](vals.Bytes()), idx)
	case 2:
		copyTaken(arrow.GetValues[uint16](d, 1), arrow.GetData[uint16](vals.Bytes()), idx)
	case 4:
		copyTaken(arrow.GetValues[uint32](d, 1), arrow.GetData[uint32](vals.Bytes()), idx)
	case 8:
		copyTaken(arrow.GetValues[uint64](d, 1), arrow.GetData[uint64](vals.Bytes()), idx)
	case 16:
		copyTaken(arrow.GetValues[decimal128.Num](d, 1), arrow.GetData[decimal128.Num](vals.Bytes()), idx)
	}
	return array.NewData(arr.DataType(), len(idx), []*memory.Buffer{validity, vals}, nil, nulls, 0)
}

// copyTaken sets dst[i] = src[idx[i]], the zero value for a NULL index.
func copyTaken[T any](src, dst []T, idx []int32) {
	var zero T
	for i, j := range idx {
		if j < 0 {
			dst[i] = zero
			continue
		}
		dst[i] = src[j]
	}
}

func takeBools(mem memory.Allocator, arr arrow.Array, idx []int32) *array.Data {
	validity, nulls := takeValidity(mem, arr, idx)
	if validity != nil {
		defer validity.Release()
	}
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	out := vals.Bytes()
	clear(out)
	src := arr.(*array.Boolean)
	for i, j := range idx {
		if j >= 0 && src.Value(int(j)) {
			bitutil.SetBit(out, i)
		}
	}
	return array.NewData(arr.DataType(), len(idx), []*memory.Buffer{validity, vals}, nil, nulls, 0)
}

func takeBinary(mem memory.Allocator, arr arrow.Array, idx []int32) *array.Data {
	d := arr.Data()
	if len(d.Buffers()) < 3 || d.Buffers()[1] == nil {
		return nil
	}
	validity, nulls := takeValidity(mem, arr, idx)
	if validity != nil {
		defer validity.Release()
	}
	srcOff := arrow.GetOffsets[int32](d, 1)
	var srcBytes []byte
	if b := d.Buffers()[2]; b != nil {
		srcBytes = b.Bytes()
	}
	total := 0
	for _, j := range idx {
		if j >= 0 {
			total += int(srcOff[j+1] - srcOff[j])
		}
	}
	offs := memory.NewResizableBuffer(mem)
	defer offs.Release()
	offs.Resize((len(idx) + 1) * 4)
	out := arrow.GetData[int32](offs.Bytes())
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(total)
	dst := vals.Bytes()
	pos := int32(0)
	for i, j := range idx {
		out[i] = pos
		if j >= 0 {
			pos += int32(copy(dst[pos:], srcBytes[srcOff[j]:srcOff[j+1]]))
		}
	}
	out[len(idx)] = pos
	return array.NewData(arr.DataType(), len(idx), []*memory.Buffer{validity, offs, vals}, nil, nulls, 0)
}

// takeByValue is takeArray for the types without a buffer copy.
func takeByValue(mem memory.Allocator, arr arrow.Array, idx []int32) (arrow.Array, error) {
	b := array.NewBuilder(mem, arr.DataType())
	defer b.Release()
	b.Reserve(len(idx))
	for _, j := range idx {
		if j < 0 {
			b.AppendNull()
			continue
		}
		if err := AppendFrom(b, arr, int(j)); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// takeBatch is the rows of b at idx (none below zero), every column taken.
func takeBatch(mem memory.Allocator, b arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, b.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		var err error
		if cols[c], err = takeArray(mem, b.Column(c), idx); err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(b.Schema(), cols, int64(len(idx))), nil
}
