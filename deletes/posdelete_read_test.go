package deletes

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	iceio "github.com/apache/iceberg-go/io"
)

// TestReadPositionDeletes reads position delete files naming several data
// files, with file_path dictionary-encoded and plain, across row groups
// and batches: the positions by path are the ones written.
func TestReadPositionDeletes(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "file_path", Type: arrow.BinaryTypes.String},
		{Name: "pos", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	want := map[string][]int64{}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	for i := range int64(200_000) {
		p := fmt.Sprintf("file:///warehouse/t/data/%05d.parquet", i%7*i%13)
		b.Field(0).(*array.StringBuilder).Append(p)
		b.Field(1).(*array.Int64Builder).Append(i)
		want[p] = append(want[p], i)
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	for _, dict := range []bool{true, false} {
		t.Run(fmt.Sprintf("dictionary=%v", dict), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pos.parquet")
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(dict), parquet.WithMaxRowGroupLength(70_000))
			fw, err := pqarrow.NewFileWriter(sc, out, props, pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			if err := fw.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := fw.Close(); err != nil {
				t.Fatal(err)
			}
			rd := positionalReader{fs: iceio.LocalFS{}, mem: memory.DefaultAllocator}
			got, err := readPositionDeletes(context.Background(), rd, path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("read %d paths, want %d (or positions differ)", len(got), len(want))
			}
		})
	}
}
