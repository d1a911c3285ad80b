package lake

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// partCols has one source column per transform under test.
func partCols() []testCol {
	return []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, nullEvery(7, func(i int) any { return fmt.Sprintf("k%d", i%3) })},
		{"s2", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, func(i int) any { return fmt.Sprintf("%c%cxyz", 'a'+i%2, 'a'+i%4) }},
		{"n", iceberg.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, func(i int) any { return int32(i*13 - 100) }},
		{"d", iceberg.PrimitiveTypes.Date, arrow.FixedWidthTypes.Date32, func(i int) any { return arrow.Date32(-400 + i*97) }},
		{"ts", iceberg.PrimitiveTypes.Timestamp, &arrow.TimestampType{Unit: arrow.Microsecond},
			func(i int) any { return arrow.Timestamp(1_600_000_000_000_000 + int64(i)*20*86_400_000_000) }},
		{"tstz", iceberg.PrimitiveTypes.TimestampTz, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			nullEvery(9, func(i int) any { return arrow.Timestamp(-86_400_000_000 + int64(i)*30_000_000_000) })},
		{"ts2", iceberg.PrimitiveTypes.Timestamp, &arrow.TimestampType{Unit: arrow.Microsecond},
			func(i int) any { return arrow.Timestamp(int64(i) * 1_700_000_000) }},
	}
}

func partSpec() TableSpec {
	return TableSpec{Fields: []PartitionField{
		{Source: "id", Transform: iceberg.BucketTransform{NumBuckets: 4}},
		{Source: "s", Transform: iceberg.IdentityTransform{}},
		{Source: "s2", Transform: iceberg.TruncateTransform{Width: 2}},
		{Source: "n", Transform: iceberg.TruncateTransform{Width: 50}},
		{Source: "d", Transform: iceberg.YearTransform{}},
		{Source: "ts", Transform: iceberg.MonthTransform{}},
		{Source: "tstz", Transform: iceberg.DayTransform{}},
		{Source: "ts2", Transform: iceberg.HourTransform{}},
	}}
}

// expectedPartition computes a row's partition tuple independently of
// iceberg-go (bucket excluded: it needs murmur3).
func expectedPartition(r row) map[string]any {
	floorDiv := func(a, b int64) int64 {
		q := a / b
		if a%b != 0 && a < 0 {
			q--
		}
		return q
	}
	civil := func(us int64) time.Time { return time.UnixMicro(us).UTC() }
	months := func(tm time.Time) int32 { return int32((tm.Year()-1970)*12 + int(tm.Month()) - 1) }
	out := map[string]any{"s": r["s"]}
	out["s2_trunc"] = r["s2"].(string)[:2]
	n := int64(r["n"].(int32))
	out["n_trunc"] = int32(n - ((n%50)+50)%50)
	out["d_year"] = int32(civil(int64(r["d"].(arrow.Date32))*86_400_000_000).Year() - 1970)
	out["ts_month"] = months(civil(int64(r["ts"].(arrow.Timestamp))))
	if v, ok := r["tstz"].(arrow.Timestamp); ok {
		out["tstz_day"] = int32(floorDiv(int64(v), 86_400_000_000))
	} else {
		out["tstz_day"] = nil
	}
	out["ts2_hour"] = int32(floorDiv(int64(r["ts2"].(arrow.Timestamp)), 3_600_000_000))
	return out
}

func TestPartitionTransformsRoundTrip(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := partCols()
	ident := Ident("public", "parts")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), partSpec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := tbl.Spec()
	if spec.NumFields() != 8 {
		t.Fatalf("spec has %d fields", spec.NumFields())
	}
	first, second := genRows(cols, 0, 20), genRows(cols, 20, 32)
	appendRows(t, w, ident, cols, first)
	tbl = appendRows(t, w, ident, cols, second)
	want := append(append([]row{}, first...), second...)

	_, got := scanAll(t, tbl, ScanOptions{})
	assertSameRows(t, got, want)
	assertSameRows(t, icebergGoRows(t, tbl), want)

	// Every file's partition tuple must match the transform of each of its rows.
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byField := map[int]string{}
	for _, f := range spec.Fields() {
		byField[f.FieldID] = f.Name
	}
	checked := 0
	for _, task := range tasks {
		part := task.File.Partition()
		_, recs, err := tbl.Scan().ReadTasks(ctx, []table.FileScanTask{task})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range collectRows(t, recs) {
			exp := expectedPartition(r)
			for id, name := range byField {
				e, ok := exp[name]
				if !ok {
					continue
				}
				if g := part[id]; fmt.Sprint(g) != fmt.Sprint(e) {
					t.Fatalf("row %v: partition %s = %v, want %v", r["id"], name, g, e)
				}
				checked++
			}
		}
	}
	if checked != len(want)*7 {
		t.Fatalf("checked %d partition values", checked)
	}

	// Partition pruning still returns exactly the matching rows.
	filter := iceberg.EqualTo(iceberg.Reference("s"), "k1")
	_, got = scanAll(t, tbl, ScanOptions{Filter: filter})
	var wantK1 []row
	for _, r := range want {
		if r["s"] == "k1" {
			wantK1 = append(wantK1, r)
		}
	}
	assertSameRows(t, got, wantK1)
}

func TestConcurrentAppendsAllLand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w1 := openTest(t, dir)
	w2 := openTest(t, dir) // a second server process on the same data dir
	cols := allTypeCols()[:3]
	ident := Ident("public", "conc")
	if _, err := w1.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	const writers, appends, per = 2, 4, 3
	var wg sync.WaitGroup
	errs := make(chan error, writers*appends)
	for g := range writers {
		w := []*Warehouse{w1, w2}[g]
		wg.Go(func() {
			for a := range appends {
				base := (g*appends + a) * per
				tbl, err := w.LoadTable(ctx, ident)
				if err != nil {
					errs <- err
					return
				}
				rec := buildBatch(t, cols, genRows(cols, base, base+per))
				files, err := WriteDataFiles(ctx, tbl, oneBatch(rec))
				if err == nil {
					_, err = Append(ctx, w, ident, files, nil)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tbl, err := w1.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	_, got := scanAll(t, tbl, ScanOptions{})
	assertSameRows(t, got, genRows(cols, 0, writers*appends*per))
	if n := len(tbl.Metadata().Snapshots()); n != writers*appends {
		t.Fatalf("%d snapshots, want %d", n, writers*appends)
	}
}

// failingBatches yields good batches, then an error.
func failingBatches(t *testing.T, cols []testCol, good int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for i := range good {
			if !yield(buildBatch(t, cols, genRows(cols, i*10, i*10+10)), nil) {
				return
			}
		}
		yield(nil, errors.New("injected failure"))
	}
}

func TestFailedWriteLeavesNoFiles(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	for _, c := range []struct {
		name string
		spec TableSpec
		cols []testCol
	}{
		{"unpartitioned", TableSpec{}, allTypeCols()},
		{"partitioned", partSpec(), partCols()},
	} {
		t.Run(c.name, func(t *testing.T) {
			ident := Ident("public", c.name)
			tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(c.cols), c.spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			dir := strings.TrimPrefix(tbl.Location(), "file://")
			files, err := WriteDataFiles(ctx, tbl, failingBatches(t, c.cols, 3))
			if err == nil || !strings.Contains(err.Error(), "injected failure") || files != nil {
				t.Fatalf("got files %v, err %v", files, err)
			}
			if n := countFiles(t, dir, ".parquet"); n != 0 {
				t.Fatalf("%d data files left behind", n)
			}
			// The table is untouched and still writable.
			tbl = appendRows(t, w, ident, c.cols, genRows(c.cols, 0, 5))
			_, got := scanAll(t, tbl, ScanOptions{})
			assertSameRows(t, got, genRows(c.cols, 0, 5))
		})
	}
}

func TestFailedAppendRemovesFiles(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()[:3]
	ident := Ident("public", "t")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteDataFiles(ctx, tbl, oneBatch(buildBatch(t, cols, genRows(cols, 0, 5))))
	if err != nil || len(files) == 0 {
		t.Fatalf("write: %v", err)
	}
	dir := strings.TrimPrefix(tbl.Location(), "file://")
	// A file listed twice is rejected before committing.
	if _, err := Append(ctx, w, ident, append(files, files...), nil); err == nil {
		t.Fatal("duplicate files accepted")
	}
	if n := countFiles(t, dir, ".parquet"); n != 0 {
		t.Fatalf("%d data files left after failed append", n)
	}
	// A cancelled statement commits nothing and removes its files.
	files, err = WriteDataFiles(ctx, tbl, oneBatch(buildBatch(t, cols, genRows(cols, 0, 5))))
	if err != nil || countFiles(t, dir, ".parquet") == 0 {
		t.Fatalf("write: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Append(cctx, w, ident, files, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled append: %v", err)
	}
	if n := countFiles(t, dir, ".parquet"); n != 0 {
		t.Fatalf("%d data files left after cancelled append", n)
	}
	tbl, err = w.LoadTable(ctx, ident)
	if err != nil || tbl.CurrentSnapshot() != nil {
		t.Fatalf("table changed by failed append: %v", err)
	}
	// RemoveFiles of already-removed files is not an error.
	fs, err := FS(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveFiles(ctx, fs, filePaths(files)); err != nil {
		t.Fatal(err)
	}
}
