// Package rowruns filters Arrow batches by runs of kept rows.
package rowruns

import (
	"context"
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A rewrite keeps most rows of a batch: scattered deletes leave long runs
// of survivors, and a WHERE that rejects a few rows leaves long runs too.
// Copying those runs with one memmove each costs a fraction of arrow's
// generic filter kernel, which decides row by row (it was a tenth of
// OPTIMIZE's CPU on the maintenance bench). Columns of other types (nested,
// dictionary, views) go through the kernel.

// Run is a run of kept rows, [Start, Start+N) of the batch.
type Run struct{ Start, N int }

// BitmapRuns lists the runs of set bits of keep in [base, base+n), as batch
// rows from 0, skipping whole bytes where it can.
func BitmapRuns(keep []byte, base, n int) []Run {
	var runs []Run
	open := -1
	for i := 0; i < n; {
		bit := base + i
		if bit%8 == 0 && i+8 <= n {
			switch keep[bit/8] {
			case 0xFF:
				if open < 0 {
					open = i
				}
				i += 8
				continue
			case 0:
				if open >= 0 {
					runs = append(runs, Run{Start: open, N: i - open})
					open = -1
				}
				i += 8
				continue
			}
		}
		set := bitutil.BitIsSet(keep, bit)
		switch {
		case set && open < 0:
			open = i
		case !set && open >= 0:
			runs = append(runs, Run{Start: open, N: i - open})
			open = -1
		}
		i++
	}
	if open >= 0 {
		runs = append(runs, Run{Start: open, N: n - open})
	}
	return runs
}

// Copy copies the rows of b in runs (kept rows in all) into a new
// batch; ok is false when a column's type has no run copy here.
func Copy(b arrow.RecordBatch, runs []Run, kept int) (arrow.RecordBatch, bool) {
	cols := make([]arrow.Array, 0, b.NumCols())
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for _, c := range b.Columns() {
		out, ok := copyRuns(c.Data(), runs, kept)
		if !ok {
			release()
			return nil, false
		}
		cols = append(cols, array.MakeFromData(out))
		out.Release()
	}
	rb := array.NewRecordBatch(b.Schema(), cols, int64(kept))
	release()
	return rb, true
}

// copyRuns copies one flat column's runs: validity bits, then values.
func copyRuns(d arrow.ArrayData, runs []Run, kept int) (arrow.ArrayData, bool) {
	mem := memory.DefaultAllocator
	if len(d.Buffers()) < 2 || d.Buffers()[1] == nil {
		return nil, false
	}
	var values []*memory.Buffer
	typ := d.DataType()
	if ext, ok := typ.(arrow.ExtensionType); ok {
		typ = ext.StorageType() // a uuid is its 16 bytes
	}
	switch dt := typ.(type) {
	case *arrow.DictionaryType:
		return nil, false
	case *arrow.BooleanType:
		values = []*memory.Buffer{copyBits(mem, d.Buffers()[1], d.Offset(), runs, kept)}
	case *arrow.StringType, *arrow.BinaryType:
		values = copyVarBinary(mem, d, runs, kept)
	case arrow.FixedWidthDataType:
		if dt.BitWidth()%8 != 0 || len(d.Buffers()) != 2 || len(d.Children()) > 0 {
			return nil, false
		}
		values = []*memory.Buffer{copyFixed(mem, d.Buffers()[1], d.Offset(), dt.BitWidth()/8, runs, kept)}
	default:
		return nil, false
	}
	var validity *memory.Buffer
	nulls := 0
	if d.NullN() != 0 && d.Buffers()[0] != nil { // -1: a slice's count is not known yet
		validity = copyBits(mem, d.Buffers()[0], d.Offset(), runs, kept)
		nulls = kept - bitutil.CountSetBits(validity.Bytes(), 0, kept)
	}
	out := array.NewData(d.DataType(), kept, append([]*memory.Buffer{validity}, values...), nil, nulls, 0)
	for _, buf := range out.Buffers() {
		if buf != nil {
			buf.Release() // out holds its own reference
		}
	}
	return out, true
}

func copyFixed(mem memory.Allocator, src *memory.Buffer, offset, width int, runs []Run, kept int) *memory.Buffer {
	out := memory.NewResizableBuffer(mem)
	out.Resize(kept * width)
	dst, from := out.Bytes(), src.Bytes()
	at := 0
	for _, r := range runs {
		at += copy(dst[at:], from[(offset+r.Start)*width:(offset+r.Start+r.N)*width])
	}
	return out
}

func copyBits(mem memory.Allocator, src *memory.Buffer, offset int, runs []Run, kept int) *memory.Buffer {
	out := memory.NewResizableBuffer(mem)
	out.Resize(int(bitutil.BytesForBits(int64(kept))))
	dst, from := out.Bytes(), src.Bytes()
	at := 0
	for _, r := range runs {
		copyBitRun(dst, at, from, offset+r.Start, r.N)
		at += r.N
	}
	return out
}

// copyBitRun ors n bits of src from bit from into the zeroed dst at bit at,
// eight at a time: bitutil.CopyBitmap sets up word readers per call, which
// costs more than the copy for runs of a few hundred bits.
func copyBitRun(dst []byte, at int, src []byte, from, n int) {
	for n >= 8 && from>>3+1 < len(src) && at>>3+1 < len(dst) {
		b := byte((uint(src[from>>3]) | uint(src[from>>3+1])<<8) >> (from & 7))
		s := at & 7
		dst[at>>3] |= b << s
		if s != 0 {
			dst[at>>3+1] |= b >> (8 - s)
		}
		from, at, n = from+8, at+8, n-8
	}
	for ; n > 0; n-- {
		if src[from>>3]&(1<<(from&7)) != 0 {
			dst[at>>3] |= 1 << (at & 7)
		}
		from, at = from+1, at+1
	}
}

// copyVarBinary copies the offsets (rebased to the new data) and the bytes
// of each run of a string or binary column.
func copyVarBinary(mem memory.Allocator, d arrow.ArrayData, runs []Run, kept int) []*memory.Buffer {
	offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
	var src []byte
	if d.Buffers()[2] != nil {
		src = d.Buffers()[2].Bytes()
	}
	size := 0
	for _, r := range runs {
		size += int(offs[r.Start+r.N] - offs[r.Start])
	}
	outOffs := memory.NewResizableBuffer(mem)
	outOffs.Resize(arrow.Int32Traits.BytesRequired(kept + 1))
	outData := memory.NewResizableBuffer(mem)
	outData.Resize(size)
	o, data := arrow.Int32Traits.CastFromBytes(outOffs.Bytes()), outData.Bytes()
	at, pos := 0, int32(0)
	for _, r := range runs {
		first := offs[r.Start]
		for i := 0; i < r.N; i++ {
			o[at+i] = pos + offs[r.Start+i] - first
		}
		n := copy(data[pos:], src[first:offs[r.Start+r.N]])
		at += r.N
		pos += int32(n)
	}
	o[at] = pos
	return []*memory.Buffer{outOffs, outData}
}

// Filter keeps the rows of b whose keep entry is true, copying runs
// where every column's type allows it and through arrow's filter kernel
// otherwise. Besides being cheaper, the run copy stays on the calling
// goroutine: arrow's kernels hand their result over a channel from a
// goroutine of their own, which under load waits for the scheduler at every
// call (a contended DELETE calls it for every cached file).
func Filter(ctx context.Context, b arrow.RecordBatch, keep []bool) (arrow.RecordBatch, error) {
	runs, kept := MaskRuns(keep)
	if kept == len(keep) {
		b.Retain()
		return b, nil
	}
	if out, ok := Copy(b, runs, kept); ok {
		return out, nil
	}
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer bld.Release()
	bld.AppendValues(keep, nil)
	mask := bld.NewArray()
	defer mask.Release()
	return compute.FilterRecordBatch(ctx, b, mask, compute.DefaultFilterOptions())
}

// MaskRuns lists the runs of true in keep, and how many there are. It
// reads keep eight entries at a time where they agree: a selective WHERE
// leaves long stretches of false, a loose one of true.
func MaskRuns(keep []bool) (runs []Run, kept int) {
	open := -1 // start of the run being read, -1 outside one
	w := boolWords(keep)
	for i := 0; i < len(keep); {
		if i%8 == 0 && i/8 < len(w) {
			switch w[i/8] {
			case 0:
				if open >= 0 {
					runs = append(runs, Run{Start: open, N: i - open})
					kept += i - open
					open = -1
				}
				i += 8
				continue
			case allTrue:
				if open < 0 {
					open = i
				}
				i += 8
				continue
			}
		}
		switch k := keep[i]; {
		case k && open < 0:
			open = i
		case !k && open >= 0:
			runs = append(runs, Run{Start: open, N: i - open})
			kept += i - open
			open = -1
		}
		i++
	}
	if open >= 0 {
		runs = append(runs, Run{Start: open, N: len(keep) - open})
		kept += len(keep) - open
	}
	return runs, kept
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// allTrue is eight true bools read as one word.
const allTrue = 0x0101010101010101

// boolWords is keep's first len(keep)/8*8 entries read eight to a word:
// a bool is one byte holding 0 or 1, so a word's byte k is entry 8j+k
// and its set bits count the true entries. On a big-endian machine the
// bytes would read in the other order: there it is empty, and callers
// read entry by entry.
func boolWords(keep []bool) []uint64 {
	if len(keep) < 8 || !littleEndian {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(keep))), len(keep)/8)
}

// Shape counts keep's true entries and its runs of them, eight at a time:
// enough to choose between copying runs and gathering rows before listing
// either.
func Shape(keep []bool) (kept, runs int) {
	prev := uint64(0) // the entry before the word, in byte 0
	w := boolWords(keep)
	for _, x := range w {
		kept += bits.OnesCount64(x)
		runs += bits.OnesCount64(x &^ (x<<8 | prev))
		prev = x >> 56
	}
	last := prev == 1
	for _, k := range keep[len(w)*8:] {
		if k {
			kept++
			if !last {
				runs++
			}
		}
		last = k
	}
	return kept, runs
}

// Kept lists the rows of keep that are true (kept of them), skipping
// eight false entries at a time.
func Kept(keep []bool, kept int) []int32 {
	idx := make([]int32, 0, kept)
	w := boolWords(keep)
	for j, x := range w {
		for ; x != 0; x &= x - 1 {
			idx = append(idx, int32(8*j+bits.TrailingZeros64(x)/8))
		}
	}
	for i := len(w) * 8; i < len(keep); i++ {
		if keep[i] {
			idx = append(idx, int32(i))
		}
	}
	return idx
}
