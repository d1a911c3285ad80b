package lake

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go/table"
)

// RewriteManifestsOutcome is what a manifest rewrite did.
type RewriteManifestsOutcome struct {
	ReplacedManifests int
	AddedManifests    int
	SnapshotID        int64 // the replace snapshot; 0 when nothing changed
}

// RewriteManifests rewrites the current snapshot's data manifests into
// manifests of commit.manifest.target-size-bytes, grouped by partition
// spec (iceberg-go's RewriteManifests): one replace snapshot, no data file
// added or removed. Small appends leave a manifest each until
// commit.manifest.min-count-to-merge of them are merged (magmalake's
// default is 4, other engines' 100), and every scan plan reads them all.
// A commit that lands first makes it plan again.
func (m *Maintenance) RewriteManifests(ctx context.Context, ident table.Identifier) (RewriteManifestsOutcome, error) {
	what := "rewrite manifests of " + IdentKey(ident)
	for attempt := 0; ; attempt++ {
		tbl, err := m.wh.LoadTable(ctx, ident)
		if err != nil {
			return RewriteManifestsOutcome{}, err
		}
		out, err := rewriteManifestsOnce(ctx, tbl)
		if err == nil || attempt >= 5 || !isRequirementFailure(err) {
			if err != nil {
				return out, fmt.Errorf("%s: %w", what, err)
			}
			return out, nil
		}
	}
}

func rewriteManifestsOnce(ctx context.Context, tbl *table.Table) (RewriteManifestsOutcome, error) {
	tx := tbl.NewTransaction()
	res, err := tx.RewriteManifests(ctx)
	if err != nil {
		return RewriteManifestsOutcome{}, err
	}
	if res.IsNoOp() {
		return RewriteManifestsOutcome{}, nil
	}
	committed, err := tx.Commit(ctx)
	if err != nil {
		return RewriteManifestsOutcome{}, err
	}
	out := RewriteManifestsOutcome{ReplacedManifests: len(res.RewrittenManifests), AddedManifests: len(res.AddedManifests)}
	if s := committed.CurrentSnapshot(); s != nil {
		out.SnapshotID = s.SnapshotID
	}
	return out, nil
}
