package lake

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Page pruning tests: rgCols in row groups of 100 rows and data pages of
// 10 rows (write.parquet.page-size-bytes 1 flushes a page after every
// write batch of write.parquet.page-row-limit rows). File A holds ids
// 0..119 and has no delete file, so its row groups may be read by pages;
// file B holds 120..199 with the deletes of rgDeletedIDs in it, so it is
// read by iceberg-go's reader whatever its pages say.

const (
	pgGroupRows = 100
	pgPageRows  = 10
)

func pagedProps(v, groupRows int) map[string]string {
	return map[string]string{
		"format-version":                     fmt.Sprint(v),
		"write.parquet.row-group-limit":      fmt.Sprint(groupRows),
		"write.parquet.page-size-bytes":      "1",
		"write.parquet.page-row-limit":       fmt.Sprint(pgPageRows),
		"write.parquet.dict-size-bytes":      "1048576",
		"read.split.target-size":             "134217728",
		"commit.manifest.min-count-to-merge": "100",
	}
}

// pgTable returns the table and its live rows.
func pgTable(t *testing.T, v int) (*table.Table, []row) {
	t.Helper()
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := rgCols()
	ident := Ident("public", "pg")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, pagedProps(v, pgGroupRows)); err != nil {
		t.Fatal(err)
	}
	// Format 2's files come from iceberg-go's writer, which puts each
	// page's statistics in its header; format 3's from magmalake's, which
	// puts them in a page index: both ways of judging pages are checked.
	write := appendRows
	if v == 2 {
		write = appendRowsIcebergGo
	}
	write(t, w, ident, cols, genRows(cols, 0, 120))
	base := write(t, w, ident, cols, genRows(cols, 120, 200))
	ids, files := fileIDs(t, base)
	df := fileWithFirstID(t, ids, files, 120)
	var pos []int64
	deleted := map[int64]bool{}
	for _, id := range rgDeletedIDs {
		if p := slices.Index(ids[df.FilePath()], id); p >= 0 {
			pos = append(pos, int64(p))
			deleted[id] = true
		}
	}
	var del iceberg.DataFile
	if v >= 3 {
		del = writeDV(t, base, "del-b", df, pos)
	} else {
		del = writePosDeletes(t, base, "del-b", df, pos)
	}
	tbl, err := CommitChange(ctx, w.Catalog(), base, FileChange{AddDeletes: []iceberg.DataFile{del}})
	if err != nil {
		t.Fatal(err)
	}
	var live []row
	for _, r := range genRows(cols, 0, 200) {
		if !deleted[r["id"].(int64)] {
			live = append(live, r)
		}
	}
	return tbl, live
}

// checkPaged reads p through Scan and checks its rows against the model:
// every live row p holds for comes back with every value as written, no
// deleted one, and no more rows than the row groups and page ranges read
// hold.
func checkPaged(t *testing.T, tbl *table.Table, live []row, p modelPred) ScanStats {
	t.Helper()
	checkModel(t, tbl.Schema(), live, p)
	got, st := scanPred(t, tbl, p)
	for _, r := range got {
		if id := r["id"].(int64); id >= 120 && slices.Contains(rgDeletedIDs, id) {
			t.Fatalf("%s: deleted row %d returned", p, id)
		}
	}
	if bound := st.PagedRows + int64(st.RowGroupsRead-st.PagedRowGroups)*pgGroupRows; int64(len(got)) > bound {
		t.Fatalf("%s: %d rows from %+v", p, len(got), st)
	}
	if msg := diffRows(filterRows(got, p.eval), filterRows(live, p.eval)); msg != "" {
		t.Fatalf("%s: %s (stats %+v)", p, msg, st)
	}
	return st
}

// TestPagePruningModel: generated filters over every column kind read the
// model's rows with every value intact, whether their row groups are read
// whole, by page ranges, or dropped by their pages.
func TestPagePruningModel(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			tbl, live := pgTable(t, v)
			cols := rgCols()
			g := &predGen{rnd: rand.New(rand.NewPCG(7, uint64(v))), cols: cols, rows: genRows(cols, 0, 200), guard: true}
			paged := 0
			for range 300 {
				if st := checkPaged(t, tbl, live, g.pred(2)); st.PagedRowGroups > 0 {
					paged++
				}
			}
			if paged == 0 {
				t.Fatal("no generated filter was read by pages: the test proves nothing")
			}
			t.Logf("%d of 300 generated filters read row groups by pages", paged)
		})
	}
}

// TestPagePoint: point and narrow filters on the clustered id read only
// the pages holding their ids from file A; file B's row groups (deletes)
// are read whole.
func TestPagePoint(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			tbl, live := pgTable(t, v)
			id := rgCols()[0]
			for _, tc := range []struct {
				pred      modelPred
				pagedRows int64 // rows of file A's pages read
				groups    int   // row groups read
			}{
				{cmpPred(id, iceberg.OpEQ, int64(57)), 10, 1},
				{cmpPred(id, iceberg.OpEQ, int64(110)), 10, 1},
				{inPred(id, false, int64(5), int64(57), int64(95)), 30, 1},
				{andP(cmpPred(id, iceberg.OpGTEQ, int64(58)), cmpPred(id, iceberg.OpLTEQ, int64(71))), 30, 1},
				{inPred(id, false, int64(3), int64(105), int64(150)), 20, 3},
				// More than half of group 0's pages: read whole.
				{cmpPred(id, iceberg.OpLT, int64(70)), 0, 1},
			} {
				st := checkPaged(t, tbl, live, tc.pred)
				if st.PagedRows != tc.pagedRows || st.RowGroupsRead != tc.groups {
					t.Errorf("%s: %+v, want %d paged rows of %d row groups", tc.pred, st, tc.pagedRows, tc.groups)
				}
			}
		})
	}
}

// TestPageReadsInOrderAndStop: ten row groups each narrowed to one page
// come back in the file's order, and a consumer that stops after the first
// batch leaves no read running.
func TestPageReadsInOrderAndStop(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := rgCols()[:3]
	ident := Ident("public", "many")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, pagedProps(2, pgGroupRows)); err != nil {
		t.Fatal(err)
	}
	tbl := appendRows(t, w, ident, cols, genRows(cols, 0, 1000))
	var lits []any
	var want []int64
	for g := range 10 {
		lits = append(lits, int64(g*pgGroupRows+33))
		for id := g*pgGroupRows + 30; id < g*pgGroupRows+40; id++ {
			want = append(want, int64(id))
		}
	}
	p := inPred(cols[0], false, lits...)
	got, st := scanPred(t, tbl, p)
	if st.PagedRowGroups != 10 || st.PagedRows != 100 {
		t.Fatalf("%+v, want 10 row groups read by one page each", st)
	}
	var ids []int64
	for _, r := range got {
		ids = append(ids, r["id"].(int64))
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("read ids %v, want %v in order", ids, want)
	}

	before := runtime.NumGoroutine()
	for range 5 {
		_, batches, err := Scan(ctx, tbl, ScanOptions{Filter: p.expr, BatchSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range batches {
			if err != nil {
				t.Fatal(err)
			}
			rec.Release()
			break
		}
	}
	after := runtime.NumGoroutine()
	for i := 0; i < 1000 && after > before; i++ {
		runtime.Gosched()
		after = runtime.NumGoroutine()
	}
	if after > before {
		t.Fatalf("%d goroutines before the stopped scans, %d after", before, after)
	}
}

// TestPageReadsEvolvedSchema: a file written before a column was added
// and another was widened (int to long) reads the widened values through
// page ranges, and the added column's NULLs too (the file lacks the
// column: the page reader's projection fills it); the new file is read by
// pages with all.
func TestPageReadsEvolvedSchema(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	oldCols := []testCol{rgCols()[0], rgCols()[1]} // id, i (int)
	ident := Ident("public", "evolved")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(oldCols), TableSpec{}, pagedProps(2, pgGroupRows)); err != nil {
		t.Fatal(err)
	}
	appendRows(t, w, ident, oldCols, genRows(oldCols, 0, 200))
	_, err := w.Tables().EvolveSchema(ctx, ident, false, func(_ *table.Table, us *table.UpdateSchema) (map[string]string, []string, error) {
		us.AddColumn([]string{"extra"}, iceberg.PrimitiveTypes.String, "", false, nil)
		us.UpdateColumn([]string{"i"}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Valid: true, Val: iceberg.PrimitiveTypes.Int64}})
		return nil, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	newCols := []testCol{
		rgCols()[0],
		{"i", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, nullEvery(4, func(i int) any { return int64(i) << 33 })},
		{"extra", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, nullEvery(3, func(i int) any { return fmt.Sprintf("x%d", i) })},
	}
	tbl := appendRows(t, w, ident, newCols, genRows(newCols, 200, 400))

	widened := func(r row) row {
		if v, ok := r["i"].(int32); ok {
			r["i"] = int64(v)
		}
		return r
	}
	id := rgCols()[0]
	p := inPred(id, false, int64(57), int64(257))
	for _, tc := range []struct {
		cols      []string
		pagedRows int64
	}{
		{[]string{"id", "i"}, 20},
		{nil, 20},
	} {
		var want []row
		for _, r := range genRows(oldCols, 50, 60) {
			r = widened(r)
			if tc.cols == nil {
				r["extra"] = nil
			}
			want = append(want, r)
		}
		for _, r := range genRows(newCols, 250, 260) {
			if tc.cols != nil {
				delete(r, "extra")
			}
			want = append(want, r)
		}
		var st ScanStats
		_, got := scanAll(t, tbl, ScanOptions{Columns: tc.cols, Filter: p.expr, Stats: &st})
		if st.PagedRows != tc.pagedRows {
			t.Errorf("columns %v: %+v, want %d rows read by pages", tc.cols, st, tc.pagedRows)
		}
		inPages := func(r row) bool { id := r["id"].(int64); return id/10 == 5 || id/10 == 25 }
		if msg := diffRows(filterRows(got, inPages), want); msg != "" {
			t.Errorf("columns %v: %s", tc.cols, msg)
		}
	}
}
