package lake

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apache/iceberg-go/table"
)

// OrphanOutcome is what removing orphan files did.
type OrphanOutcome struct {
	DeletedFiles int
	DeletedBytes int64
}

// writeSlack is how much earlier than its writer's start a file's
// modification time may read: the kernel stamps files from a clock a tick
// behind, object stores keep whole seconds, and another server's clock may
// be a little off.
const writeSlack = 2 * time.Second

// RemoveOrphanFiles deletes the files under the table's location that no
// snapshot and no metadata file references and that are older than
// olderThan: the leftovers of statements whose process died before
// committing. Younger ones may belong to another process's commit in
// flight; this process's own writers (Writes) are never overtaken, whatever
// olderThan says: no file younger than the oldest of them is listed. Other
// magmalake processes learn of the sweep through the table's properties
// before it lists anything (sweep_marker.go).
// The head is read again after the listing, so that a commit that landed
// meanwhile keeps its files; each listed file is checked against both
// heads' references (every snapshot's manifest lists, manifests, data and
// delete files, statistics files and the metadata log). A file gone by the
// time it is deleted is not an error.
func (m *Maintenance) RemoveOrphanFiles(ctx context.Context, ident table.Identifier, olderThan time.Duration) (OrphanOutcome, error) {
	what := "remove orphan files of " + IdentKey(ident)
	pinless := withoutReadSet(ctx)
	cutoff := time.Now().Add(-olderThan)
	if since, ok := m.commits.writes.oldest(ident, writeHoldOf(ctx)); ok {
		cutoff = minTime(cutoff, since.Add(-writeSlack))
	}
	if err := m.announceSweep(ctx, ident, cutoff); err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	before, err := m.wh.LoadTable(pinless, ident)
	if err != nil {
		return OrphanOutcome{}, err
	}
	fs, err := FS(ctx, before)
	if err != nil {
		return OrphanOutcome{}, err
	}
	listed, err := listOlder(ctx, fs, before.Location(), cutoff)
	if err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	after, err := m.wh.LoadTable(pinless, ident)
	if err != nil {
		return OrphanOutcome{}, err
	}
	known, err := m.tableFiles(ctx, before, after)
	if err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	orphans, err := unreferenced(listed, known)
	if err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	orphans = m.sparedWriters(ident, writeHoldOf(ctx), cutoff, orphans)
	var out OrphanOutcome
	for _, f := range orphans {
		removed, err := removeFile(fs, f.path)
		if err != nil {
			return out, fmt.Errorf("%s: %w", what, err)
		}
		if removed {
			out.DeletedFiles++
			out.DeletedBytes += f.size
		}
	}
	return out, nil
}

// sparedWriters is orphans without the files a writer of this process
// that began after the cutoff was chosen may have written: its files are
// younger than it (give or take writeSlack), and none of them is an orphan.
func (m *Maintenance) sparedWriters(ident table.Identifier, self uint64, cutoff time.Time, orphans []listedFile) []listedFile {
	since, ok := m.commits.writes.oldest(ident, self)
	if !ok || !since.Add(-writeSlack).Before(cutoff) {
		return orphans
	}
	bound := since.Add(-writeSlack)
	return slices.DeleteFunc(orphans, func(f listedFile) bool { return !f.modified.Before(bound) })
}

// unreferenced are the listed files the table does not reference. A listed
// file whose object path a reference has under another scheme or authority
// stops everything: it may be the same file.
func unreferenced(listed []listedFile, known map[string]bool) ([]listedFile, error) {
	paths := make(map[string]string, len(known))
	for k := range known {
		paths[objectPath(k)] = k
	}
	var out []listedFile
	for _, f := range listed {
		if known[fileKey(f.path)] {
			continue
		}
		if ref, ok := paths[objectPath(f.path)]; ok {
			return nil, fmt.Errorf("%s looks like %s, which the table references, spelt another way; nothing deleted", f.path, ref)
		}
		out = append(out, f)
	}
	return out, nil
}

// tableFiles is every file the metadata of any of tbls references, by
// fileKey.
func (m *Maintenance) tableFiles(ctx context.Context, tbls ...*table.Table) (map[string]bool, error) {
	known := map[string]bool{}
	for _, tbl := range tbls {
		fs, err := FS(ctx, tbl)
		if err != nil {
			return nil, err
		}
		md := tbl.Metadata()
		// An expiry running meanwhile may have removed what a snapshot of
		// either head named; it removes only what no kept snapshot does.
		refs, err := expiredReferences(ctx, fs, md.Snapshots(), m.refs)
		if err != nil {
			return nil, err
		}
		refs[tbl.MetadataLocation()] = 0
		refs[md.Location()+"/metadata/version-hint.text"] = 0 // Hadoop tables'
		for e := range md.PreviousFiles() {
			refs[e.MetadataFile] = 0
		}
		for sf := range md.Statistics() {
			refs[sf.StatisticsPath] = 0
		}
		for sf := range md.PartitionStatistics() {
			refs[sf.StatisticsPath] = 0
		}
		for p := range refs {
			known[fileKey(p)] = true
		}
	}
	return known, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
