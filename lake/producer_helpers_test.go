package lake

import (
	"context"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// pcCols is the producer tests' table: p is an identity partition that
// cycles every ten ids, so ids 0..9 and 100..104 share partition 0.
func pcCols() []testCol {
	return []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }},
		{"p", iceberg.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, func(i int) any { return int32((i / 10) % 10) }},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, func(i int) any { return fmt.Sprintf("s%d", i) }},
	}
}

// createPCTable creates public.<name> partitioned by p at format version v.
func createPCTable(t *testing.T, w *Warehouse, name string, v int) table.Identifier {
	t.Helper()
	ident := Ident(DefaultNamespace, name)
	spec := TableSpec{Fields: []PartitionField{{Source: "p", Transform: iceberg.IdentityTransform{}}}}
	props := map[string]string{propFormatVersion: fmt.Sprint(v)}
	if _, err := w.Tables().CreateTable(context.Background(), ident, icebergSchema(pcCols()), spec, props); err != nil {
		t.Fatalf("create: %v", err)
	}
	return ident
}

// writeRows writes rows [from, to) as data files without committing them.
func writeRows(t *testing.T, tbl *table.Table, from, to int) []iceberg.DataFile {
	t.Helper()
	cols := pcCols()
	files, err := WriteDataFiles(context.Background(), tbl, oneBatch(buildBatch(t, cols, genRows(cols, from, to))))
	if err != nil {
		t.Fatalf("write rows %d..%d: %v", from, to, err)
	}
	return files
}

// fileIDs maps each live data file of tbl to its ids in file order, read one
// task at a time through iceberg-go's scan (no deletes exist yet when used).
func fileIDs(t *testing.T, tbl *table.Table) (map[string][]int64, map[string]iceberg.DataFile) {
	t.Helper()
	ctx := context.Background()
	scan := tbl.Scan()
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, files := map[string][]int64{}, map[string]iceberg.DataFile{}
	for _, task := range tasks {
		_, batches, err := scan.ReadTasks(ctx, []table.FileScanTask{task})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range collectRows(t, batches) {
			ids[task.File.FilePath()] = append(ids[task.File.FilePath()], r["id"].(int64))
		}
		files[task.File.FilePath()] = task.File
	}
	return ids, files
}

// fileWithFirstID finds the data file whose first row has id.
func fileWithFirstID(t *testing.T, ids map[string][]int64, files map[string]iceberg.DataFile, id int64) iceberg.DataFile {
	t.Helper()
	for p, got := range ids {
		if len(got) > 0 && got[0] == id {
			return files[p]
		}
	}
	t.Fatalf("no data file starts with id %d", id)
	return nil
}

func writeFS(t *testing.T, tbl *table.Table) iceio.WriteFileIO {
	t.Helper()
	fs, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fs.(iceio.WriteFileIO)
}

// writeDV writes a Puffin file holding one deletion vector for target with
// exactly positions (a superseding vector lists the old positions too).
func writeDV(t *testing.T, tbl *table.Table, name string, target iceberg.DataFile, positions []int64) iceberg.DataFile {
	t.Helper()
	meta := tbl.Metadata()
	w := dv.NewDVWriter(writeFS(t, tbl), func(id int32) *iceberg.PartitionSpec { return meta.PartitionSpecByID(int(id)) })
	if err := w.Add(target.FilePath(), positions, target.SpecID(), target.Partition()); err != nil {
		t.Fatal(err)
	}
	loc, err := tbl.LocationProvider()
	if err != nil {
		t.Fatal(err)
	}
	files, err := w.Flush(context.Background(), loc.NewDataLocation(name+".puffin"))
	if err != nil || len(files) != 1 {
		t.Fatalf("flush dv: %v (%d files)", err, len(files))
	}
	return files[0]
}

// writePosDeletes writes a v2 position delete file for target, as the
// delete engine does: file_path/pos columns, target's spec and partition.
func writePosDeletes(t *testing.T, tbl *table.Table, name string, target iceberg.DataFile, positions []int64) iceberg.DataFile {
	t.Helper()
	sc := table.PositionalDeleteArrowSchema
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bld.Release()
	for _, p := range positions {
		bld.Field(0).(*array.StringBuilder).Append(target.FilePath())
		bld.Field(1).(*array.Int64Builder).Append(p)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	path, size, md := writeParquetFile(t, tbl, name, sc, rec)
	ref := target.FilePath()
	df, err := table.DataFileFromMetadata(table.DataFileArgs{
		Schema: iceberg.PositionalDeleteSchema, Spec: *tbl.Metadata().PartitionSpecByID(int(target.SpecID())),
		Format: iceberg.ParquetFile, Metadata: md, FilePath: path, FileSize: size, Content: iceberg.EntryContentPosDeletes,
		PartitionValues: target.Partition(), FormatVersion: tbl.Metadata().Version(), ReferencedDataFile: &ref,
	})
	if err != nil {
		t.Fatal(err)
	}
	return df
}

// writeParquetFile writes rec, of Arrow schema sc, as the data file
// name.parquet of tbl: its path, size and Parquet metadata.
func writeParquetFile(t *testing.T, tbl *table.Table, name string, sc *arrow.Schema, rec arrow.RecordBatch) (string, int64, *metadata.FileMetaData) {
	t.Helper()
	loc, err := tbl.LocationProvider()
	if err != nil {
		t.Fatal(err)
	}
	path := loc.NewDataLocation(name + ".parquet")
	out, err := writeFS(t, tbl).Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cw := &countingWriter{w: out}
	fw, err := pqarrow.NewFileWriter(sc, cw, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	md, err := fw.FileMetadata()
	if err != nil {
		t.Fatal(err)
	}
	return path, cw.n, md
}

// inspectRows reads an Inspect table into flat rows: top-level columns by
// name, and the fields of a data_file struct as "data_file.<name>".
func inspectRows(t *testing.T, read func(context.Context) (array.RecordReader, error)) []map[string]any {
	t.Helper()
	rdr, err := read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var out []map[string]any
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := range int(rec.NumRows()) {
			r := map[string]any{}
			for c, f := range rec.Schema().Fields() {
				flattenValue(r, f.Name, rec.Column(c), i)
			}
			out = append(out, r)
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func flattenValue(r map[string]any, name string, arr arrow.Array, i int) {
	if arr.IsNull(i) {
		r[name] = nil
		return
	}
	switch a := arr.(type) {
	case *array.Int32:
		r[name] = int64(a.Value(i))
	case *array.Int64:
		r[name] = a.Value(i)
	case *array.String:
		r[name] = a.Value(i)
	case *array.LargeString:
		r[name] = a.Value(i)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for f := range st.NumFields() {
			flattenValue(r, name+"."+st.Field(f).Name, a.Field(f), i)
		}
	}
}

// avroFiles lists the manifest and manifest-list files under tbl's location.
func avroFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	root := strings.TrimPrefix(tbl.Location(), "file://")
	var out []string
	err := filepath.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".avro") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func snapshotCount(tbl *table.Table) int { return len(tbl.Metadata().Snapshots()) }
