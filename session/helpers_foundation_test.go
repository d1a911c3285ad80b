package session

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/sql"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/stmt"
)

// Canonical values: both the models in these tests and the engine's Arrow
// results are reduced to these strings, so comparisons never go through the
// engine's own text formatting.
//
//	NULL, b:true, i:<int>, f:<float64 'g'>, n:<big.Rat>, s:<text>, x:<hex>,
//	d:<days since epoch>, t:<µs of day>, ts:<µs since epoch>, u:<hex>
const fndNull = "NULL"

// fndCell canonicalises row i of arr.
func fndCell(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return fndNull
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return fmt.Sprintf("b:%t", a.Value(i))
	case *array.Int16:
		return fmt.Sprintf("i:%d", a.Value(i))
	case *array.Int32:
		return fmt.Sprintf("i:%d", a.Value(i))
	case *array.Int64:
		return fmt.Sprintf("i:%d", a.Value(i))
	case *array.Float32:
		return fndFloat(float64(a.Value(i)))
	case *array.Float64:
		return fndFloat(a.Value(i))
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return fndRat(new(big.Rat).SetFrac(a.Value(i).BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	case *sql.NumericArray:
		return fndRat(a.Decimal(i).Rat())
	case *array.String:
		return "s:" + a.Value(i)
	case *array.LargeString:
		return "s:" + a.Value(i)
	case *array.Binary:
		return "x:" + hex.EncodeToString(a.Value(i))
	case *array.LargeBinary:
		return "x:" + hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return fmt.Sprintf("d:%d", a.Value(i))
	case *array.Time64:
		return fmt.Sprintf("t:%d", a.Value(i))
	case *array.Timestamp:
		if a.DataType().(*arrow.TimestampType).Unit != arrow.Microsecond {
			return "unexpected timestamp unit " + a.DataType().String()
		}
		return fmt.Sprintf("ts:%d", a.Value(i))
	case *extensions.UUIDArray:
		return "u:" + hex.EncodeToString(a.Storage().(*array.FixedSizeBinary).Value(i))
	case *array.FixedSizeBinary:
		return "u:" + hex.EncodeToString(a.Value(i))
	}
	return "unexpected " + arr.DataType().String()
}

func fndFloat(f float64) string { return "f:" + strconv.FormatFloat(f, 'g', -1, 64) }

func fndRat(r *big.Rat) string { return "n:" + r.RatString() }

// fndRows runs q through the session and canonicalises every cell.
func fndRows(t *testing.T, s *Session, q string) ([]stmt.Column, [][]string) {
	t.Helper()
	cols, rows, err := fndTryRows(t.Context(), s, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return cols, rows
}

func fndTryRows(ctx context.Context, s *Session, q string) ([]stmt.Column, [][]string, error) {
	p, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		return nil, nil, err
	}
	if res.Rows == nil {
		return nil, nil, fmt.Errorf("%s: no rows", q)
	}
	defer res.Rows.Close()
	var rows [][]string
	for {
		b, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			return res.Columns, rows, nil
		}
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, fndBatch(b)...)
	}
}

func fndBatch(b arrow.RecordBatch) [][]string {
	out := make([][]string, b.NumRows())
	for r := range out {
		out[r] = make([]string, b.NumCols())
		for c := range out[r] {
			out[r][c] = fndCell(b.Column(c), r)
		}
	}
	return out
}

// fndIcebergRows reads the table through iceberg-go's own scan, not
// magmalake's, and canonicalises every cell in table column order.
func fndIcebergRows(t *testing.T, s *Session, schema, name string) [][]string {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident(schema, name))
	if err != nil {
		t.Fatal(err)
	}
	return fndScanTable(t, tbl, nil)
}

func fndScanTable(t *testing.T, tbl *table.Table, snapshotID *int64) [][]string {
	t.Helper()
	var opts []table.ScanOption
	if snapshotID != nil {
		opts = append(opts, table.WithSnapshotID(*snapshotID))
	}
	at, err := tbl.Scan(opts...).ToArrowTable(t.Context())
	if err != nil {
		t.Fatalf("iceberg-go scan of %v: %v", tbl.Identifier(), err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	var rows [][]string
	for tr.Next() {
		rows = append(rows, fndBatch(tr.RecordBatch())...)
	}
	return rows
}

// fndSorted sorts rows lexicographically: for comparing as multisets.
func fndSorted(rows [][]string) [][]string {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

// fndSameRows reports the first difference between two row lists, "" if none.
// approx marks columns compared numerically within 1e-9 (avg results).
func fndSameRows(got, want [][]string, approx map[int]bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d rows, want %d\ngot:  %v\nwant: %v", len(got), len(want), fndHead(got), fndHead(want))
	}
	for r := range got {
		if len(got[r]) != len(want[r]) {
			return fmt.Sprintf("row %d: got %d columns, want %d", r, len(got[r]), len(want[r]))
		}
		for c := range got[r] {
			if got[r][c] == want[r][c] || (approx[c] && fndClose(got[r][c], want[r][c])) {
				continue
			}
			return fmt.Sprintf("row %d col %d: got %s, want %s\ngot row:  %v\nwant row: %v", r, c, got[r][c], want[r][c], got[r], want[r])
		}
	}
	return ""
}

func fndHead(rows [][]string) [][]string { return rows[:min(len(rows), 8)] }

// fndClose compares two canonical numerics (n: or f:) within 1e-9 relative.
func fndClose(a, b string) bool {
	x, ok1 := fndNumber(a)
	y, ok2 := fndNumber(b)
	if !ok1 || !ok2 {
		return false
	}
	return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y))
}

func fndNumber(s string) (float64, bool) {
	switch {
	case strings.HasPrefix(s, "n:"):
		r, ok := new(big.Rat).SetString(s[2:])
		if !ok {
			return 0, false
		}
		f, _ := r.Float64()
		return f, true
	case strings.HasPrefix(s, "f:"), strings.HasPrefix(s, "i:"):
		f, err := strconv.ParseFloat(s[2:], 64)
		return f, err == nil
	}
	return 0, false
}

// fndTableDir is the directory holding a table's metadata and data.
func fndTableDir(t *testing.T, s *Session, schema, name string) string {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident(schema, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(tbl.Location(), "file://")
}

// fndFiles lists every file under dir (relative paths, sorted).
func fndFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// fndState is what a failed statement must leave untouched.
type fndState struct {
	snapshot string
	files    []string
}

func fndSnapshotState(t *testing.T, s *Session, schema, name string) fndState {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident(schema, name))
	if err != nil {
		t.Fatal(err)
	}
	st := fndState{snapshot: "none"}
	if snap := tbl.CurrentSnapshot(); snap != nil {
		st.snapshot = strconv.FormatInt(snap.SnapshotID, 10)
	}
	st.files = fndFiles(t, strings.TrimPrefix(tbl.Location(), "file://"))
	return st
}

func fndExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// checkIcebergGoReads requires iceberg-go's own scan of schema.name to
// read the rows magmalake's SELECT * does, as multisets.
func checkIcebergGoReads(t *testing.T, s *Session, schema, name string) {
	t.Helper()
	q := "SELECT * FROM " + schema + "." + name
	_, rows := fndRows(t, s, q)
	if got, want := fndSorted(fndIcebergRows(t, s, schema, name)), fndSorted(rows); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("iceberg-go reads %s.%s as\n%v\nmagmalake\n%v", schema, name, got, want)
	}
}
