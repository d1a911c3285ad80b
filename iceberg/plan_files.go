package iceberg

import (
	"context"
	"fmt"
	"slices"

	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// PlanRequest says what PlanFiles plans.
type PlanRequest struct {
	Snapshot      *table.Snapshot       // nil: the table's current snapshot
	Schema        *ice.Schema           // the schema Filter names columns of; nil: the table's
	Filter        ice.BooleanExpression // nil: every row
	CaseSensitive bool
	Manifests     *ManifestCache // decoded manifests kept across plans; nil: read each
}

// PlanFiles plans a scan as iceberg-go's Scan.PlanFiles does: the live data
// files of the snapshot that may hold a row of Filter, each with the delete
// files that apply to it, by the rules iceberg-go's reads apply them (so a
// plan here and a read there agree on which rows are live). It differs in
// three ways:
//   - manifests are decoded once per process (ManifestCache), where
//     iceberg-go decodes every manifest of the snapshot at every plan, Avro
//     schema included: under a stream of small statements that was a fifth
//     of a busy server's CPU;
//   - a task is a whole data file (no splits by row group) with no residual;
//   - delete files are not pruned by Filter: an equality delete applies to
//     the rows outside the filter too, which a rewrite keeps.
//
// Pruning keeps every file iceberg-go's would, at the least.
func PlanFiles(ctx context.Context, tbl *table.Table, req PlanRequest) ([]table.FileScanTask, error) {
	snap := req.Snapshot
	if snap == nil {
		snap = tbl.CurrentSnapshot()
	}
	if snap == nil {
		return nil, nil
	}
	sc := req.Schema
	if sc == nil {
		sc = tbl.Schema()
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, err
	}
	manifests, err := req.Manifests.list(fs, *snap)
	if err != nil {
		return nil, fmt.Errorf("read manifest list: %w", err)
	}
	filter := req.Filter
	if filter != nil && refersToPromoted(tbl, filter) {
		filter = nil // see refersToPromoted: partition values and bounds of older files are of the narrower type
	}
	prune := newPlanPruner(tbl.Metadata(), sc, filter, req.CaseSensitive)
	var data, deletes []ice.ManifestFile
	for _, mf := range manifests {
		switch {
		case !mf.HasAddedFiles() && !mf.HasExistingFiles():
		case mf.ManifestContent() == ice.ManifestContentDeletes:
			deletes = append(deletes, mf)
		case prune.manifestMayMatch(mf):
			data = append(data, mf)
		}
	}
	read, err := req.Manifests.readAll(ctx, fs, slices.Concat(deletes, data))
	if err != nil {
		return nil, err
	}
	idx, err := newDeleteFileIndex(tbl.Metadata(), sc, read[:len(deletes)])
	if err != nil {
		return nil, err
	}
	var tasks []table.FileScanTask
	for _, entries := range read[len(deletes):] {
		for _, e := range entries {
			df := e.DataFile()
			if e.Status() == ice.EntryStatusDELETED || df.ContentType() != ice.EntryContentData || !prune.fileMayMatch(df) {
				continue
			}
			tasks = append(tasks, idx.task(e))
		}
	}
	return tasks, nil
}

// readAll decodes the entries of mfs (every status), in order, through the
// cache, several manifests at a time.
func (c *ManifestCache) readAll(ctx context.Context, fs iceio.IO, mfs []ice.ManifestFile) ([][]ice.ManifestEntry, error) {
	out := make([][]ice.ManifestEntry, len(mfs))
	err := forEachBounded(ctx, len(mfs), 8, func(_ context.Context, i int) error {
		es, err := c.entries(fs, mfs[i])
		if err != nil {
			return fmt.Errorf("read manifest %s: %w", mfs[i].FilePath(), err)
		}
		out[i] = es
		return nil
	})
	return out, err
}
