package lake

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/magmalake/magmalake/internal/arrowtest"
)

// TestColumnsWriter writes the same batches (of uneven sizes, crossing row
// group boundaries) with the parallel columns writer and with pqarrow's own
// buffered writer: both files read back as the batches, with the same row
// groups and the same statistics per column chunk.
func TestColumnsWriter(t *testing.T) {
	sc := arrowtest.EveryLeafSchema()
	if !flatSchema(sc) {
		t.Fatal("every leaf type must count as flat")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var batches []arrow.RecordBatch
	for _, n := range []int{700, 1, 2500, 0, 1300, 999} {
		batches = append(batches, arrowtest.RandomBatch(sc, n, rng))
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1000), parquet.WithDataPageSize(4096),
		parquet.WithBatchSize(300), parquet.WithStats(true))

	var got, want bytes.Buffer
	cw, err := newColumnsWriter(sc, &got, props)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(sc, &want, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		b.Retain()
		if err := cw.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := fw.WriteBuffered(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}

	gotMeta, wantMeta := footer(t, got.Bytes()), footer(t, want.Bytes())
	if gotMeta.NumRowGroups() != wantMeta.NumRowGroups() || gotMeta.NumRowGroups() != 6 {
		t.Fatalf("row groups: %d, pqarrow's %d, want 6", gotMeta.NumRowGroups(), wantMeta.NumRowGroups())
	}
	for rg := range gotMeta.NumRowGroups() {
		g, w := gotMeta.RowGroup(rg), wantMeta.RowGroup(rg)
		if g.NumRows() != w.NumRows() {
			t.Fatalf("row group %d: %d rows, pqarrow's %d", rg, g.NumRows(), w.NumRows())
		}
		for c := range sc.NumFields() {
			gc, _ := g.ColumnChunk(c)
			wc, _ := w.ColumnChunk(c)
			gs, _ := gc.Statistics()
			ws, _ := wc.Statistics()
			if gs == nil || ws == nil || gs.NullCount() != ws.NullCount() || !bytes.Equal(gs.EncodeMin(), ws.EncodeMin()) || !bytes.Equal(gs.EncodeMax(), ws.EncodeMax()) {
				t.Errorf("row group %d column %s: statistics differ from pqarrow's", rg, sc.Field(c).Name)
			}
		}
	}
	tbl, ref := readAll(t, got.Bytes()), readAll(t, want.Bytes())
	defer tbl.Release()
	defer ref.Release()
	if tbl.NumRows() != 5500 || ref.NumRows() != 5500 {
		t.Fatalf("read %d rows (pqarrow's file %d), wrote 5500", tbl.NumRows(), ref.NumRows())
	}
	for c := range sc.NumFields() {
		if !array.ChunkedEqual(tbl.Column(c).Data(), ref.Column(c).Data()) {
			t.Errorf("column %s reads back differently from pqarrow's file", sc.Field(c).Name)
		}
	}
	// And the values are the batches' (an int64 column of random values).
	ids := tbl.Column(4).Data()
	var off int64
	for _, b := range batches {
		part := array.NewChunkedSlice(ids, off, off+b.NumRows())
		whole := arrow.NewChunked(b.Column(4).DataType(), []arrow.Array{b.Column(4)})
		if !array.ChunkedEqual(part, whole) {
			t.Fatalf("column %s rows %d.. read back differently", sc.Field(4).Name, off)
		}
		part.Release()
		whole.Release()
		off += b.NumRows()
	}
}

// TestColumnsWriterConforms: a batch whose column types differ from the
// file's (a large string where the file has a string) is cast, and one
// that cannot be is refused.
func TestColumnsWriterConforms(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	other := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true}}, nil)
	var buf bytes.Buffer
	cw, err := newColumnsWriter(sc, &buf, parquet.NewWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, other)
	b.Field(0).(*array.LargeStringBuilder).AppendValues([]string{"a", "b"}, nil)
	b.Field(0).AppendNull()
	if err := cw.Write(b.NewRecordBatch()); err != nil {
		t.Fatal(err)
	}
	b.Release()
	bad := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.PrimitiveTypes.Int64}, {Name: "t", Type: arrow.PrimitiveTypes.Int64}}, nil)
	bb := array.NewRecordBuilder(memory.DefaultAllocator, bad)
	if err := cw.Write(bb.NewRecordBatch()); err == nil {
		t.Fatal("a batch of two columns was written to a one-column file")
	}
	bb.Release()
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	tbl := readAll(t, buf.Bytes())
	defer tbl.Release()
	col := tbl.Column(0).Data().Chunk(0).(*array.String)
	if tbl.NumRows() != 3 || col.Value(0) != "a" || col.Value(1) != "b" || !col.IsNull(2) {
		t.Fatalf("read back %v", col)
	}
}

func footer(t *testing.T, data []byte) *metadata.FileMetaData {
	t.Helper()
	pr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	return pr.MetaData()
}

func readAll(t *testing.T, data []byte) arrow.Table {
	t.Helper()
	pr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
