package lake

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
)

// TestAllTypesRoundTrip writes every primitive type in two appends and reads
// it back through Scan and, independently, through iceberg-go's scan.
func TestAllTypesRoundTrip(t *testing.T) {
	for _, fv := range []string{"2", "3"} {
		t.Run("v"+fv, func(t *testing.T) {
			ctx := context.Background()
			w := openTest(t, t.TempDir())
			cols := allTypeCols()
			ident := Ident("public", "all_types")
			if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, map[string]string{"format-version": fv}); err != nil {
				t.Fatal(err)
			}
			first, second := genRows(cols, 0, 25), genRows(cols, 25, 40)
			appendRows(t, w, ident, cols, first)
			tbl := appendRows(t, w, ident, cols, second)
			if got := tbl.Metadata().Version(); fv == "3" && got != 3 {
				t.Fatalf("format version %d", got)
			}
			want := append(append([]row{}, first...), second...)

			sc, got := scanAll(t, tbl, ScanOptions{})
			for i, c := range cols {
				f := sc.Field(i)
				if f.Name != c.name || !arrow.TypeEqual(f.Type, c.arrow) {
					t.Fatalf("field %d: got %s %s, want %s %s", i, f.Name, f.Type, c.name, c.arrow)
				}
			}
			assertSameRows(t, got, want)
			assertSameRows(t, icebergGoRows(t, tbl), want)
		})
	}
}

func TestScanProjectionOrderAndFilter(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()
	ident := Ident("public", "proj")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	rows := genRows(cols, 0, 30)
	appendRows(t, w, ident, cols, rows[:15])
	tbl := appendRows(t, w, ident, cols, rows[15:])

	sc, got := scanAll(t, tbl, ScanOptions{Columns: []string{"s", "id", "tstz", "s"}})
	var names []string
	for _, f := range sc.Fields() {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "s,id,tstz,s" {
		t.Fatalf("columns %v", names)
	}
	want := make([]row, len(rows))
	for i, r := range rows {
		want[i] = row{"s": r["s"], "id": r["id"], "tstz": r["tstz"]}
	}
	assertSameRows(t, got, want)

	// Filter prunes files: the first file's ids are all below 15.
	_, got = scanAll(t, tbl, ScanOptions{Columns: []string{"id"}, Filter: iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(15))})
	want = nil
	for _, r := range rows[15:] {
		want = append(want, row{"id": r["id"]})
	}
	assertSameRows(t, got, want)

	// Rows of files the filter keeps are returned whole: Filter is
	// two-valued, and iceberg-go's Arrow row filter would drop i IS NULL
	// rows for i <> 5 (and fails outright on some predicates).
	_, got = scanAll(t, tbl, ScanOptions{Columns: []string{"id", "i"}, Filter: iceberg.NotEqualTo(iceberg.Reference("i"), int32(5))})
	want = nil
	for _, r := range rows {
		want = append(want, row{"id": r["id"], "i": r["i"]})
	}
	assertSameRows(t, got, want)

	// No columns: row counts only.
	sc, batches, err := Scan(ctx, tbl, ScanOptions{Columns: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for rec, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	if sc.NumFields() != 0 || n != int64(len(rows)) {
		t.Fatalf("count scan: %d fields, %d rows", sc.NumFields(), n)
	}

	if _, _, err := Scan(ctx, tbl, ScanOptions{Columns: []string{"nope"}}); !errors.Is(err, ErrNoSuchColumn) {
		t.Fatalf("missing column: %v", err)
	}
}

func TestScanEmptyTableAndCancel(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()[:3]
	ident := Ident("public", "empty")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, got := scanAll(t, tbl, ScanOptions{})
	if len(got) != 0 || sc.NumFields() != 3 {
		t.Fatalf("empty table: %d rows, %d fields", len(got), sc.NumFields())
	}

	tbl = appendRows(t, w, ident, cols, genRows(cols, 0, 50))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, batches, err := Scan(cctx, tbl, ScanOptions{BatchSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	seen, sawCancel := 0, false
	for rec, err := range batches {
		if err != nil {
			sawCancel = errors.Is(err, context.Canceled)
			break
		}
		seen += int(rec.NumRows())
		rec.Release()
		cancel()
	}
	if !sawCancel || seen >= 50 {
		t.Fatalf("cancel: saw %d rows, cancelled error %v", seen, sawCancel)
	}
}
