package deletes

import (
	"testing"

	"github.com/apache/iceberg-go"
)

// TestMayHaveEqualityDeletes: a table that never had an equality delete
// says so in its summaries, through iceberg-go's appends and magmalake's
// deletes alike, so DML plans it once; after an equality delete, also
// through later appends by iceberg-go and position deletes by magmalake,
// it may have them, so DML plans again unfiltered for the delete files.
func TestMayHaveEqualityDeletes(t *testing.T) {
	f := newFixture(t, 2, ModeMergeOnRead, nil)
	if !mayHaveEqualityDeletes(f.table()) {
		t.Fatal("a table without a snapshot: want unknown, i.e. may")
	}
	f.appendRows(genRows(0, 40))
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%5 == 0 }),
		func(r row) bool { return r.id%5 == 0 }, Options{})
	f.appendRows(genRows(40, 50))
	if mayHaveEqualityDeletes(f.table()) {
		t.Fatalf("no equality delete was ever written, summary %v", f.table().CurrentSnapshot().Summary)
	}
	keys := []catVKey{{cat: "a", v: nil}}
	f.dropFromModel(func(r row) bool { return keys[0].matches(r) })
	kb := keyBatch(keys)
	defer kb.Release()
	if _, err := EqualityDelete(f.ctx, f.cat, f.ident, keyPred(keys), []string{"cat", "v"}, kb, Options{}); err != nil {
		t.Fatal(err)
	}
	f.appendRows(genRows(50, 60))
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%7 == 0 }),
		func(r row) bool { return r.id%7 == 0 }, Options{})
	if !mayHaveEqualityDeletes(f.table()) {
		t.Fatalf("after an equality delete, summary %v", f.table().CurrentSnapshot().Summary)
	}
}
