package lake

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// filePathField is the field id of a position delete file's file_path.
const filePathField = 2147483546

// deleteFileIndex finds the delete files that apply to a data file, by the
// rules of the spec's scan planning as iceberg-go v0.7.0 applies them:
//   - a deletion vector applies to the file it references when the data
//     file's sequence number is at most the DV's (or the DV's is unknown),
//     and then no position delete file applies;
//   - a position delete file applies to the file it references, or (naming
//     none) to the data files of its spec and partition, when its sequence
//     number is at least the data file's;
//   - an equality delete file applies to the data files of its spec and
//     partition, or to every data file when its spec is unpartitioned, when
//     its sequence number is greater than the data file's, unless the two
//     files' statistics show that no key of one is in the other (a rebase
//     compares the delete files of each data file: one DELETE by equality
//     must not look like a change of every file of the table).
type deleteFileIndex struct {
	dvs       map[string]indexedDelete   // by referenced data file
	posByPath map[string][]indexedDelete // by referenced data file
	posByPart map[string][]indexedDelete // by deletePartitionKey
	eqByPart  map[string][]indexedDelete // by deletePartitionKey
	eqGlobal  []indexedDelete
}

// indexedDelete is a live delete file with what matching it needs, read
// once: its sequence number and, for a position delete file naming no
// single data file, the bounds of the paths it names (iceberg-go's
// accessors copy a file's statistics at every call).
type indexedDelete struct {
	file   iceberg.DataFile
	seq    int64
	empty  bool       // no row, or file_path null in every row
	lo, hi []byte     // file_path bounds; nil: unknown
	keys   []keyStats // an equality delete file's statistics of its fields
}

// keyStats is what an equality delete file's metrics say of one of its
// fields.
type keyStats struct {
	id int
	cs colStats
}

func newDeleteFileIndex(meta table.Metadata, sc *iceberg.Schema, manifests [][]iceberg.ManifestEntry) (*deleteFileIndex, error) {
	idx := &deleteFileIndex{dvs: map[string]indexedDelete{}, posByPath: map[string][]indexedDelete{},
		posByPart: map[string][]indexedDelete{}, eqByPart: map[string][]indexedDelete{}}
	for _, entries := range manifests {
		for _, e := range entries {
			if e.Status() == iceberg.EntryStatusDELETED {
				continue
			}
			if err := idx.add(meta, sc, e); err != nil {
				return nil, err
			}
		}
	}
	bySeq := func(a, b indexedDelete) int { return cmp.Compare(a.seq, b.seq) }
	for _, m := range []map[string][]indexedDelete{idx.posByPath, idx.posByPart, idx.eqByPart} {
		for _, ds := range m {
			slices.SortStableFunc(ds, bySeq)
		}
	}
	slices.SortStableFunc(idx.eqGlobal, bySeq)
	return idx, nil
}

func (idx *deleteFileIndex) add(meta table.Metadata, sc *iceberg.Schema, e iceberg.ManifestEntry) error {
	df := e.DataFile()
	d := indexedDelete{file: df, seq: e.SequenceNum()}
	ref := df.ReferencedDataFile()
	switch df.ContentType() {
	case iceberg.EntryContentPosDeletes:
		switch {
		case table.IsDeletionVector(df):
			if ref == nil {
				return nil
			}
			if _, dup := idx.dvs[*ref]; dup {
				return fmt.Errorf("two deletion vectors for %s", *ref)
			}
			idx.dvs[*ref] = d
		case ref != nil && *ref != "":
			idx.posByPath[*ref] = append(idx.posByPath[*ref], d)
		default:
			d.pathBounds()
			k := deletePartitionKey(df)
			idx.posByPart[k] = append(idx.posByPart[k], d)
		}
	case iceberg.EntryContentEqDeletes:
		spec := meta.PartitionSpecByID(int(df.SpecID()))
		if spec == nil {
			return fmt.Errorf("equality delete file %s: no partition spec %d", df.FilePath(), df.SpecID())
		}
		d.keyStats(sc)
		if spec.IsUnpartitioned() {
			idx.eqGlobal = append(idx.eqGlobal, d)
			return nil
		}
		k := deletePartitionKey(df)
		idx.eqByPart[k] = append(idx.eqByPart[k], d)
	}
	return nil
}

// pathBounds reads the statistics of a position delete file's file_path.
func (d *indexedDelete) pathBounds() {
	f := d.file
	d.empty = f.Count() == 0
	if v, ok := f.ValueCounts()[filePathField]; ok {
		if n, ok := f.NullValueCounts()[filePathField]; ok && n == v {
			d.empty = true
		}
	}
	d.lo, d.hi = f.LowerBoundValues()[filePathField], f.UpperBoundValues()[filePathField]
}

// keyStats reads an equality delete file's statistics of its fields that
// sc has as primitive columns (of a dropped one, nothing can be told).
func (d *indexedDelete) keyStats(sc *iceberg.Schema) {
	m := metricsOf(d.file)
	for _, id := range d.file.EqualityFieldIDs() {
		f, ok := sc.FindFieldByID(id)
		if !ok {
			continue
		}
		if _, primitive := f.Type.(iceberg.PrimitiveType); primitive {
			d.keys = append(d.keys, keyStats{id: id, cs: m.stats(id, f.Type)})
		}
	}
}

// mayDelete: the equality delete file may hold the key of a row of the
// data file whose metrics are data. Keys match NULL to NULL.
func (d indexedDelete) mayDelete(data *fileMetrics) bool {
	for _, k := range d.keys {
		del, c := k.cs, data.stats(k.id, k.cs.typ)
		switch {
		case del.mayHaveNull() && c.mayHaveNull():
			continue // a null key may match
		case c.allNull() || del.allNull():
			return false // the other side has no null
		case !del.noNaN || !c.noNaN:
			continue
		case c.aboveHi(del.lo, false) || del.aboveHi(c.lo, false):
			return false // the values' ranges are apart
		}
	}
	return true
}

// mayName: the position delete file may hold a position of the data file
// at path (its file_path bounds allow it).
func (d indexedDelete) mayName(path string) bool {
	p := []byte(path)
	return !d.empty && (d.lo == nil || bytes.Compare(d.lo, p) <= 0) && (d.hi == nil || bytes.Compare(d.hi, p) >= 0)
}

// task is the scan task of data entry e with its delete files.
func (idx *deleteFileIndex) task(e iceberg.ManifestEntry) table.FileScanTask {
	df := e.DataFile()
	seq := e.SequenceNum()
	t := table.FileScanTask{File: df, Length: df.FileSizeBytes(), FirstRowID: df.FirstRowID()}
	if seq >= 0 {
		t.DataSequenceNumber = &seq
	}
	if dv, ok := idx.dvs[df.FilePath()]; ok && (dv.seq < 0 || seq <= dv.seq) {
		t.DeletionVectorFiles = []iceberg.DataFile{dv.file}
	}
	key, partitioned := "", false
	if len(idx.posByPart) > 0 || len(idx.eqByPart) > 0 {
		key, partitioned = deletePartitionKey(df), len(df.Partition()) > 0
	}
	if t.DeletionVectorFiles == nil {
		for _, d := range fromSeq(idx.posByPart[key], seq, false) {
			if d.mayName(df.FilePath()) {
				t.DeleteFiles = append(t.DeleteFiles, d.file)
			}
		}
		for _, d := range fromSeq(idx.posByPath[df.FilePath()], seq, false) {
			t.DeleteFiles = append(t.DeleteFiles, d.file)
		}
	}
	eq := fromSeq(idx.eqGlobal, seq, true)
	if partitioned {
		eq = slices.Concat(eq, fromSeq(idx.eqByPart[key], seq, true))
	}
	var data *fileMetrics
	for _, d := range eq {
		if data == nil {
			data = metricsOf(df)
		}
		if d.mayDelete(data) {
			t.EqualityDeleteFiles = append(t.EqualityDeleteFiles, d.file)
		}
	}
	return t
}

// fromSeq is the tail of ds (sorted by sequence number) at or after seq,
// or after it when strictly.
func fromSeq(ds []indexedDelete, seq int64, strictly bool) []indexedDelete {
	i, _ := slices.BinarySearchFunc(ds, seq, func(d indexedDelete, s int64) int {
		if c := cmp.Compare(d.seq, s); c != 0 || !strictly {
			return c
		}
		return -1
	})
	return ds[i:]
}

// deletePartitionKey names df's partition spec and values, so that two
// files read from manifests have one key exactly when both are equal. A
// value is named with its Go type and syntax ("1" and 1, or a string
// holding the separator, cannot collide); partitionKey, which counts
// changed partitions, names values alone.
func deletePartitionKey(df iceberg.DataFile) string {
	part := df.Partition()
	var b strings.Builder
	fmt.Fprintf(&b, "%d", df.SpecID())
	for _, id := range slices.Sorted(maps.Keys(part)) {
		fmt.Fprintf(&b, "|%d=%T:%#v", id, part[id], part[id])
	}
	return b.String()
}
