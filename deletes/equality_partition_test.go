package deletes

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
)

// field is a partition field of testSchema (1 id, 2 cat, 3 ts, 4 v).
func field(source, id int, name string, tr iceberg.Transform) iceberg.PartitionField {
	return iceberg.PartitionField{SourceIDs: []int{source}, FieldID: id, Name: name, Transform: tr}
}

// partitionKeys are equality keys on (cat, v) that match rows in several
// partitions under every spec below, one with a NULL v, and one that
// matches nothing.
func partitionKeys() []catVKey {
	three, seven, one := int32(3), int32(7), int32(1)
	return []catVKey{{cat: "a", v: &three}, {cat: "b", v: nil}, {cat: "c", v: &seven}, {cat: "zz", v: &one}}
}

// TestEqualityDeletePartitioned: on a table with no unpartitioned spec an
// equality delete is one file per partition (spec and tuple) of the
// matched rows, holding the keys found there, for every transform; an
// all-void spec is unpartitioned, so one file for the whole table.
// iceberg-go's own scan (a reader independent of this package) reads
// back the model, also after rows with a deleted key are added again.
func TestEqualityDeletePartitioned(t *testing.T) {
	for name, spec := range map[string]iceberg.PartitionSpec{
		"identity":      iceberg.NewPartitionSpec(field(2, 1000, "cat", iceberg.IdentityTransform{})),
		"bucket":        iceberg.NewPartitionSpec(field(4, 1000, "v_bucket", iceberg.BucketTransform{NumBuckets: 3})),
		"truncate":      iceberg.NewPartitionSpec(field(2, 1000, "cat_trunc", iceberg.TruncateTransform{Width: 1})),
		"year":          iceberg.NewPartitionSpec(field(3, 1000, "ts_year", iceberg.YearTransform{})),
		"month":         iceberg.NewPartitionSpec(field(3, 1000, "ts_month", iceberg.MonthTransform{})),
		"day":           iceberg.NewPartitionSpec(field(3, 1000, "ts_day", iceberg.DayTransform{})),
		"hour":          iceberg.NewPartitionSpec(field(3, 1000, "ts_hour", iceberg.HourTransform{})),
		"void+identity": iceberg.NewPartitionSpec(field(4, 1000, "v_void", iceberg.VoidTransform{}), field(2, 1001, "cat", iceberg.IdentityTransform{})),
		"void":          iceberg.NewPartitionSpec(field(4, 1000, "v_void", iceberg.VoidTransform{})),
		"three fields":  partSpec,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 2, ModeMergeOnRead, &spec)
			f.appendRows(genRows(0, 90))
			checkPartitionEquality(t, f, spec.IsUnpartitioned())
		})
	}
}

// TestEqualityDeleteAfterEvolution: files of an old spec and of the new
// one each get the files of their own spec and partition.
func TestEqualityDeleteAfterEvolution(t *testing.T) {
	catOnly := iceberg.NewPartitionSpec(field(2, 1000, "cat", iceberg.IdentityTransform{}))
	f := newFixture(t, 2, ModeMergeOnRead, &catOnly)
	f.appendRows(genRows(0, 45))
	tx := f.table().NewTransaction()
	if err := tx.UpdateSpec(true).AddField("v", iceberg.BucketTransform{NumBuckets: 2}, "v_bucket").Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.appendRows(genRows(45, 90))
	checkPartitionEquality(t, f, false)
	_, dels := f.liveFiles(f.table())
	specs := map[int32]bool{}
	for _, d := range dels {
		specs[d.SpecID()] = true
	}
	if len(specs) != 2 {
		t.Fatalf("equality delete files of specs %v, want both specs", specs)
	}
}

// checkPartitionEquality deletes partitionKeys from f and checks the
// count, the delete files against the partitions of the matched rows
// (one global file when the table is unpartitioned), and the rows
// iceberg-go reads, before and after keys are written again.
func checkPartitionEquality(t *testing.T, f *fixture, global bool) {
	t.Helper()
	keys := partitionKeys()
	matches := func(r row) bool { return slices.ContainsFunc(keys, func(k catVKey) bool { return k.matches(r) }) }
	// The partitions holding a matched row, from a dry run's plan.
	dry, err := Delete(f.ctx, Autocommit(f.cat), f.ident, keyPred(keys), Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]bool{}
	data, _ := f.liveFiles(f.table())
	for _, a := range dry.Files {
		for _, df := range data {
			if df.FilePath() == a.Path && a.Matched > 0 {
				parts[fmt.Sprintf("%d/%v", df.SpecID(), sortedPartition(df.Partition()))] = true
			}
		}
	}
	want := f.dropFromModel(matches)
	kb := keyBatch(keys)
	defer kb.Release()
	out, err := EqualityDelete(f.ctx, Autocommit(f.cat), f.ident, keyPred(keys), []string{"cat", "v"}, kb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Deleted != want || want < 4 {
		t.Fatalf("deleted %d, model %d", out.Deleted, want)
	}
	f.checkReadBack()
	_, dels := f.liveFiles(f.table())
	got := map[string]bool{}
	for _, d := range dels {
		if d.ContentType() != iceberg.EntryContentEqDeletes || !slices.Equal(d.EqualityFieldIDs(), []int{2, 4}) {
			t.Fatalf("delete file %s: content %v, fields %v", d.FilePath(), d.ContentType(), d.EqualityFieldIDs())
		}
		got[fmt.Sprintf("%d/%v", d.SpecID(), sortedPartition(d.Partition()))] = true
	}
	switch {
	case global && len(dels) != 1:
		t.Fatalf("%d equality delete files on an unpartitioned table, want 1", len(dels))
	case !global && (len(dels) != len(parts) || !mapsEqual(got, parts)):
		t.Fatalf("equality delete files for partitions %v, the matched rows are in %v", got, parts)
	}
	t.Logf("%d rows deleted by %d equality delete files: %v", out.Deleted, len(dels), got)
	// Rows written later with a deleted key live (higher sequence number).
	three := int32(3)
	again := []row{{id: 1000, cat: "a", v: &three, day: 2}, {id: 1001, cat: "b", day: 1}}
	f.appendRows(again)
	f.checkReadBack()
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
