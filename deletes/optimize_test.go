package deletes

import (
	"testing"

	"github.com/apache/iceberg-go"
)

// TestOptimizeAcrossSpecs: after the table's partition spec changes,
// OPTIMIZE writes the old spec's files again partitioned by the new one
// and the new spec's files by partition: every file afterwards is of the
// current spec, holds one category, and the rows are the model's. (The old
// spec's rows are not merged into the new spec's files of their category:
// each spec's files are a group of their own, so a category has two files.)
func TestOptimizeAcrossSpecs(t *testing.T) {
	f := newFixture(t, 2, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 300))
	f.appendRows(genRows(300, 600))
	tx := f.table().NewTransaction()
	if err := tx.UpdateSpec(false).AddIdentity("cat").Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.appendRows(genRows(600, 900))
	f.appendRows(genRows(900, 1200))
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%7 == 0 }),
		func(r row) bool { return r.id%7 == 0 }, Options{})

	out, err := Optimize(f.ctx, Autocommit(f.cat), f.ident, OptimizeOptions{SizeThreshold: 1 << 30, RatioThreshold: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if out.RewrittenFiles != 2+6 || out.RewrittenRows != int64(len(f.model)) {
		t.Fatalf("optimize %+v: want the 2 unpartitioned and 6 partitioned files, %d rows", out, len(f.model))
	}
	f.checkReadBack()
	tbl := f.table()
	data, dels := f.liveFiles(tbl)
	if len(data) != 6 || len(dels) != 0 {
		t.Fatalf("after optimize: %d data files and %d delete files, want two per category and none", len(data), len(dels))
	}
	cats := map[any]bool{}
	for _, df := range data {
		if int(df.SpecID()) != tbl.Metadata().DefaultPartitionSpec() {
			t.Fatalf("%s is of spec %d, the table's is %d", df.FilePath(), df.SpecID(), tbl.Metadata().DefaultPartitionSpec())
		}
		for _, v := range df.Partition() {
			cats[v] = true
		}
	}
	if len(cats) != 3 {
		t.Fatalf("partitions %v: want a, b and c", cats)
	}
}
