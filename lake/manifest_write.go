package lake

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/apache/iceberg-go"
	"github.com/klauspost/compress/flate"
	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// manifestWriter writes one manifest file. iceberg-go encodes each entry's
// data_file (DataFile.MarshalAvroEntry, whose Avro schema it caches); this
// writer encodes the four entry fields before it, the Avro container around
// the entries, and the manifest's description for the manifest list.
//
// Not ice.NewManifestWriter, because it builds and parses the manifest's
// Avro schema anew for every manifest and allocates a fresh deflate state
// for every block: together a fifth of a busy server's CPU, since each
// commit writes manifests. The files are the same: the same schema text,
// the same header metadata, the same record bytes
// (TestManifestWriterMatchesIcebergGo compares them).
type manifestWriter struct {
	version    int
	spec       iceberg.PartitionSpec
	schema     *iceberg.Schema
	snapshotID int64
	content    iceberg.ManifestContent
	prefix     []byte // entryPrefix of the version

	records []byte
	blocks  []manifestBlock // sealed blocks of records
	entries []writtenEntry  // what each record holds, for readBack
	n       int             // records in records
	files   [3]int32        // by entry status: EXISTING, ADDED, DELETED
	rows    [3]int64
	minSeq  int64
	parts   []partitionBounds
}

// writtenEntry is one record: its entry fields, and the data_file as
// MarshalAvroEntry encoded it (with its prefix).
type writtenEntry struct {
	status       iceberg.ManifestEntryStatus
	snap         int64
	seq, fileSeq *int64
	enc          []byte
}

// manifestBlock is a run of encoded records, as one container block.
type manifestBlock struct {
	records []byte
	n       int
}

// manifestBlockBytes seals a block at this many record bytes, as iceberg-go's
// container writer does, so no reader meets a larger block than it would in
// a manifest iceberg-go wrote.
const manifestBlockBytes = 64 << 10

func newManifestWriter(version int, spec iceberg.PartitionSpec, schema *iceberg.Schema, snapshotID int64, content iceberg.ManifestContent) (*manifestWriter, error) {
	if version < 1 || version > 3 {
		return nil, fmt.Errorf("unsupported manifest version %d", version)
	}
	if version == 1 && content != iceberg.ManifestContentData {
		return nil, fmt.Errorf("format version 1 has no delete manifests")
	}
	parts, err := newPartitionBounds(spec, schema)
	if err != nil {
		return nil, err
	}
	return &manifestWriter{version: version, spec: spec, schema: schema, snapshotID: snapshotID,
		content: content, prefix: entryPrefix(version), minSeq: -1, parts: parts}, nil
}

// Add writes entry as ADDED by this snapshot; a nil sequence number is
// inherited from the snapshot when read.
func (w *manifestWriter) Add(entry iceberg.ManifestEntry) error {
	return w.add(iceberg.EntryStatusADDED, w.snapshotID, seqOf(entry), nil, entry.DataFile())
}

// Existing writes entry as EXISTING, keeping its snapshot and sequence numbers.
func (w *manifestWriter) Existing(entry iceberg.ManifestEntry) error {
	return w.add(iceberg.EntryStatusEXISTING, entry.SnapshotID(), seqOf(entry), entry.FileSequenceNum(), entry.DataFile())
}

// Delete writes entry as DELETED by this snapshot, keeping its sequence numbers.
func (w *manifestWriter) Delete(entry iceberg.ManifestEntry) error {
	return w.add(iceberg.EntryStatusDELETED, w.snapshotID, seqOf(entry), entry.FileSequenceNum(), entry.DataFile())
}

func seqOf(e iceberg.ManifestEntry) *int64 {
	if s := e.SequenceNum(); s >= 0 {
		return &s
	}
	return nil
}

// entryPrefix is what MarshalAvroEntry writes before the data_file record:
// status ADDED, and a zero snapshot id (v1) or three nulls (v2, v3).
func entryPrefix(version int) []byte {
	if version == 1 {
		return []byte{2, 0}
	}
	return []byte{2, 0, 0, 0}
}

func (w *manifestWriter) add(status iceberg.ManifestEntryStatus, snap int64, seq, fileSeq *int64, df iceberg.DataFile) error {
	if err := w.checkEntry(status, snap, seq, df); err != nil {
		return err
	}
	m, ok := df.(iceberg.AvroEntryMarshaler)
	if !ok {
		return fmt.Errorf("data file %s cannot be encoded", df.FilePath())
	}
	enc, err := m.MarshalAvroEntry(w.spec, w.schema, w.version)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(enc, w.prefix) {
		return fmt.Errorf("unexpected encoding of manifest entry for %s", df.FilePath())
	}
	w.records = binary.AppendVarint(w.records, int64(status))
	if w.version == 1 {
		w.records = binary.AppendVarint(w.records, snap)
	} else {
		w.records = appendOptionalLong(w.records, &snap)
		w.records = appendOptionalLong(w.records, seq)
		w.records = appendOptionalLong(w.records, fileSeq)
	}
	w.records = append(w.records, enc[len(w.prefix):]...)
	w.entries = append(w.entries, writtenEntry{status: status, snap: snap, seq: seq, fileSeq: fileSeq, enc: enc})
	w.n++
	if len(w.records) >= manifestBlockBytes {
		w.blocks = append(w.blocks, manifestBlock{records: w.records, n: w.n})
		w.records, w.n = nil, 0
	}
	return w.note(status, seq, df)
}

// checkEntry refuses what iceberg-go's writer refuses: a file of the other
// content, and an entry not added by this snapshot without a sequence number.
func (w *manifestWriter) checkEntry(status iceberg.ManifestEntryStatus, snap int64, seq *int64, df iceberg.DataFile) error {
	if w.version > 1 {
		isData := df.ContentType() == iceberg.EntryContentData
		if isData != (w.content == iceberg.ManifestContentData) {
			return fmt.Errorf("%s file %s cannot be written to a %s manifest", df.ContentType(), df.FilePath(), w.content)
		}
		if seq == nil && (status != iceberg.EntryStatusADDED || snap != w.snapshotID) {
			return fmt.Errorf("entry %s of snapshot %d has no sequence number", df.FilePath(), snap)
		}
	}
	return nil
}

// appendOptionalLong appends a ["null", "long"] union.
func appendOptionalLong(b []byte, v *int64) []byte {
	if v == nil {
		return binary.AppendVarint(b, 0)
	}
	b = binary.AppendVarint(b, 1)
	return binary.AppendVarint(b, *v)
}

// note counts the entry and folds its partition into the summaries.
func (w *manifestWriter) note(status iceberg.ManifestEntryStatus, seq *int64, df iceberg.DataFile) error {
	w.files[status]++
	w.rows[status] += df.Count()
	if status != iceberg.EntryStatusDELETED && seq != nil && (w.minSeq < 0 || *seq < w.minSeq) {
		w.minSeq = *seq
	}
	partition := df.Partition()
	for i := range w.parts {
		if err := w.parts[i].update(partition[w.parts[i].fieldID]); err != nil {
			return fmt.Errorf("partition of %s: %w", df.FilePath(), err)
		}
	}
	return nil
}

// writeTo writes the manifest, with the entry schema schemaJSON, to out
// through codec; it returns the description the manifest list carries.
func (w *manifestWriter) writeTo(out io.Writer, path, schemaJSON string, codec *manifestCodec) (iceberg.ManifestFile, error) {
	if w.files[0]+w.files[1]+w.files[2] == 0 {
		return nil, iceberg.ErrEmptyManifest
	}
	meta, err := w.metadata(schemaJSON)
	if err != nil {
		return nil, err
	}
	var marker [16]byte
	if _, err := rand.Read(marker[:]); err != nil {
		return nil, fmt.Errorf("sync marker: %w", err)
	}
	cw := &countingWriter{w: out}
	file := append([]byte("Obj\x01"), appendAvroMeta(nil, meta)...)
	if _, err := cw.Write(append(file, marker[:]...)); err != nil {
		return nil, err
	}
	blocks := w.blocks
	if w.n > 0 {
		blocks = append(blocks, manifestBlock{records: w.records, n: w.n})
	}
	for _, b := range blocks {
		if err := codec.writeBlock(cw, b, marker); err != nil {
			return nil, err
		}
	}
	return w.describe(path, cw.n), nil
}

// metadata is the container's header: the Avro schema and codec, and the
// keys iceberg-go's writer sets, in a fixed order.
func (w *manifestWriter) metadata(schemaJSON string) ([][2][]byte, error) {
	schemaText, err := json.Marshal(w.schema)
	if err != nil {
		return nil, fmt.Errorf("manifest schema: %w", err)
	}
	fields := []iceberg.PartitionField{}
	for _, f := range w.spec.Fields() {
		fields = append(fields, f)
	}
	specText, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("manifest partition spec: %w", err)
	}
	kv := func(k, v string) [2][]byte { return [2][]byte{[]byte(k), []byte(v)} }
	return [][2][]byte{
		kv("avro.schema", schemaJSON),
		kv("avro.codec", "deflate"),
		kv("schema", string(schemaText)),
		kv("schema-id", strconv.Itoa(w.schema.ID)),
		kv("partition-spec", string(specText)),
		kv("partition-spec-id", strconv.Itoa(w.spec.ID())),
		kv("format-version", strconv.Itoa(w.version)),
		kv("content", w.content.String()),
	}, nil
}

// appendAvroMeta appends the header's map<bytes>: one block of pairs, then
// the empty block that ends a map.
func appendAvroMeta(b []byte, meta [][2][]byte) []byte {
	b = binary.AppendVarint(b, int64(len(meta)))
	for _, kv := range meta {
		for _, s := range kv {
			b = binary.AppendVarint(b, int64(len(s)))
			b = append(b, s...)
		}
	}
	return binary.AppendVarint(b, 0)
}

func (w *manifestWriter) describe(path string, length int64) iceberg.ManifestFile {
	const existing, added, deleted = iceberg.EntryStatusEXISTING, iceberg.EntryStatusADDED, iceberg.EntryStatusDELETED
	summaries := make([]iceberg.FieldSummary, len(w.parts))
	for i := range w.parts {
		summaries[i] = w.parts[i].summary()
	}
	return iceberg.NewManifestFile(w.version, path, length, int32(w.spec.ID()), w.snapshotID).
		Content(w.content).
		SequenceNum(-1, w.minSeq).
		AddedFiles(w.files[added]).ExistingFiles(w.files[existing]).DeletedFiles(w.files[deleted]).
		AddedRows(w.rows[added]).ExistingRows(w.rows[existing]).DeletedRows(w.rows[deleted]).
		Partitions(summaries).
		Build()
}

// manifestCodec deflates container blocks, reusing compressors: a new one
// costs a megabyte of state, and a manifest is often a single small block.
type manifestCodec struct {
	pool *sync.Pool // of *flate.Writer; nil: a new compressor per block
	buf  bytes.Buffer
}

func (c *manifestCodec) writeBlock(out io.Writer, b manifestBlock, marker [16]byte) error {
	if err := c.deflate(b.records); err != nil {
		return err
	}
	head := binary.AppendVarint(nil, int64(b.n))
	head = binary.AppendVarint(head, int64(c.buf.Len()))
	block := append(append(head, c.buf.Bytes()...), marker[:]...)
	_, err := out.Write(block)
	return err
}

// deflate compresses src into c.buf.
func (c *manifestCodec) deflate(src []byte) error {
	c.buf.Reset()
	fw := c.compressor()
	fw.Reset(&c.buf)
	_, err := fw.Write(src)
	if err == nil {
		err = fw.Close()
	}
	if c.pool != nil {
		c.pool.Put(fw)
	}
	if err != nil {
		return fmt.Errorf("deflate manifest block: %w", err)
	}
	return nil
}

func (c *manifestCodec) compressor() *flate.Writer {
	if c.pool != nil {
		if fw, ok := c.pool.Get().(*flate.Writer); ok {
			return fw
		}
	}
	fw, _ := flate.NewWriter(nil, flate.DefaultCompression) // the level is valid
	return fw
}

// manifestEntrySchema is the Avro schema text of manifest entries of the
// given version under spec: the text iceberg-go's own manifest writer puts
// in its header, taken from an empty manifest it starts. The entry fields
// before data_file are checked, since this package encodes them.
func manifestEntrySchema(version int, spec iceberg.PartitionSpec, schema *iceberg.Schema) (string, error) {
	var head bytes.Buffer
	if _, err := iceberg.NewManifestWriter(version, &head, spec, schema, 0); err != nil {
		return "", err
	}
	text, _, err := headerSchema(head.Bytes())
	if err != nil {
		return "", fmt.Errorf("manifest entry schema: %w", err)
	}
	if err := checkEntryFields(version, text); err != nil {
		return "", err
	}
	return text, nil
}

// headerSchema is the schema an Avro container's header declares, as text
// and parsed.
func headerSchema(head []byte) (string, *avro.Schema, error) {
	rd, err := ocf.NewReader(bytes.NewReader(head))
	if err != nil {
		return "", nil, err
	}
	defer rd.Close()
	return string(rd.Metadata()["avro.schema"]), rd.Schema(), nil
}

// checkEntryFields checks the fields this package encodes itself.
func checkEntryFields(version int, text string) error {
	var rec struct {
		Fields []struct {
			Name string          `json:"name"`
			Type json.RawMessage `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(text), &rec); err != nil {
		return fmt.Errorf("manifest entry schema: %w", err)
	}
	want := []string{"status", `"int"`, "snapshot_id", `"long"`, "data_file", ""}
	if version > 1 {
		want = []string{"status", `"int"`, "snapshot_id", `["null","long"]`, "sequence_number", `["null","long"]`,
			"file_sequence_number", `["null","long"]`, "data_file", ""}
	}
	if len(rec.Fields) != len(want)/2 {
		return errors.New("manifest entry schema has unexpected fields")
	}
	for i, f := range rec.Fields {
		var compact bytes.Buffer
		if json.Compact(&compact, f.Type) != nil || f.Name != want[2*i] || (want[2*i+1] != "" && compact.String() != want[2*i+1]) {
			return fmt.Errorf("manifest entry schema: unexpected field %q", f.Name)
		}
	}
	return nil
}
