package lake

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestBuilderBaseAsIcebergGo: metadata built from builderBase's wrapper
// equals, in iceberg-go's encoding, what the builder makes from the
// metadata itself, over random chains of appended snapshots, branch and
// tag refs, removed snapshots and property changes on v2 and v3 tables;
// the base is left as it was; and the carried snapshots are shared with
// the base rather than copied (which is all the wrapper is for).
func TestBuilderBaseAsIcebergGo(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			w := openTest(t, t.TempDir())
			ident := createPCTable(t, w, "b", v)
			var tbl *table.Table
			for i := range 5 {
				tbl = appendRows(t, w, ident, pcCols(), genRows(pcCols(), i*10, i*10+5))
			}
			base, loc := tbl.Metadata(), tbl.MetadataLocation()
			if _, ok := snapshotsInPlace(base); !ok {
				t.Fatal("a committed table's metadata: snapshots not readable in place")
			}
			rng := rand.New(rand.NewPCG(uint64(v), 7))
			shared, built := 0, 0
			for round := range 60 {
				ups := randomUpdates(rng, base, round)
				before := metadataDoc(t, base)
				want, wantErr := table.UpdateTableMetadata(base, ups, loc)
				got, gotErr := table.UpdateTableMetadata(builderBase(base), ups, loc)
				if (wantErr == nil) != (gotErr == nil) {
					t.Fatalf("round %d: errors differ: iceberg-go %v, wrapped %v", round, wantErr, gotErr)
				}
				if !reflect.DeepEqual(metadataDoc(t, base), before) {
					t.Fatalf("round %d: the base changed", round)
				}
				if wantErr != nil {
					continue
				}
				if g, w := metadataDoc(t, got), metadataDoc(t, want); !reflect.DeepEqual(g, w) {
					t.Fatalf("round %d: metadata differs:\n got %v\nwant %v", round, g, w)
				}
				if !got.Equals(want) && !sameButUpdated(got, want) {
					t.Fatalf("round %d: Equals says the two differ", round)
				}
				shared += sharedSummaries(t, base, got)
				built++
				base = got
			}
			if built < 40 {
				t.Fatalf("only %d of 60 rounds built metadata", built)
			}
			if shared == 0 {
				t.Fatal("no carried snapshot was shared with its base")
			}
		})
	}
}

// sameButUpdated: Equals also compares last-updated-ms, which the builder
// takes from the clock when no snapshot is added.
func sameButUpdated(a, b table.Metadata) bool {
	return a.LastUpdatedMillis() != b.LastUpdatedMillis()
}

// randomUpdates is one commit's updates against base: a new snapshot on
// main or on a branch, a tag, removed snapshots, property changes.
func randomUpdates(rng *rand.Rand, base table.Metadata, round int) []table.Update {
	var ups []table.Update
	snaps := base.Snapshots()
	cur := base.CurrentSnapshot()
	if rng.IntN(4) > 0 || len(snaps) < 3 {
		id := int64(1_000_000 + round)
		s := table.Snapshot{
			SnapshotID:     id,
			SequenceNumber: base.LastSequenceNumber() + 1,
			TimestampMs:    base.LastUpdatedMillis() + 1,
			ManifestList:   fmt.Sprintf("%s/metadata/snap-%d.avro", base.Location(), id),
			Summary: &table.Summary{Operation: table.OpAppend, Properties: map[string]string{
				"added-records": fmt.Sprint(rng.IntN(100)), "round": fmt.Sprint(round),
			}},
		}
		if cur != nil {
			parent := cur.SnapshotID
			s.ParentSnapshotID = &parent
		}
		if base.Version() >= 3 {
			first, added := base.NextRowID(), int64(rng.IntN(50))
			s.FirstRowID, s.AddedRows = &first, &added
		}
		ref := table.MainBranch
		if rng.IntN(5) == 0 {
			ref = "b1"
		}
		ups = append(ups, table.NewAddSnapshotUpdate(&s), table.NewSetSnapshotRefUpdate(ref, id, table.BranchRef, 0, 0, 0))
	}
	if len(snaps) > 2 && rng.IntN(4) == 0 {
		old := snaps[rng.IntN(len(snaps)-1)].SnapshotID
		ups = append(ups, table.NewSetSnapshotRefUpdate(fmt.Sprintf("t%d", round), old, table.TagRef, 0, 0, 0))
	}
	if len(snaps) > 4 && rng.IntN(3) == 0 {
		var ids []int64
		for _, s := range snaps[:rng.IntN(len(snaps)-3)+1] {
			if cur == nil || s.SnapshotID != cur.SnapshotID {
				ids = append(ids, s.SnapshotID)
			}
		}
		ups = append(ups, table.NewRemoveSnapshotsUpdate(ids, false))
	}
	switch rng.IntN(4) {
	case 0:
		ups = append(ups, table.NewSetPropertiesUpdate(iceberg.Properties{fmt.Sprintf("k%d", rng.IntN(4)): fmt.Sprint(round)}))
	case 1:
		ups = append(ups, table.NewRemovePropertiesUpdate([]string{fmt.Sprintf("k%d", rng.IntN(4))}))
	}
	return ups
}

// metadataDoc is meta as iceberg-go encodes it, without the clock's field.
func metadataDoc(t *testing.T, meta table.Metadata) map[string]any {
	t.Helper()
	b, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "last-updated-ms")
	return doc
}

// sharedSummaries counts the snapshots next carries over from base with
// the very same summary, not a copy of it.
func sharedSummaries(t *testing.T, base, next table.Metadata) int {
	t.Helper()
	was, ok1 := snapshotsInPlace(base)
	now, ok2 := snapshotsInPlace(next)
	if !ok1 || !ok2 {
		t.Fatal("snapshots not readable in place")
	}
	n := 0
	for i := range now {
		j := slices.IndexFunc(was, func(s table.Snapshot) bool { return s.SnapshotID == now[i].SnapshotID })
		if j >= 0 && was[j].Summary != nil && was[j].Summary == now[i].Summary {
			n++
		}
	}
	return n
}
