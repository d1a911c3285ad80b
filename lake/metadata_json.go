package lake

import (
	"bufio"
	"encoding/json"
	"io"
	"reflect"
	"sync"

	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// metadataJSON encodes table metadata to the bytes iceberg-go's
// MarshalJSON gives (metadata_json_test.go compares them), keeping each
// snapshot's encoding between commits. A metadata file holds every
// snapshot, and encoding/json re-encodes and re-compacts each one three
// levels deep: at a thousand snapshots that was 40% of an autocommit
// INSERT's CPU, and growing with every commit. Snapshots never change
// once committed, so their bytes are reused.
type metadataJSON struct {
	mu     sync.Mutex
	tables map[uuid.UUID]map[int64]snapshotJSON // by snapshot id
}

// snapshotJSON is a snapshot's encoding and the content it encodes. The
// cache is looked up by id and the key compared after: hashing each key's
// manifest list path was a quarter of writing a metadata file.
type snapshotJSON struct {
	key snapshotKey
	b   []byte
}

// snapshotKey identifies a snapshot's content: the id alone would do by
// the spec; the rest guards against a writer that reused one.
type snapshotKey struct {
	id, seq, ts  int64
	manifestList string
}

// maxCachedTables bounds the tables whose snapshot encodings are kept.
const maxCachedTables = 256

// write writes meta as a metadata file holds it (JSON and a newline, as
// json.Encoder writes it) to w. Everything is encoded before the first
// byte is written.
func (e *metadataJSON) write(w io.Writer, meta table.Metadata) error {
	head, snaps, ok := withoutSnapshots(meta)
	ok = ok && len(snaps) > 0 // no snapshots: nothing to splice
	var doc []byte
	var err error
	if ok {
		doc, err = json.Marshal(head)
		// iceberg-go writes "snapshots" last (v2 and v3 declare it in the
		// outer struct of their MarshalJSON, after the embedded metadata).
		ok = err == nil && len(doc) > 2 && doc[len(doc)-1] == '}'
	}
	if !ok {
		if doc, err = json.Marshal(meta); err != nil {
			return err
		}
		_, err = w.Write(append(doc, '\n'))
		return err
	}
	frags, err := e.snapshots(meta.TableUUID(), snaps)
	if err != nil {
		return err
	}
	// Buffered: the document is as large as its snapshots, and one buffer
	// of its size per commit was most of the allocation left.
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:len(doc)-1])
	bw.WriteString(`,"snapshots":[`)
	for i, f := range frags {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.Write(f)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// snapshots returns each snapshot's encoding, from the table's cache where
// it has one. The cache is pruned to the current snapshots when expired
// ones make up a good part of it; rebuilding it every commit cost as much
// as the lookups.
func (e *metadataJSON) snapshots(tableID uuid.UUID, snaps []table.Snapshot) ([][]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tables == nil {
		e.tables = map[uuid.UUID]map[int64]snapshotJSON{}
	}
	cache := e.tables[tableID]
	if cache == nil {
		if len(e.tables) >= maxCachedTables {
			for id := range e.tables { // any one: a cold table re-encodes once
				delete(e.tables, id)
				break
			}
		}
		cache = make(map[int64]snapshotJSON, len(snaps))
		e.tables[tableID] = cache
	}
	out := make([][]byte, len(snaps))
	for i := range snaps {
		s := &snaps[i]
		k := snapshotKey{id: s.SnapshotID, seq: s.SequenceNumber, ts: s.TimestampMs, manifestList: s.ManifestList}
		c, ok := cache[k.id]
		if !ok || c.key != k {
			b, err := json.Marshal(*s)
			if err != nil {
				return nil, err
			}
			c = snapshotJSON{key: k, b: b}
			cache[k.id] = c
		}
		out[i] = c.b
	}
	if len(cache) > len(snaps)+len(snaps)/4+16 {
		current := make(map[int64]snapshotJSON, len(snaps))
		for i := range snaps {
			current[snaps[i].SnapshotID] = cache[snaps[i].SnapshotID]
		}
		e.tables[tableID] = current
	}
	return out, nil
}

// withoutSnapshots returns a copy of meta with no snapshots, whose
// MarshalJSON is iceberg-go's for everything else, and meta's snapshots
// in their order (read in place: Metadata.Snapshots deep-copies them all).
// False when meta is not the builder-made v2/v3 metadata this is known to
// hold for (see snapshotsInPlace).
func withoutSnapshots(meta table.Metadata) (table.Metadata, []table.Snapshot, bool) {
	snaps, ok := snapshotsInPlace(meta)
	if !ok {
		return nil, nil, false
	}
	v := reflect.ValueOf(meta)
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	list := cp.Elem().FieldByName("SnapshotList")
	if !list.CanSet() {
		return nil, nil, false
	}
	list.Set(reflect.Zero(list.Type()))
	m, ok := cp.Interface().(table.Metadata)
	return m, snaps, ok
}
