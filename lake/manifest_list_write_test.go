package lake

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apache/iceberg-go"
)

// randomListedManifests are manifest descriptions as a commit of snapshot
// snap lists them: its own (sequence numbers unassigned), and older ones
// with theirs; data and delete manifests, with partition summaries, none,
// or an empty list.
func randomListedManifests(r *rand.Rand, v int, snap int64, n int) []iceberg.ManifestFile {
	var out []iceberg.ManifestFile
	for i := range n {
		content := iceberg.ManifestContentData
		if r.IntN(3) == 0 {
			content = iceberg.ManifestContentDeletes
		}
		owner, seq, minSeq := snap, int64(-1), int64(-1)
		if r.IntN(2) == 0 {
			owner, seq = r.Int64N(1e9), 1+r.Int64N(20)
			minSeq = seq - r.Int64N(seq)
		} else if r.IntN(2) == 0 {
			minSeq = 1 + r.Int64N(20)
		}
		mfv := v
		if v == 2 && content == iceberg.ManifestContentData && owner != snap && r.IntN(4) == 0 {
			mfv, seq, minSeq = 1, 0, 0 // a v1 manifest kept through the upgrade
		}
		var parts []iceberg.FieldSummary
		switch r.IntN(3) {
		case 0:
			parts = []iceberg.FieldSummary{}
		case 1:
			for range 1 + r.IntN(3) {
				nan := r.IntN(2) == 0
				lo, hi := []byte{byte(r.IntN(9))}, []byte{9, byte(r.IntN(9))}
				parts = append(parts, iceberg.FieldSummary{ContainsNull: r.IntN(2) == 0, ContainsNaN: &nan, LowerBound: &lo, UpperBound: &hi})
			}
		}
		b := iceberg.NewManifestFile(mfv, fmt.Sprintf("s3://b/t/metadata/m-%d-%d.avro", snap, i), 100+r.Int64N(1e5), int32(r.IntN(3)), owner).
			Content(content).SequenceNum(seq, minSeq).
			AddedFiles(int32(r.IntN(9))).ExistingFiles(int32(r.IntN(9))).DeletedFiles(int32(r.IntN(9))).
			AddedRows(r.Int64N(1e6)).ExistingRows(r.Int64N(1e6)).DeletedRows(r.Int64N(1e6)).
			Partitions(parts)
		if r.IntN(5) == 0 {
			b.KeyMetadata([]byte{7, byte(i)})
		}
		out = append(out, b.Build())
	}
	return out
}

// TestManifestListWriterMatchesIcebergGo writes manifest lists of v2 and
// v3 tables with iceberg-go's list writer and with ours: the same header
// metadata, records, assigned row ids, and lists read back. The second
// round lists what the first one's list reads back as (sequence numbers
// and, on v3, first row ids assigned) next to new manifests.
func TestManifestListWriterMatchesIcebergGo(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(v), 11))
			cache := NewManifestCache(1 << 20)
			var carried []iceberg.ManifestFile
			firstRow := int64(0)
			for round := range 4 {
				snap, seq := int64(1000+round), int64(30+round)
				mfs := append(carried, randomListedManifests(r, v, snap, 1+r.IntN(12))...)
				theirs, next := compareListWriters(t, v, snap, seq, firstRow, mfs, cache)
				carried, firstRow = theirs, next
			}
		})
	}
}

// compareListWriters writes mfs both ways, compares, and returns the list
// iceberg-go reads back from its own file and the next row id.
func compareListWriters(t *testing.T, v int, snap, seq, firstRow int64, mfs []iceberg.ManifestFile, cache *ManifestCache) ([]iceberg.ManifestFile, int64) {
	t.Helper()
	parent := snap - 1
	var tb, ob bytes.Buffer
	var iw *iceberg.ManifestListWriter
	var err error
	if v == 2 {
		iw, err = iceberg.NewManifestListWriterV2(&tb, snap, seq, &parent)
	} else {
		iw, err = iceberg.NewManifestListWriterV3(&tb, snap, seq, firstRow, &parent)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := iw.AddManifests(mfs); err != nil {
		t.Fatal(err)
	}
	if err := iw.Close(); err != nil {
		t.Fatal(err)
	}
	ls, err := cache.listSchema(v)
	if err != nil {
		t.Fatal(err)
	}
	recs, next, err := writeListRecords(&ob, ls, listMetadata(v, snap, seq, firstRow, &parent), snap, seq, firstRow, mfs, cache.codec())
	if err != nil {
		t.Fatal(err)
	}
	if v == 3 && next != *iw.NextRowID() {
		t.Fatalf("next row id: iceberg-go %d, ours %d", *iw.NextRowID(), next)
	}
	metaTheirs, recsTheirs := ocfContents(t, tb.Bytes())
	metaOurs, recsOurs := ocfContents(t, ob.Bytes())
	if !reflect.DeepEqual(metaTheirs, metaOurs) {
		t.Fatalf("header:\niceberg-go %q\nours       %q", metaTheirs, metaOurs)
	}
	if fmt.Sprintf("%#v", recsTheirs) != fmt.Sprintf("%#v", recsOurs) {
		t.Fatalf("records:\niceberg-go %v\nours       %v", recsTheirs, recsOurs)
	}
	readTheirs, err := iceberg.ReadManifestList(bytes.NewReader(tb.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	readOurs, err := iceberg.ReadManifestList(bytes.NewReader(ob.Bytes()))
	if err != nil {
		t.Fatalf("iceberg-go cannot read our manifest list: %v", err)
	}
	if !reflect.DeepEqual(readTheirs, readOurs) || len(readOurs) != len(mfs) {
		t.Fatalf("read back:\niceberg-go %+v\nours       %+v", readTheirs, readOurs)
	}
	// What the cache is given in place of reading the list back.
	if readsBackAs(v, recs) && !reflect.DeepEqual(recs, readOurs) {
		t.Fatalf("records written:\n%+v\nread back:\n%+v", recs, readOurs)
	}
	return readTheirs, next
}

// TestManifestListWriterRefusesForeignUnassigned: a manifest of another
// snapshot without a sequence number is refused, as iceberg-go refuses it.
func TestManifestListWriterRefusesForeignUnassigned(t *testing.T) {
	mf := iceberg.NewManifestFile(2, "m.avro", 10, 0, 7).SequenceNum(-1, -1).Partitions([]iceberg.FieldSummary{}).Build()
	iw, err := iceberg.NewManifestListWriterV2(&bytes.Buffer{}, 8, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := newListSchema(2)
	if err != nil {
		t.Fatal(err)
	}
	_, _, ours := writeListRecords(&bytes.Buffer{}, ls, listMetadata(2, 8, 3, 0, nil), 8, 3, 0, []iceberg.ManifestFile{mf}, &manifestCodec{})
	if theirs := iw.AddManifests([]iceberg.ManifestFile{mf}); theirs == nil || ours == nil {
		t.Fatalf("iceberg-go %v, ours %v", theirs, ours)
	}
}
