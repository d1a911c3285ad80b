package lake

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// idBatches yields ids [0, n) of a one-column table in batches of 10,000
// rows (the writer cuts row groups across batches).
func idBatches(n int) iter.Seq2[arrow.RecordBatch, error] {
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for lo := 0; lo < n; lo += 10_000 {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for i := lo; i < min(lo+10_000, n); i++ {
				b.Append(int64(i))
			}
			col := b.NewArray()
			b.Release()
			rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len()))
			col.Release()
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// writeIDs creates table name with props, appends ids [0, n) as one data
// file and returns the table and the sizes of that file's row groups.
func writeIDs(t *testing.T, w *Warehouse, name string, props map[string]string, n int) (*table.Table, []int64) {
	t.Helper()
	ctx := context.Background()
	ident := Ident("public", name)
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	tbl, err := w.Tables().CreateTable(ctx, ident, sc, TableSpec{}, props)
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteDataFiles(ctx, tbl, idBatches(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("%d data files, want 1", len(files))
	}
	if tbl, err = Append(ctx, w, ident, files, nil); err != nil {
		t.Fatal(err)
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	md, err := readFooter(fs, files[0].FilePath(), files[0].FileSizeBytes())
	if err != nil {
		t.Fatal(err)
	}
	var groups []int64
	for rg := range md.NumRowGroups() {
		groups = append(groups, md.RowGroup(rg).NumRows())
	}
	return tbl, groups
}

// TestCreateTableRowGroupLimit: a table CreateTable makes records the
// default row-group limit, so its data files hold several row groups and a
// point lookup on a clustered column reads one of them; a limit the caller
// sets wins.
func TestCreateTableRowGroupLimit(t *testing.T) {
	w := openTest(t, t.TempDir())
	const rgs = DefaultRowGroupRows
	n := 2*rgs + rgs/2
	tbl, groups := writeIDs(t, w, "dflt", nil, n)
	if got := tbl.Properties()[PropRowGroupLimit]; got != strconv.Itoa(rgs) {
		t.Fatalf("%s = %q, want %d", PropRowGroupLimit, got, rgs)
	}
	if want := []int64{rgs, rgs, rgs / 2}; fmt.Sprint(groups) != fmt.Sprint(want) {
		t.Fatalf("row groups of %v rows, want %v", groups, want)
	}

	id := int64(rgs + 17) // in the second row group
	var st ScanStats
	_, rows := scanAll(t, tbl, ScanOptions{Filter: iceberg.EqualTo(iceberg.Reference("id"), id), Stats: &st})
	if st.DataFiles != 1 || st.RowGroups != 3 || st.RowGroupsRead != 1 || st.PagedRowGroups != 1 {
		t.Fatalf("point lookup planned %+v, want 1 file, 1 of 3 row groups, read by pages", st)
	}
	// Scan returns the rows of the pages that may hold id: a run of ids in
	// the second row group, a page or two of about DefaultPageRows rows.
	first, last := rows[0]["id"].(int64), rows[len(rows)-1]["id"].(int64)
	if int64(len(rows)) != st.PagedRows || last-first+1 != st.PagedRows || first > id || last < id ||
		first < rgs || last >= 2*rgs || len(rows) > 2*DefaultPageRows {
		t.Fatalf("read %d rows (%d .. %d), want the pages of the second row group holding %d", len(rows), first, last, id)
	}

	tbl, groups = writeIDs(t, w, "own", map[string]string{PropRowGroupLimit: "1000"}, 2500)
	if got := tbl.Properties()[PropRowGroupLimit]; got != "1000" {
		t.Fatalf("%s = %q, want the caller's 1000", PropRowGroupLimit, got)
	}
	if want := []int64{1000, 1000, 500}; fmt.Sprint(groups) != fmt.Sprint(want) {
		t.Fatalf("row groups of %v rows, want %v", groups, want)
	}
}
