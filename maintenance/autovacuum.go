package maintenance

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
)

// PropAutoVacuumEnabled = 'false' keeps background maintenance off a table
// (PostgreSQL's autovacuum_enabled storage parameter).
const PropAutoVacuumEnabled = "magmalake.autovacuum.enabled"

// DefaultAutoVacuumBytes bounds the data-file bytes one pass rewrites.
const DefaultAutoVacuumBytes = 1 << 30

// orphanSweepEvery is how often a table's location is listed for orphans:
// they must be a week old anyway, and listing an object store costs.
const orphanSweepEvery = 24 * time.Hour

// autoVacuumBlockWait is how long a rewrite waits for open transaction
// blocks on its table to end: long enough for a short block to finish,
// short enough that the blocks held back meanwhile barely notice.
const autoVacuumBlockWait = time.Second

// autoVacuumRetry bounds a maintenance commit: it gives way rather than
// outwait the users' writers.
var autoVacuumRetry = lake.RetryPolicy{MaxAttempts: 3, MaxWait: 10 * time.Second}

// AutoVacuumOptions configure background maintenance (serve --auto-vacuum).
type AutoVacuumOptions struct {
	Interval time.Duration // between the starts of passes
	MaxBytes int64         // data-file bytes one pass rewrites at most; 0: DefaultAutoVacuumBytes
}

// AutoVacuum is background maintenance: each pass runs VACUUM's steps on
// every table whose debt passes its thresholds, one table at a time and a
// bounded amount of rewriting per pass. A user's statement never fails
// because of it. Rows other statements delete from the files a rewrite
// replaces while it runs are deleted from its new files (deletes.Rebase
// carries them by position), so under steady writes it still commits; a
// rewrite that cannot be carried (equality deletes, say) is dropped, not
// planned again. A transaction block publishes at COMMIT a change planned
// on the files it saw, so the rewrite commits only once the blocks of this
// server that touched the table have ended: it waits up to BlockWait for
// them, holding new ones back meanwhile, and gives way if one stays open.
// Snapshots a pass replaces are expired by a later pass at the earliest
// (expiry runs before the rewrite), so a query still reading them is not
// cut short.
type AutoVacuum struct {
	wh     *lake.Warehouse
	blocks Blocks
	opts   AutoVacuumOptions
	log    *slog.Logger
	// clean is the metadata file each table was last found in with nothing
	// to rewrite: unchanged (no commit, no property set), it is not planned
	// again.
	clean map[string]string
	// swept is when each table's orphans were last removed.
	swept map[string]time.Time
	// BlockWait bounds how long a rewrite waits for open blocks that
	// touched its table (and holds new ones back) before giving way; one
	// second unless changed before the first pass.
	BlockWait time.Duration
	// Planned, when set, runs between a rewrite's plan and its commit (the
	// window in which users' writes must be carried over or waited for):
	// tests act in it.
	Planned func(ident table.Identifier)
}

// Blocks is what background maintenance needs of the server's sessions:
// a turn on a table that no open transaction block touches, and the
// removal of files a rewrite wrote but did not publish.
type Blocks interface {
	// WhenIdle runs commit once no open block touches the table,
	// keeping new blocks out until it returns; it waits up to wait for
	// the open ones to end, and ran is false when they did not.
	WhenIdle(ident table.Identifier, wait time.Duration, commit func() error) (ran bool, err error)
	// Discard deletes files a rewrite wrote and never published.
	Discard(tbl *table.Table, paths []string)
}

// NewAutoVacuum prepares background maintenance of wh's tables; log may be
// nil.
func NewAutoVacuum(wh *lake.Warehouse, blocks Blocks, log *slog.Logger, opts AutoVacuumOptions) *AutoVacuum {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultAutoVacuumBytes
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &AutoVacuum{wh: wh, blocks: blocks, opts: opts, log: log, clean: map[string]string{}, swept: map[string]time.Time{}, BlockWait: autoVacuumBlockWait}
}

// Run makes a pass every Interval until ctx ends.
func (a *AutoVacuum) Run(ctx context.Context) {
	tick := time.NewTicker(a.opts.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			a.Pass(ctx)
		}
	}
}

// TableReport is what a pass did to one table.
type TableReport struct {
	Table    string
	Skipped  string // why the table was left alone, or ""
	GaveWay  string // why a rewrite was dropped, or ""
	Optimize deletes.OptimizeOutcome
	Expire   lake.ExpireOutcome
	Orphans  lake.OrphanOutcome
	Err      error
}

// DidWork reports whether the pass changed the table: rewrote files,
// expired snapshots or removed orphans.
func (r TableReport) DidWork() bool {
	return r.Optimize.RewrittenFiles > 0 || r.Expire.ExpiredSnapshots > 0 || r.Orphans.DeletedFiles > 0
}

// Pass vacuums every table whose debt passes its thresholds once; one
// table's failure is logged and does not stop the others.
func (a *AutoVacuum) Pass(ctx context.Context) []TableReport {
	idents, err := allTables(ctx, a.wh)
	if err != nil {
		a.log.Warn("autovacuum: list tables", "error", err.Error())
		return nil
	}
	budget := a.opts.MaxBytes
	var out []TableReport
	for _, ident := range idents {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		r := a.table(ctx, ident, &budget)
		a.logTable(r, time.Since(start))
		out = append(out, r)
	}
	return out
}

// table runs the steps due on one table: expiry, orphans, then the rewrite.
func (a *AutoVacuum) table(ctx context.Context, ident table.Identifier, budget *int64) TableReport {
	key := lake.IdentKey(ident)
	r := TableReport{Table: key}
	tbl, err := a.wh.LoadTable(ctx, ident)
	switch {
	case errors.Is(err, lake.ErrNoSuchTable):
		r.Skipped = "dropped"
		return r
	case err != nil:
		r.Err = err
		return r
	case tbl.Properties()[PropAutoVacuumEnabled] == "false":
		r.Skipped = PropAutoVacuumEnabled + " is false"
		return r
	}
	age, keep := retentionOf(tbl)
	// The steps are independent: one failing does not keep the others
	// from running (a rewrite is most needed on the busiest tables, where
	// expiry may lose to another server's commits).
	var errs []error
	// Open blocks, cursors and queries read snapshots a short retention
	// could expire (and their files with them): expiry keeps the oldest
	// one read and every newer one (lake.Readers).
	if expirable(tbl.Metadata(), age, keep, time.Now()) {
		r.Expire, err = a.wh.Maintenance().ExpireSnapshots(ctx, ident, age, keep)
		r.Expire.Deleted = nil // the counts are the report
		errs = append(errs, err)
	}
	if time.Since(a.swept[key]) >= orphanSweepEvery {
		if r.Orphans, err = a.wh.Maintenance().RemoveOrphanFiles(ctx, ident, orphanRetention); err == nil {
			a.swept[key] = time.Now()
		}
		errs = append(errs, err)
	}
	if *budget > 0 {
		errs = append(errs, a.optimize(ctx, ident, budget, &r))
	}
	r.Err = errors.Join(errs...)
	return r
}

// optimize rewrites what passes the table's thresholds, within budget, and
// commits it unless a user got there first.
func (a *AutoVacuum) optimize(ctx context.Context, ident table.Identifier, budget *int64, r *TableReport) error {
	key := lake.IdentKey(ident)
	head, err := a.wh.LoadTable(ctx, ident)
	if err != nil {
		return err
	}
	if loc, ok := a.clean[key]; ok && loc == head.MetadataLocation() {
		return nil
	}
	// The rewrite's files are unreferenced until it commits: orphan
	// removal leaves them alone meanwhile, here and (through the table's
	// properties) on other servers.
	_, unhold := a.wh.Commits().Writes().Hold(ident, time.Now())
	defer unhold()
	since, err := a.wh.Commits().WriteStart(ctx, head)
	if err != nil {
		return err
	}
	ctx = lake.WithWriteStart(ctx, since)
	opts := deletes.OptimizeOptions{MaxRewriteBytes: *budget}
	opts.SizeThreshold, opts.RatioThreshold = vacuumThresholds(head)
	change, written, err := deletes.PrepareOptimize(ctx, head, opts, &r.Optimize)
	if err != nil {
		a.blocks.Discard(head, written)
		r.Optimize = deletes.OptimizeOutcome{}
		return err
	}
	if change.IsEmpty() {
		a.clean[key] = head.MetadataLocation()
		r.Optimize = deletes.OptimizeOutcome{}
		return nil
	}
	if a.Planned != nil {
		a.Planned(ident)
	}
	ran, err := a.blocks.WhenIdle(ident, a.BlockWait, func() error {
		_, err := a.wh.Commits().CommitLoop(autoVacuumRetry).Publish(ctx, head, change)
		return err
	})
	switch {
	case err == nil && ran:
		*budget -= r.Optimize.RewrittenBytes
		return nil
	case errors.Is(err, lake.ErrCommitUnknown):
		return err // it may have landed: its files stay
	case !ran:
		r.GaveWay = "a transaction block that touched the table stayed open"
	case errors.Is(err, lake.ErrReplan) || errors.Is(err, lake.ErrConflict):
		r.GaveWay = "a concurrent commit changed the files it rewrote"
		err = nil
	}
	a.blocks.Discard(head, written)
	r.Optimize = deletes.OptimizeOutcome{}
	return err
}

// expirable reports whether expiring by age and keep may remove a
// snapshot: one older than the age that no branch or tag points at, with
// more than keep snapshots in all. It may say yes when iceberg-go's rules
// keep them after all; expiry then does nothing.
func expirable(md table.Metadata, age time.Duration, keep int, now time.Time) bool {
	snaps := md.Snapshots()
	if len(snaps) <= keep {
		return false
	}
	heads := map[int64]bool{}
	for _, ref := range md.Refs() {
		heads[ref.SnapshotID] = true
	}
	cutoff := now.Add(-age).UnixMilli()
	for _, s := range snaps {
		if s.TimestampMs < cutoff && !heads[s.SnapshotID] {
			return true
		}
	}
	return false
}

func (a *AutoVacuum) logTable(r TableReport, took time.Duration) {
	switch {
	case r.Err != nil:
		a.log.Warn("autovacuum failed", "table", r.Table, "error", r.Err.Error())
	case r.GaveWay != "":
		a.log.Info("autovacuum gave way", "table", r.Table, "reason", r.GaveWay)
	case r.DidWork():
		a.log.Info("autovacuum", "table", r.Table, "duration_ms", took.Milliseconds(),
			"rewritten_files", r.Optimize.RewrittenFiles, "added_files", r.Optimize.AddedFiles,
			"removed_delete_files", r.Optimize.RemovedDeleteFiles, "purged_rows", r.Optimize.PurgedRows,
			"expired_snapshots", r.Expire.ExpiredSnapshots, "deleted_files", r.Expire.DeletedFiles+r.Orphans.DeletedFiles,
			"deleted_bytes", r.Expire.DeletedBytes+r.Orphans.DeletedBytes)
	}
}
