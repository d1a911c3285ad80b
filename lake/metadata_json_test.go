package lake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// TestMetadataJSONAsIcebergGo: every metadata file a commit writes holds
// the bytes iceberg-go's own encoding of that metadata gives, on v2 and v3
// tables through appends, property changes (values JSON must escape),
// snapshot expiry and rollback, with the reused snapshot encodings
// actually used.
func TestMetadataJSONAsIcebergGo(t *testing.T) {
	ctx := context.Background()
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			w := openTest(t, t.TempDir())
			ident := createPCTable(t, w, "m", v)
			var first int64
			for i := range 12 {
				tbl := appendRows(t, w, ident, pcCols(), genRows(pcCols(), i*10, i*10+5))
				if i == 6 { // summary values JSON must escape
					files := writeRows(t, tbl, 500, 505)
					var err error
					if tbl, err = Append(ctx, w, ident, files, map[string]string{"app": `<x> & "y"`}); err != nil {
						t.Fatal(err)
					}
				}
				if i == 0 {
					first = tbl.CurrentSnapshot().SnapshotID
				}
				checkMetadataFile(t, tbl, true)
				switch i {
				case 4:
					tbl, err := w.Tables().SetProperties(ctx, ident, map[string]string{"note": `<a & "b"> ` + "\u2028 \t é"})
					if err != nil {
						t.Fatal(err)
					}
					checkMetadataFile(t, tbl, true)
				case 8:
					if _, err := w.Maintenance().ExpireSnapshots(ctx, ident, 0, 5); err != nil {
						t.Fatal(err)
					}
					tbl, err := w.LoadTable(ctx, ident)
					if err != nil {
						t.Fatal(err)
					}
					checkMetadataFile(t, tbl, false)
				}
			}
			if _, err := w.Branches().RollbackToSnapshot(ctx, ident, first); err == nil {
				t.Fatal("rollback to an expired snapshot succeeded")
			}
			tbl, err := w.LoadTable(ctx, ident)
			if err != nil {
				t.Fatal(err)
			}
			snaps := tbl.Metadata().Snapshots()
			if _, err := w.Branches().RollbackToSnapshot(ctx, ident, snaps[len(snaps)-3].SnapshotID); err != nil {
				t.Fatal(err)
			}
			if tbl, err = w.LoadTable(ctx, ident); err != nil {
				t.Fatal(err)
			}
			checkMetadataFile(t, tbl, false)
		})
	}
}

// checkMetadataFile compares tbl's metadata file with iceberg-go's
// encoding of tbl's metadata; fast says the commit must have taken the
// reused-encodings path (the table as its commit left it).
func checkMetadataFile(t *testing.T, tbl *table.Table, fast bool) {
	t.Helper()
	got, err := os.ReadFile(strings.TrimPrefix(tbl.MetadataLocation(), "file://"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(tbl.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from iceberg-go's encoding:\n got %.400s\nwant %.400s", tbl.MetadataLocation(), got, want)
	}
	if _, _, ok := withoutSnapshots(tbl.Metadata()); fast && !ok {
		t.Errorf("the commit's metadata (%T) did not take the reused-encodings path", tbl.Metadata())
	}
}

// TestMetadataJSONCacheFollowsTable: a snapshot whose content differs
// under a reused id is encoded again, and encodings of snapshots no longer
// in the table are dropped once they make up a good part of the cache.
func TestMetadataJSONCacheFollowsTable(t *testing.T) {
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "c", 2)
	var tbl *table.Table
	for i := range 4 {
		tbl = appendRows(t, w, ident, pcCols(), genRows(pcCols(), i*10, i*10+5))
	}
	var enc metadataJSON
	meta := tbl.Metadata()
	if err := enc.write(io.Discard, meta); err != nil {
		t.Fatal(err)
	}
	cached := enc.tables[meta.TableUUID()]
	if len(cached) != 4 {
		t.Fatalf("%d cached snapshots, want 4", len(cached))
	}
	// A forged entry under the first snapshot's id with other content.
	_, snaps, _ := withoutSnapshots(meta)
	s := snaps[0]
	forged := snapshotKey{id: s.SnapshotID, seq: s.SequenceNumber, ts: s.TimestampMs + 1, manifestList: s.ManifestList}
	cached[s.SnapshotID] = snapshotJSON{key: forged, b: []byte(`{"forged":true}`)}
	for i := range 20 { // expired snapshots' encodings
		cached[int64(i)] = snapshotJSON{key: snapshotKey{id: int64(i)}, b: []byte(`{}`)}
	}
	var doc bytes.Buffer
	if err := enc.write(&doc, meta); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(meta)
	if !bytes.Equal(doc.Bytes(), append(want, '\n')) {
		t.Fatal("encoding differs from iceberg-go's after a forged cache entry")
	}
	if got := enc.tables[meta.TableUUID()]; len(got) != 4 {
		t.Errorf("%d encodings cached after pruning, want the 4 current", len(got))
	}
}

// TestMetadataJSONWithoutSnapshots: a table with no snapshot yet (a
// property change right after CREATE) is written as iceberg-go writes it.
func TestMetadataJSONWithoutSnapshots(t *testing.T) {
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "e", 2)
	tbl, err := w.Tables().SetProperties(context.Background(), ident, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	var enc metadataJSON
	var got bytes.Buffer
	if err := enc.write(&got, tbl.Metadata()); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(tbl.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), append(want, '\n')) {
		t.Fatalf("got %.300s\nwant %.300s", got.Bytes(), want)
	}
}

// BenchmarkMetadataJSONSnapshots looks up the cached encodings of 3,000
// snapshots, as every commit of a busy table does.
func BenchmarkMetadataJSONSnapshots(b *testing.B) {
	snaps := make([]table.Snapshot, 3000)
	for i := range snaps {
		snaps[i] = table.Snapshot{SnapshotID: int64(1e15) + int64(i)*7919, SequenceNumber: int64(i + 1), TimestampMs: 1e12 + int64(i),
			ManifestList: fmt.Sprintf("/warehouse/public/t/metadata/snap-%d-1-0194c2f0-8d1e-7a4b-9c3d-%012d.avro", i, i)}
	}
	var enc metadataJSON
	id := uuid.New()
	if _, err := enc.snapshots(id, snaps); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := enc.snapshots(id, snaps); err != nil {
			b.Fatal(err)
		}
	}
}
