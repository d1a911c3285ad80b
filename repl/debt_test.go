package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// \debt draws one bar per data file from "t$delete_debt": dead cells in
// proportion (rounded up, so any dead row shows), the file under the data
// directory, and the totals.
func TestDebtBars(t *testing.T) {
	cols := []stmt.Column{{Name: "file_path", Type: sql.Text}, {Name: "record_count", Type: sql.Int64},
		{Name: "deleted_rows", Type: sql.Int64}, {Name: "dead_bytes", Type: sql.Int64}, {Name: "delete_files", Type: sql.Int32}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		debtQuery("s.t"): answer(rowsResult(cols, "SELECT 3",
			[]*string{str("file:///w/s.db/t/data/g=0/a.parquet"), str("400"), str("100"), str("20480"), str("2")},
			[]*string{str("file:///w/s.db/t/data/g=1/b.parquet"), str("1000"), str("1"), str("30"), str("1")},
			[]*string{str("file:///w/s.db/t/data/g=2/c.parquet"), str("50"), str("0"), str("0"), str("0")})),
	}}
	var out, errOut strings.Builder
	if _, err := New(f, &out, &errOut).meta(context.Background(), `\debt s.t`); err != nil {
		t.Fatalf("\\debt: %v %s", err, errOut.String())
	}
	want := "Delete debt of \"s.t\" (█ live rows, ░ deleted rows)\n" +
		" " + strings.Repeat("█", 30) + strings.Repeat("░", 10) + " g=0/a.parquet  100 of 400 rows dead, 20 kB read for nothing, 2 delete files\n" +
		" " + strings.Repeat("█", 39) + "░ g=1/b.parquet  1 of 1000 rows dead, 30 bytes read for nothing, 1 delete files\n" +
		" " + strings.Repeat("█", 40) + " g=2/c.parquet  0 of 50 rows dead, 0 bytes read for nothing, 0 delete files\n" +
		"3 data files, 1450 rows, 101 dead (7.0%), 20 kB read for nothing by every full scan, 3 delete-file references\n\n"
	if out.String() != want {
		t.Fatalf("\\debt printed\n%s\nwant\n%s", out.String(), want)
	}
	if !strings.Contains(debtQuery("t"), `FROM "t$delete_debt"`) {
		t.Fatalf("unqualified query %s", debtQuery("t"))
	}
	if _, err := New(f, &out, &errOut).meta(context.Background(), `\debt`); err == nil {
		t.Fatal("\\debt without a table succeeded")
	}
}
