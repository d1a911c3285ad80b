package deletes

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
)

// projectionMemo remembers, per file batch schema, that projecting onto the
// requested schema only relabels the file's columns (the same arrays, under
// the output schema's names and field ids) and adds all-null ones (columns
// the file lacks, such as v3's row lineage before a rewrite): the common
// case of a file written in the table's current schema. A rewrite of
// thousands of small files then works the projection out once instead of
// walking the schemas for every batch. Only flat schemas are memoised:
// arrow's Field.Equal compares the metadata (field ids) of top-level fields,
// not of nested children. Safe for concurrent use by a rewrite's readers.
type projectionMemo struct {
	mu      sync.Mutex
	relabel []relabelling
}

type relabelling struct {
	requested *iceberg.Schema
	in, out   *arrow.Schema
	src       []int // the input column of each output column; -1: all null
}

// project gives rec projected by a known relabelling, or false.
func (m *projectionMemo) project(requested *iceberg.Schema, rec arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, bool) {
	if m == nil {
		return nil, false
	}
	r, ok := m.lookup(requested, rec.Schema())
	if !ok {
		return nil, false
	}
	n := rec.NumRows()
	cols := make([]arrow.Array, len(r.src))
	for i, j := range r.src {
		if j >= 0 {
			cols[i] = rec.Column(j)
			cols[i].Retain()
		} else {
			cols[i] = array.MakeArrayOfNull(mem, r.out.Field(i).Type, int(n))
		}
	}
	out := array.NewRecordBatch(r.out, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, true
}

func (m *projectionMemo) lookup(requested *iceberg.Schema, in *arrow.Schema) (relabelling, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.relabel {
		if r.requested == requested && r.in.Equal(in) {
			return r, true
		}
	}
	return relabelling{}, false
}

// learn records the projection of rec into out, when it was a relabelling
// of a flat schema.
func (m *projectionMemo) learn(requested *iceberg.Schema, rec, out arrow.RecordBatch) {
	if m == nil {
		return
	}
	src, ok := relabels(rec, out)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.relabel) < 16 { // files of a few schema versions at most
		m.relabel = append(m.relabel, relabelling{requested: requested, in: rec.Schema(), out: out.Schema(), src: src})
	}
}

// relabels finds each of out's columns among rec's flat columns (the same
// buffers, type, offset and length) or all null.
func relabels(rec, out arrow.RecordBatch) ([]int, bool) {
	if rec.NumRows() != out.NumRows() || rec.NumRows() == 0 {
		return nil, false
	}
	for _, c := range rec.Columns() {
		if !flat(c.DataType()) {
			return nil, false
		}
	}
	ids := map[string]bool{}
	for _, f := range rec.Schema().Fields() {
		id, ok := f.Metadata.GetValue(fieldIDKey)
		if !ok {
			return nil, false // columns matched by name: any could be cast
		}
		ids[id] = true
	}
	src := make([]int, out.NumCols())
	for i, c := range out.Columns() {
		src[i] = -1
		for j, in := range rec.Columns() {
			if sameArray(in.Data(), c.Data()) {
				src[i] = j
				break
			}
		}
		if src[i] >= 0 {
			continue
		}
		// Null only because the file lacks the field: a column cast from
		// the file's can be null in one batch and not in the next.
		id, ok := out.Schema().Field(i).Metadata.GetValue(fieldIDKey)
		if !ok || ids[id] || !flat(c.DataType()) || c.NullN() != c.Len() {
			return nil, false
		}
	}
	return src, true
}

// fieldIDKey is the Arrow field metadata key of an Iceberg field id.
const fieldIDKey = "PARQUET:field_id"

func flat(dt arrow.DataType) bool {
	_, nested := dt.(arrow.NestedType)
	return !nested && dt.ID() != arrow.DICTIONARY && dt.ID() != arrow.EXTENSION
}

func sameArray(a, b arrow.ArrayData) bool {
	if !arrow.TypeEqual(a.DataType(), b.DataType()) || a.Offset() != b.Offset() || a.Len() != b.Len() {
		return false
	}
	ab, bb := a.Buffers(), b.Buffers()
	if len(ab) != len(bb) {
		return false
	}
	for j := range ab {
		if ab[j] != bb[j] {
			return false
		}
	}
	return true
}
