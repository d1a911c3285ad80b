package deletes

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
)

type puffinFooter struct {
	Blobs []struct {
		Type       string            `json:"type"`
		Offset     int64             `json:"offset"`
		Length     int64             `json:"length"`
		Properties map[string]string `json:"properties"`
	} `json:"blobs"`
}

// checkPuffinBlob decodes a DV's Puffin file by hand (spec framing, footer,
// blob envelope, CRC) and checks it against the manifest entry.
func checkPuffinBlob(t *testing.T, d iceberg.DataFile) {
	t.Helper()
	raw, err := os.ReadFile(localPath(d.FilePath()))
	if err != nil {
		t.Fatal(err)
	}
	magic := []byte{'P', 'F', 'A', '1'}
	n := len(raw)
	if !bytes.Equal(raw[:4], magic) || !bytes.Equal(raw[n-4:], magic) {
		t.Fatal("puffin magic missing")
	}
	if flags := binary.LittleEndian.Uint32(raw[n-8:]); flags != 0 {
		t.Fatalf("unexpected footer flags %d", flags)
	}
	size := int(binary.LittleEndian.Uint32(raw[n-12:]))
	start := n - 12 - size
	if !bytes.Equal(raw[start-4:start], magic) {
		t.Fatal("footer magic missing")
	}
	var footer puffinFooter
	if err := json.Unmarshal(raw[start:n-12], &footer); err != nil {
		t.Fatal(err)
	}
	off, length := *d.ContentOffset(), *d.ContentSizeInBytes()
	found := false
	for _, b := range footer.Blobs {
		if b.Offset != off {
			continue
		}
		found = true
		if b.Length != length || b.Type != "deletion-vector-v1" {
			t.Fatalf("blob %+v does not match manifest offset %d length %d", b, off, length)
		}
		if b.Properties["referenced-data-file"] != *d.ReferencedDataFile() {
			t.Fatalf("blob references %s, manifest %s", b.Properties["referenced-data-file"], *d.ReferencedDataFile())
		}
	}
	if !found {
		t.Fatalf("no blob at manifest offset %d", off)
	}
	blob := raw[off : off+length]
	bodyLen := int(binary.BigEndian.Uint32(blob))
	body := blob[4 : 4+bodyLen]
	if !bytes.Equal(body[:4], []byte{0xD1, 0xD3, 0x39, 0x64}) {
		t.Fatal("DV magic missing")
	}
	if crc := binary.BigEndian.Uint32(blob[4+bodyLen:]); crc != crc32.ChecksumIEEE(body) {
		t.Fatal("DV CRC mismatch")
	}
	bm := roaring64.New()
	if _, err := bm.ReadFrom(bytes.NewReader(body[4:])); err != nil {
		t.Fatalf("decode bitmap: %v", err)
	}
	if int64(bm.GetCardinality()) != d.Count() {
		t.Fatalf("bitmap cardinality %d, manifest record_count %d", bm.GetCardinality(), d.Count())
	}
}

// checkPositionDeleteFile reads a v2 position delete file with arrow-go's
// Parquet reader: reserved field ids, rows sorted by path then position.
func checkPositionDeleteFile(t *testing.T, d iceberg.DataFile) {
	t.Helper()
	pr, err := file.OpenParquetFile(localPath(d.FilePath()), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	sc := pr.MetaData().Schema
	if sc.Column(0).SchemaNode().FieldID() != 2147483546 || sc.Column(1).SchemaNode().FieldID() != 2147483545 {
		t.Fatalf("position delete field ids %d, %d", sc.Column(0).SchemaNode().FieldID(), sc.Column(1).SchemaNode().FieldID())
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != d.Count() {
		t.Fatalf("%d rows, manifest says %d", tbl.NumRows(), d.Count())
	}
	var prevPath string
	prevPos := int64(-1)
	paths, pos := tbl.Column(0).Data().Chunks(), tbl.Column(1).Data().Chunks()
	for c := range paths {
		p, q := paths[c].(*array.String), pos[c].(*array.Int64)
		for i := 0; i < p.Len(); i++ {
			if p.Value(i) < prevPath || (p.Value(i) == prevPath && q.Value(i) <= prevPos) {
				t.Fatalf("position deletes not sorted at %s/%d", p.Value(i), q.Value(i))
			}
			if ref := d.ReferencedDataFile(); ref != nil && *ref != p.Value(i) {
				t.Fatalf("row for %s in a file referencing %s", p.Value(i), *ref)
			}
			prevPath, prevPos = p.Value(i), q.Value(i)
		}
	}
}
