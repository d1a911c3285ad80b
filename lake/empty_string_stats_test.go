package lake

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
)

// TestEmptyStringBoundsOfPartitionedWrites: a partition whose empty strings
// come in one batch and other values in another still records the empty
// string as the column's minimum, in the Parquet statistics and as no lower
// bound above it in the manifest. iceberg-go takes each partition's rows out
// of a batch, and a take of nothing but empty strings had a value buffer
// arrow-go's statistics skip: the file claimed min 'c', and a filter on the empty string pruned
// it (a DML diff against PostgreSQL found the row never updated).
func TestEmptyStringBoundsOfPartitionedWrites(t *testing.T) {
	partitioned := TableSpec{Fields: []PartitionField{{Source: "g", Transform: iceberg.IdentityTransform{}}, {Source: "id", Transform: iceberg.BucketTransform{NumBuckets: 2}}}}
	for name, c := range map[string]struct {
		spec    TableSpec
		batches [][]row
	}{
		// Ids 6 and 9 share bucket and g; each batch also feeds other
		// partitions, so iceberg-go takes rows out of both.
		"partitioned": {partitioned, [][]row{
			{{"id": int64(6), "g": int32(3), "s": ""}, {"id": int64(1), "g": int32(0), "s": "x"}},
			{{"id": int64(9), "g": int32(3), "s": "c"}, {"id": int64(2), "g": int32(1), "s": "y"}},
		}},
		// No take: the batch of only an empty string is written as it is.
		"unpartitioned": {TableSpec{}, [][]row{
			{{"id": int64(6), "g": int32(3), "s": ""}},
			{{"id": int64(9), "g": int32(3), "s": "c"}},
		}},
	} {
		t.Run(name, func(t *testing.T) { checkEmptyStringBounds(t, c.spec, c.batches) })
	}
}

func checkEmptyStringBounds(t *testing.T, spec TableSpec, batches [][]row) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, nil},
		{"g", iceberg.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, nil},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, nil},
	}
	ident := Ident("public", "empties")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := func(yield func(arrow.RecordBatch, error) bool) {
		for _, rows := range batches {
			if !yield(takeShaped(buildBatch(t, cols, rows)), nil) {
				return
			}
		}
	}
	files, err := WriteDataFiles(ctx, tbl, iter.Seq2[arrow.RecordBatch, error](in))
	if err != nil {
		t.Fatal(err)
	}
	sID := 3
	checked := 0
	for _, df := range files {
		pr, err := file.OpenParquetFile(strings.TrimPrefix(df.FilePath(), "file://"), false)
		if err != nil {
			t.Fatal(err)
		}
		values := columnStrings(t, pr, 2)
		hasEmpty := false
		for _, v := range values {
			hasEmpty = hasEmpty || v == ""
		}
		if !hasEmpty {
			pr.Close()
			continue
		}
		checked++
		for g := 0; g < pr.NumRowGroups(); g++ {
			cc, _ := pr.MetaData().RowGroup(g).ColumnChunk(2)
			st, err := cc.Statistics()
			if err != nil {
				t.Fatal(err)
			}
			if bs, ok := st.(*metadata.ByteArrayStatistics); ok && bs.HasMinMax() && len(bs.Min()) != 0 {
				t.Fatalf("%s holds %q but its row group %d says min %q", df.FilePath(), values, g, bs.Min())
			}
		}
		pr.Close()
		if lb, ok := df.LowerBoundValues()[sID]; ok && len(lb) != 0 {
			t.Fatalf("%s holds %q but its lower bound for s is %q", df.FilePath(), values, lb)
		}
	}
	if checked != 1 {
		t.Fatalf("%d files hold the empty string, want 1", checked)
	}
	if _, err := Append(ctx, w, ident, files, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err = w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	// The filter prunes files and row groups; rows of kept ones all come back.
	_, got := scanAll(t, tbl, ScanOptions{Filter: iceberg.EqualTo(iceberg.Reference("s"), "")})
	if !slices.ContainsFunc(got, func(r row) bool { return r["id"] == int64(6) }) {
		t.Fatalf("s = '' scans %v: the file holding id 6 was pruned", got)
	}
}

// takeShaped gives each string column without value bytes the buffer a take
// kernel leaves (a buffer whose bytes are nil), as batches the executor
// filtered or gathered have; a builder leaves none at all.
func takeShaped(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := c.Data()
		if bufs := d.Buffers(); c.DataType().ID() == arrow.STRING && (bufs[2] == nil || bufs[2].Len() == 0) {
			nd := array.NewData(d.DataType(), d.Len(), []*memory.Buffer{bufs[0], bufs[1], memory.NewBufferBytes(nil)}, nil, d.NullN(), d.Offset())
			cols[i] = array.MakeFromData(nd)
			nd.Release()
			continue
		}
		c.Retain()
		cols[i] = c
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	rec.Release()
	return out
}

// columnStrings reads column col of a Parquet file as strings ("" for NULL
// too is fine here: the test's values have no NULLs).
func columnStrings(t *testing.T, pr *file.Reader, col int) []string {
	t.Helper()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	at, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	var out []string
	for _, c := range at.Column(col).Data().Chunks() {
		a := c.(*array.String)
		for i := 0; i < a.Len(); i++ {
			out = append(out, a.Value(i))
		}
	}
	return out
}
