package lake

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
)

// TestWrittenManifestsReadBack writes random manifests (v2 and v3, data
// and delete content, every partition type and transform, entries added,
// carried and deleted), lists them as a commit of sequence number 40 and
// first row id 1000 would, and requires readBack of each to be what
// iceberg-go's reader gives for its file and list line: the cache is given
// the one in place of the other.
func TestWrittenManifestsReadBack(t *testing.T) {
	sc := manifestTestSchema()
	for _, v := range []int{2, 3} {
		for _, spec := range manifestTestSpecs() {
			t.Run(fmt.Sprintf("v%d/spec%d", v, spec.ID()), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(v), uint64(spec.ID())+40))
				cache := NewManifestCache(1 << 20)
				snap := int64(77)
				var mfs []iceberg.ManifestFile
				writers, files := map[string]*manifestWriter{}, map[string][]byte{}
				for i, content := range []iceberg.ManifestContent{iceberg.ManifestContentData, iceberg.ManifestContentDeletes, iceberg.ManifestContentData, iceberg.ManifestContentData} {
					w, err := newManifestWriter(v, spec, sc, snap, content)
					if err != nil {
						t.Fatal(err)
					}
					for _, op := range randomOps(t, r, v, spec, sc, content, snap, []int{1, 9, 40, 5}[i]) {
						// NaN partition values would make equal entries unequal to DeepEqual.
						if !strings.Contains(fmt.Sprint(op.entry.DataFile().Partition()), "NaN") {
							if err := op.apply(w); err != nil {
								t.Fatal(err)
							}
						}
					}
					if len(w.entries) == 0 {
						continue
					}
					text, err := cache.entrySchema(v, spec, sc)
					if err != nil {
						t.Fatal(err)
					}
					var buf bytes.Buffer
					path := fmt.Sprintf("m%d.avro", i)
					mf, err := w.writeTo(&buf, path, text, cache.codec())
					if err != nil {
						t.Fatal(err)
					}
					mfs, writers[path], files[path] = append(mfs, mf), w, buf.Bytes()
				}
				ls, err := cache.listSchema(v)
				if err != nil {
					t.Fatal(err)
				}
				recs, _, err := writeListRecords(io.Discard, ls, listMetadata(v, snap, 40, 1000, nil), snap, 40, 1000, mfs, cache.codec())
				if err != nil {
					t.Fatal(err)
				}
				inherited := 0
				for _, rec := range recs {
					want, err := iceberg.ReadManifest(rec, bytes.NewReader(files[rec.FilePath()]), false)
					if err != nil {
						t.Fatal(err)
					}
					got, err := writers[rec.FilePath()].readBack(rec)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("%s: %d entries read back, %d read", rec.FilePath(), len(got), len(want))
					}
					for i := range want {
						if !reflect.DeepEqual(got[i], want[i]) {
							t.Fatalf("%s entry %d:\nread back %+v %+v\nread      %+v %+v", rec.FilePath(), i, got[i], got[i].DataFile(), want[i], want[i].DataFile())
						}
						if want[i].DataFile().FirstRowID() != nil && rec.FirstRowID() != nil {
							inherited++
						}
					}
				}
				if v == 3 && inherited == 0 {
					t.Fatal("no first row id was inherited: the test exercised none")
				}
			})
		}
	}
}
