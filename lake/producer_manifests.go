package lake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/iceberg-go"
)

// parentManifest is one manifest of the parent snapshot and, when it had to
// be read, its entries.
type parentManifest struct {
	file    iceberg.ManifestFile
	entries []iceberg.ManifestEntry // every status; nil when the manifest was not read
	rewrite bool                    // holds a file the change removes
}

// parentScan is what the change needs to know about the parent snapshot.
type parentScan struct {
	manifests []parentManifest
	removed   map[string]iceberg.ManifestEntry // key -> parent's live entry of a removed file
	liveDVs   map[string][]string              // referenced data file -> keys of its live DVs (read manifests only)
}

// scanParent lists the parent's manifests and reads those that may hold a
// removed file, or a deletion vector a new one could collide with: data
// manifests of the removed data files' specs, delete manifests of the
// removed delete files' and added DVs' specs.
func (p *changePlan) scanParent(ctx context.Context) (*parentScan, error) {
	scan := &parentScan{removed: map[string]iceberg.ManifestEntry{}, liveDVs: map[string][]string{}}
	if p.parent == nil {
		return scan, nil
	}
	mfs, err := p.manifests.list(p.fs, *p.parent)
	if err != nil {
		return nil, fmt.Errorf("read manifest list of snapshot %d: %w", p.parent.SnapshotID, err)
	}
	removing := map[string]bool{}
	dataSpecs, deleteSpecs := map[int32]bool{}, map[int32]bool{}
	for _, df := range p.change.RemoveData {
		removing[changeFileKey(df)] = true
		dataSpecs[df.SpecID()] = true
	}
	for _, df := range p.change.RemoveDeletes {
		removing[changeFileKey(df)] = true
		deleteSpecs[df.SpecID()] = true
	}
	for _, df := range p.change.AddDeletes {
		if isDeletionVector(df) {
			deleteSpecs[df.SpecID()] = true
		}
	}
	for _, mf := range mfs {
		pm := parentManifest{file: mf}
		specs := dataSpecs
		if mf.ManifestContent() == iceberg.ManifestContentDeletes {
			specs = deleteSpecs
		}
		if specs[mf.PartitionSpecID()] {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if pm.entries, err = p.manifests.entries(p.fs, mf); err != nil {
				return nil, fmt.Errorf("read manifest %s: %w", mf.FilePath(), err)
			}
			pm.rewrite = scan.note(pm.entries, removing)
		}
		scan.manifests = append(scan.manifests, pm)
	}
	return scan, nil
}

// note records the live entries of one manifest; it reports whether any of
// them is removed.
func (s *parentScan) note(entries []iceberg.ManifestEntry, removing map[string]bool) bool {
	hit := false
	for _, e := range entries {
		if e.Status() == iceberg.EntryStatusDELETED {
			continue
		}
		df := e.DataFile()
		k := changeFileKey(df)
		if removing[k] {
			s.removed[k] = e
			hit = true
		}
		if isDeletionVector(df) && df.ReferencedDataFile() != nil {
			ref := *df.ReferencedDataFile()
			s.liveDVs[ref] = append(s.liveDVs[ref], k)
		}
	}
	return hit
}

// writeAddedManifests writes one manifest per partition spec for the added
// data files, and one per spec for the added delete files. Entries are ADDED
// with no sequence number: they inherit the new snapshot's.
func (p *changePlan) writeAddedManifests(ctx context.Context) ([]iceberg.ManifestFile, error) {
	var out []iceberg.ManifestFile
	groups := []struct {
		content iceberg.ManifestContent
		files   []iceberg.DataFile
	}{
		{iceberg.ManifestContentData, p.change.AddData},
		{iceberg.ManifestContentDeletes, p.change.AddDeletes},
	}
	for _, g := range groups {
		for _, files := range groupBySpec(g.files) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			mf, err := p.writeManifest(files[0].SpecID(), g.content, func(w *manifestWriter) error {
				for _, df := range files {
					if err := w.Add(iceberg.NewManifestEntry(iceberg.EntryStatusADDED, &p.snapshotID, nil, nil, df)); err != nil {
						return fmt.Errorf("add %s: %w", df.FilePath(), err)
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			out = append(out, mf)
		}
	}
	return out, nil
}

// carryManifests keeps the parent's manifests as they are, except those
// holding a removed file: those are rewritten with that entry DELETED and
// the other live entries EXISTING, all keeping their sequence numbers.
// Entries some earlier snapshot deleted are dropped from a rewrite, and a
// manifest holding nothing else is dropped altogether: a table whose every
// commit supersedes the last one's deletion vectors would otherwise carry
// one empty manifest per commit, and every reader and writer would open
// them all.
func (p *changePlan) carryManifests(ctx context.Context, scan *parentScan) ([]iceberg.ManifestFile, error) {
	out := make([]iceberg.ManifestFile, 0, len(scan.manifests))
	for _, pm := range scan.manifests {
		if !pm.file.HasAddedFiles() && !pm.file.HasExistingFiles() {
			continue
		}
		if !pm.rewrite {
			out = append(out, pm.file)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		mf, err := p.writeManifest(pm.file.PartitionSpecID(), pm.file.ManifestContent(), func(w *manifestWriter) error {
			return rewriteEntries(w, pm.entries, scan.removed)
		})
		if err != nil {
			return nil, fmt.Errorf("rewrite manifest %s: %w", pm.file.FilePath(), err)
		}
		out = append(out, mf)
	}
	return out, nil
}

func rewriteEntries(w *manifestWriter, entries []iceberg.ManifestEntry, removed map[string]iceberg.ManifestEntry) error {
	for _, e := range entries {
		if e.Status() == iceberg.EntryStatusDELETED {
			continue
		}
		kept := keptEntry(e)
		var err error
		if _, gone := removed[changeFileKey(e.DataFile())]; gone {
			err = w.Delete(kept)
		} else {
			err = w.Existing(kept)
		}
		if err != nil {
			return fmt.Errorf("entry %s: %w", e.DataFile().FilePath(), err)
		}
	}
	return nil
}

// keptEntry is e for a rewritten manifest, keeping its snapshot id and
// sequence numbers. Rebuilt rather than passed through: the writer needs its
// own entry type, and readers of old manifests may hand back another.
func keptEntry(e iceberg.ManifestEntry) iceberg.ManifestEntry {
	snap := e.SnapshotID()
	var seq *int64
	if s := e.SequenceNum(); s >= 0 {
		seq = &s
	}
	return iceberg.NewManifestEntry(e.Status(), &snap, seq, e.FileSequenceNum(), e.DataFile())
}

// writeManifest writes one manifest of content under spec specID, filled by
// fill, and describes it for the manifest list.
func (p *changePlan) writeManifest(specID int32, content iceberg.ManifestContent, fill func(*manifestWriter) error) (iceberg.ManifestFile, error) {
	spec := p.meta.PartitionSpecByID(int(specID))
	if spec == nil {
		return nil, fmt.Errorf("partition spec %d does not exist", specID)
	}
	schema := p.meta.CurrentSchema()
	p.nManifests++
	path := p.loc.NewMetadataLocation(fmt.Sprintf("%s-m%d.avro", p.commitID, p.nManifests))
	entrySchema, err := p.manifests.entrySchema(p.version, *spec, schema)
	if err != nil {
		return nil, fmt.Errorf("write manifest %s: %w", path, err)
	}
	w, err := newManifestWriter(p.version, *spec, schema, p.snapshotID, content)
	if err == nil {
		err = fill(w)
	}
	if err != nil {
		return nil, fmt.Errorf("write manifest %s: %w", path, err)
	}
	var buf bytes.Buffer
	mf, err := w.writeTo(&buf, path, entrySchema, p.manifests.codec())
	if err != nil {
		return nil, fmt.Errorf("write manifest %s: %w", path, err)
	}
	p.put(path, buf.Bytes())
	if p.manifests != nil {
		if p.wrote == nil {
			p.wrote = map[string]*manifestWriter{}
		}
		p.wrote[path] = w
	}
	return mf, nil
}

// writeManifestList writes the snapshot's manifest list. On v3 the data
// manifests that have no first_row_id (the new and the rewritten ones) get
// one; the rows they were assigned are the snapshot's added-rows.
func (p *changePlan) writeManifestList(path string, parentID *int64, firstRowID int64, manifests []iceberg.ManifestFile) (addedRows int64, err error) {
	var ls *listSchema
	if p.version >= 2 {
		if ls, err = p.manifests.listSchema(p.version); err != nil {
			return 0, fmt.Errorf("write manifest list %s: %w", path, err)
		}
	}
	var buf bytes.Buffer
	next := firstRowID
	var recs []iceberg.ManifestFile
	if ls != nil {
		meta := listMetadata(p.version, p.snapshotID, p.seq, firstRowID, parentID)
		recs, next, err = writeListRecords(&buf, ls, meta, p.snapshotID, p.seq, firstRowID, manifests, p.manifests.codec())
	} else {
		err = writeManifestListV1(&buf, p.snapshotID, parentID, manifests)
	}
	if err != nil {
		return 0, fmt.Errorf("write manifest list %s: %w", path, err)
	}
	p.put(path, buf.Bytes())
	if ls != nil && readsBackAs(p.version, recs) {
		// The next plans of the table read this list and the manifests
		// this plan wrote; the paths are the plan's own, so what they hold
		// never changes.
		p.manifests.rememberList(path, recs)
		for _, mf := range recs {
			if w, ok := p.wrote[mf.FilePath()]; ok {
				if es, err := w.readBack(mf); err == nil {
					p.manifests.rememberEntries(mf, es)
				}
			}
		}
	}
	if p.version >= 3 {
		addedRows = next - firstRowID
	}
	return addedRows, nil
}

// writeManifestListV1 writes a v1 manifest list with iceberg-go's writer.
func writeManifestListV1(out io.Writer, snapshotID int64, parentID *int64, manifests []iceberg.ManifestFile) error {
	w, err := iceberg.NewManifestListWriterV1(out, snapshotID, parentID)
	if err != nil {
		return err
	}
	return errors.Join(w.AddManifests(manifests), w.Close())
}

// countingWriter counts bytes so a manifest's length is known without a stat.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
