package deletes

import (
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

var variants = []struct {
	version int
	mode    Mode
}{
	{2, ModeCopyOnWrite}, {2, ModeMergeOnRead}, {3, ModeCopyOnWrite}, {3, ModeMergeOnRead},
}

// TestDeleteSequence hits the same files repeatedly under every strategy and
// format version, then drops a file whole.
func TestDeleteSequence(t *testing.T) {
	forEachVariant(t, nil, func(t *testing.T, f *fixture, version int, mode Mode) {
		f.appendRows(genRows(0, 20))
		f.appendRows(genRows(20, 40))
		f.appendRows(genRows(40, 60))

		// Untranslatable WHERE: every file is examined by Match.
		out := f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%7 == 0 }),
			func(r row) bool { return r.id%7 == 0 }, Options{})
		wantAction := map[Mode]string{ModeCopyOnWrite: ActionRewrite, ModeMergeOnRead: ActionPosDelete}[mode]
		if version == 3 && mode == ModeMergeOnRead {
			wantAction = ActionDV
		}
		for _, fa := range out.Files {
			if fa.Action != wantAction {
				t.Fatalf("action %s, want %s", fa.Action, wantAction)
			}
		}
		f.checkDiskInvariants(version, mode)

		// Same files again, overlapping the first delete.
		f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(15)), true, func(id int64) bool { return id < 15 }),
			func(r row) bool { return r.id < 15 }, Options{})
		f.checkDiskInvariants(version, mode)

		// Every live row of the second file: it goes whole, in every mode.
		out = f.deleteAndCheck(idPred(iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(20)),
			iceberg.LessThan(iceberg.Reference("id"), int64(40))), true, func(id int64) bool { return id >= 20 && id < 40 }),
			func(r row) bool { return r.id >= 20 && r.id < 40 }, Options{})
		// Its id column has no nulls and bounds [20, 39]: the statistics
		// prove every row matches, so it goes without being read.
		if len(out.Files) != 1 || out.Files[0].Action != ActionDropUnread || out.Files[0].BytesRead != 0 {
			t.Fatalf("want one unread drop, got %+v", out.Files)
		}
		data, _ := f.liveFiles(f.table())
		for _, d := range data {
			if d.FilePath() == out.Files[0].Path {
				t.Fatalf("dropped file %s still live", d.FilePath())
			}
		}
		f.checkDiskInvariants(version, mode)

		// Nothing matches: no snapshot.
		before := f.table().CurrentSnapshot().SnapshotID
		out = f.deleteAndCheck(idPred(iceberg.EqualTo(iceberg.Reference("id"), int64(1000)), true, func(id int64) bool { return id == 1000 }),
			func(r row) bool { return false }, Options{})
		if out.SnapshotID != 0 || f.table().CurrentSnapshot().SnapshotID != before {
			t.Fatal("a delete matching nothing committed a snapshot")
		}
	})
}

// TestModeSwitchKeepsEarlierDeletes is the iceberg-go #2042 scenario: MoR
// deletes, then a CoW rewrite of the same file must keep them deleted and
// remove the delete files that only served the rewritten file.
func TestModeSwitchKeepsEarlierDeletes(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprint("v", version), func(t *testing.T) {
			f := newFixture(t, version, ModeMergeOnRead, nil)
			f.appendRows(genRows(0, 100))
			f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(10)), true, func(id int64) bool { return id < 10 }),
				func(r row) bool { return r.id < 10 }, Options{})
			setProps(t, f, iceberg.Properties{PropDeleteMode: string(ModeCopyOnWrite)})
			out := f.deleteAndCheck(idPred(iceberg.EqualTo(iceberg.Reference("id"), int64(50)), true, func(id int64) bool { return id == 50 }),
				func(r row) bool { return r.id == 50 }, Options{})
			if out.Files[0].Action != ActionRewrite {
				t.Fatalf("want rewrite, got %+v", out.Files)
			}
			tbl := f.table()
			_, dels := f.liveFiles(tbl)
			if len(dels) != 0 {
				t.Fatalf("delete files of the rewritten file still live: %d", len(dels))
			}
			if got := summaryInt(t, tbl, "total-delete-files"); got != 0 {
				t.Fatalf("total-delete-files = %d", got)
			}
			if got := summaryInt(t, tbl, "total-records"); got != 89 {
				t.Fatalf("total-records = %d, want 89", got)
			}
		})
	}
}

func setProps(t *testing.T, f *fixture, props iceberg.Properties) {
	t.Helper()
	tx := f.table().NewTransaction()
	if err := tx.SetProperties(props); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeV2ToV3 puts position delete files on a file, upgrades, and
// deletes again: the new DV must absorb the old positions.
func TestUpgradeV2ToV3(t *testing.T) {
	f := newFixture(t, 2, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 40))
	f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(5)), true, func(id int64) bool { return id < 5 }),
		func(r row) bool { return r.id < 5 }, Options{})
	tx := f.table().NewTransaction()
	if err := tx.UpgradeFormatVersion(3); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.deleteAndCheck(idPred(iceberg.GreaterThan(iceberg.Reference("id"), int64(35)), true, func(id int64) bool { return id > 35 }),
		func(r row) bool { return r.id > 35 }, Options{})
	_, dels := f.liveFiles(f.table())
	var dvs []iceberg.DataFile
	for _, d := range dels {
		if table.IsDeletionVector(d) {
			dvs = append(dvs, d)
		}
	}
	if len(dvs) != 1 || dvs[0].Count() != 9 {
		t.Fatalf("want one DV of 9 positions (5 old + 4 new), got %d", len(dvs))
	}
	f.checkDiskInvariants(3, ModeMergeOnRead)
}

// TestDeleteAll is DELETE without WHERE: every file dropped unread.
func TestDeleteAll(t *testing.T) {
	forEachVariant(t, nil, func(t *testing.T, f *fixture, version int, mode Mode) {
		f.appendRows(genRows(0, 30))
		f.appendRows(genRows(30, 50))
		f.deleteAndCheck(idPred(iceberg.LessThan(iceberg.Reference("id"), int64(3)), true, func(id int64) bool { return id < 3 }),
			func(r row) bool { return r.id < 3 }, Options{})
		out := f.deleteAndCheck(Predicate{Filter: iceberg.AlwaysTrue{}, Exact: true},
			func(row) bool { return true }, Options{})
		for _, fa := range out.Files {
			if fa.Action != ActionDropUnread || fa.BytesRead != 0 {
				t.Fatalf("want drop-unread without reading, got %+v", fa)
			}
		}
		tbl := f.table()
		data, dels := f.liveFiles(tbl)
		if len(data)+len(dels) != 0 {
			t.Fatalf("files left: %d data, %d delete", len(data), len(dels))
		}
		if got := summaryInt(t, tbl, "total-records"); got != 0 {
			t.Fatalf("total-records = %d", got)
		}
	})
}
