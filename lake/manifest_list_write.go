package lake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// writeListRecords writes a v2 or v3 manifest list: iceberg-go's records,
// schema and header, with compressors from codec. iceberg-go's own list
// writer deflates with a fresh compressor (a megabyte of state) per
// manifest list: 5% of a busy server's CPU. The records are iceberg-go's
// manifest files, encoded by the Avro library its writer uses, with the
// sequence numbers and first row ids its writer would assign (checked by
// TestManifestListWriterMatchesIcebergGo). It returns the next unassigned
// row id (v3), and the records written.
func writeListRecords(out io.Writer, ls *listSchema, meta map[string][]byte, snapshotID, seq, firstRowID int64, manifests []iceberg.ManifestFile, codec *manifestCodec) ([]iceberg.ManifestFile, int64, error) {
	w, err := ocf.NewWriter(out, ls.schema, ocf.WithSchema(ls.text), ocf.WithMetadata(meta),
		ocf.WithCodec(deflateBlocks{codec}))
	if err != nil {
		return nil, 0, err
	}
	next := firstRowID
	recs := make([]iceberg.ManifestFile, 0, len(manifests))
	for _, mf := range manifests {
		rec, err := listRecord(ls.version, mf, snapshotID, seq, &next)
		if err == nil {
			err = w.Encode(rec)
		}
		if err != nil {
			w.Close()
			return nil, 0, fmt.Errorf("manifest %s: %w", mf.FilePath(), err)
		}
		recs = append(recs, rec)
	}
	return recs, next, w.Close()
}

// readsBackAs reports whether recs are what reading their list back gives:
// a reader stamps each manifest with the list's format version, so a list
// holding manifests of an older version reads back otherwise.
func readsBackAs(version int, recs []iceberg.ManifestFile) bool {
	for _, mf := range recs {
		if mf.Version() != version {
			return false
		}
	}
	return true
}

// listRecord is a copy of mf as the manifest list holds it: an unassigned
// sequence number (a manifest this commit wrote) becomes the commit's, and
// on v3 a data manifest without a first row id gets the next ones.
func listRecord(version int, mf iceberg.ManifestFile, snapshotID, seq int64, next *int64) (iceberg.ManifestFile, error) {
	if mf.Version() > version {
		return nil, fmt.Errorf("a v%d manifest list cannot list a v%d manifest", version, mf.Version())
	}
	src := reflect.ValueOf(mf)
	if src.Kind() != reflect.Pointer || src.Elem().Kind() != reflect.Struct {
		return nil, errors.New("not a manifest file of iceberg-go")
	}
	rec := reflect.New(src.Elem().Type())
	rec.Elem().Set(src.Elem())
	field := func(name string) (reflect.Value, error) {
		f := rec.Elem().FieldByName(name)
		if !f.IsValid() || !f.CanSet() {
			return f, fmt.Errorf("manifest file has no field %s", name)
		}
		return f, nil
	}
	for _, name := range []string{"SeqNumber", "MinSeqNumber"} {
		f, err := field(name)
		if err != nil {
			return nil, err
		}
		if f.Int() == -1 {
			if mf.SnapshotID() != snapshotID {
				return nil, fmt.Errorf("unassigned sequence number in a manifest of snapshot %d", mf.SnapshotID())
			}
			f.SetInt(seq)
		}
	}
	if version == 3 && mf.ManifestContent() == iceberg.ManifestContentData && mf.FirstRowID() == nil {
		f, err := field("FirstRowIDValue")
		if err != nil {
			return nil, err
		}
		if mf.ExistingRows() < 0 || mf.AddedRows() < 0 {
			return nil, errors.New("row counts unknown: no row ids can be assigned")
		}
		first := *next
		f.Set(reflect.ValueOf(&first))
		*next += mf.ExistingRows() + mf.AddedRows()
	}
	out, ok := rec.Interface().(iceberg.ManifestFile)
	if !ok {
		return nil, errors.New("not a manifest file of iceberg-go")
	}
	return out, nil
}

// listSchema is a manifest list's Avro schema, as iceberg-go's list writer
// writes it in its header.
type listSchema struct {
	version int
	text    string
	schema  *avro.Schema
}

// newListSchema takes the schema of a version's manifest lists from the
// header of an empty list iceberg-go's writer starts.
func newListSchema(version int) (*listSchema, error) {
	var head bytes.Buffer
	var err error
	switch version {
	case 2:
		_, err = iceberg.NewManifestListWriterV2(&head, 1, 1, nil)
	case 3:
		_, err = iceberg.NewManifestListWriterV3(&head, 1, 1, 0, nil)
	default:
		err = fmt.Errorf("no manifest list schema of version %d", version)
	}
	if err != nil {
		return nil, err
	}
	text, schema, err := headerSchema(head.Bytes())
	if err != nil {
		return nil, fmt.Errorf("manifest list schema: %w", err)
	}
	return &listSchema{version: version, text: text, schema: schema}, nil
}

// listMetadata is the header metadata iceberg-go's list writer sets.
func listMetadata(version int, snapshotID, seq, firstRowID int64, parentID *int64) map[string][]byte {
	parent := "null"
	if parentID != nil {
		parent = strconv.FormatInt(*parentID, 10)
	}
	meta := map[string][]byte{
		"format-version":     []byte(strconv.Itoa(version)),
		"snapshot-id":        []byte(strconv.FormatInt(snapshotID, 10)),
		"sequence-number":    []byte(strconv.FormatInt(seq, 10)),
		"parent-snapshot-id": []byte(parent),
	}
	if version >= 3 {
		meta["first-row-id"] = []byte(strconv.FormatInt(firstRowID, 10))
	}
	return meta
}

// deflateBlocks is manifestCodec as an OCF codec: it compresses, and this
// package never reads through it.
type deflateBlocks struct{ c *manifestCodec }

func (deflateBlocks) Name() string { return "deflate" }

func (d deflateBlocks) Compress(src []byte) ([]byte, error) {
	if err := d.c.deflate(src); err != nil {
		return nil, err
	}
	return bytes.Clone(d.c.buf.Bytes()), nil
}

func (deflateBlocks) Decompress([]byte) ([]byte, error) {
	return nil, errors.New("manifest list codec only compresses")
}

func (deflateBlocks) Close() error { return nil }
