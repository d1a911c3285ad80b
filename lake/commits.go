package lake

import (
	"context"

	"github.com/apache/iceberg-go/table"
)

// Commits is how a warehouse's statements commit — through its catalog, in
// this process's per-table order, reading manifests through one cache —
// and what its readers and writers hold meanwhile: the snapshots read,
// which expiry keeps, and the writes not yet committed, which orphan
// removal spares.
type Commits struct {
	wh        *Warehouse
	queue     *CommitQueue
	manifests *ManifestCache // entries of manifests its commits read
	readers   Readers        // the snapshots this process's statements read
	writes    Writes         // this process's writers with files not yet committed
	process   string         // names this warehouse's sweeps in tables' properties
}

// Manifests is the warehouse's cache of decoded manifests, for plans
// (PlanRequest.Manifests) as for its commits.
func (c *Commits) Manifests() *ManifestCache { return c.manifests }

// CommitLoop is how this warehouse's statements commit: through its
// catalog, in this process's per-table order.
func (c *Commits) CommitLoop(policy RetryPolicy) CommitLoop {
	return CommitLoop{Catalog: c.wh.cat, Policy: policy, Queue: c.queue, Manifests: c.manifests, Self: c.process}
}

// StageView stages change on base to be read, not committed (a
// transaction block's view of its changes so far): StageChange reading the
// parent's manifests through the warehouse's cache, as its commits do, and
// merging no manifests. Discard it once read.
func (c *Commits) StageView(ctx context.Context, base *table.Table, change FileChange) (*StagedChange, error) {
	return stage(ctx, base, change, c.manifests, true)
}

// Readers are the snapshots this process's statements and blocks read,
// which expiry keeps.
func (c *Commits) Readers() *Readers { return &c.readers }

// Writes are this process's writers whose files are not committed yet,
// which orphan removal leaves alone.
func (c *Commits) Writes() *Writes { return &c.writes }
