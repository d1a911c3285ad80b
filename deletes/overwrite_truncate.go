package deletes

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// TruncateOutcome is what a truncate removed.
type TruncateOutcome struct {
	DataFiles, DeleteFiles int
	SnapshotID             int64 // 0 when the table was already empty
	Attempts               int
}

// Truncate removes every live data and delete file of the table from
// metadata alone, in one snapshot; no file is read or written. An empty
// table gets no snapshot.
func Truncate(ctx context.Context, to CommitTarget, ident table.Identifier, opts Options) (TruncateOutcome, error) {
	var out TruncateOutcome
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out = TruncateOutcome{Attempts: out.Attempts + 1}
		fc, err := PrepareTruncate(ctx, head, opts, &out)
		return fc, nil, err
	})
	if err != nil {
		return TruncateOutcome{}, fmt.Errorf("truncate %v: %w", ident, err)
	}
	if out.DataFiles+out.DeleteFiles > 0 && !opts.DryRun {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

// PrepareTruncate is the change removing every live data and delete file of
// head, without reading any; empty for an empty table or a dry run.
func PrepareTruncate(ctx context.Context, head *table.Table, opts Options, out *TruncateOutcome) (lake.FileChange, error) {
	data, dels, err := liveFiles(ctx, head)
	if err != nil {
		return lake.FileChange{}, err
	}
	out.DataFiles, out.DeleteFiles = len(data), len(dels)
	if len(data)+len(dels) == 0 || opts.DryRun {
		return lake.FileChange{}, nil
	}
	return lake.FileChange{RemoveData: data, RemoveDeletes: dels, Props: opts.SnapshotProps, Rebase: Rebase}, nil
}

// liveFiles lists the live data and delete files of the current snapshot.
func liveFiles(ctx context.Context, tbl *table.Table) (data, dels []iceberg.DataFile, err error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return nil, nil, nil
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("table io: %w", err)
	}
	mfs, err := snap.Manifests(fs)
	if err != nil {
		return nil, nil, fmt.Errorf("manifests: %w", err)
	}
	for _, m := range mfs {
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				return nil, nil, fmt.Errorf("manifest %s: %w", m.FilePath(), err)
			}
			if e.Status() == iceberg.EntryStatusDELETED {
				continue
			}
			if e.DataFile().ContentType() == iceberg.EntryContentData {
				data = append(data, e.DataFile())
			} else {
				dels = append(dels, e.DataFile())
			}
		}
	}
	return data, dels, nil
}
