package iceberg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// SweepCutoffProperty is how orphan removal tells every other magmalake
// process writing the table that it may remove their files: before listing
// the table's files it records, in the table's properties, the newest
// modification time (ms) a file it removes can have. A writer whose commit
// finds, on a head that moved, a cutoff later than when it began writing
// its files cannot know they are all still there: it plans its change
// again (a statement) or fails with 40001 (a transaction block), and never
// commits a snapshot that names a removed file. A writer whose compare and
// swap came first committed its files, which the sweep finds referenced
// when it reads the head again after listing.
const SweepCutoffProperty = "magmalake.orphan-sweep.cutoff-ms"

// ErrSwept: an orphan sweep of another process may have removed files the
// change names.
var ErrSwept = errors.New("an orphan sweep that began meanwhile may have removed the files written for the change")

// sweptSince reports whether head records a sweep that may have removed a
// file written since since.
func sweptSince(head *table.Table, since time.Time) bool {
	return sweptIn(head.Metadata(), since)
}

func sweptIn(meta table.Metadata, since time.Time) bool {
	v, ok := meta.Properties()[SweepCutoffProperty]
	if !ok || since.IsZero() {
		return false
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	return err == nil && ms > since.Add(-writeSlack).UnixMilli()
}

// WriteStart is when a writer that read head may start writing files it
// commits later (an attempt of the commit loop, an INSERT, a transaction
// block, a rewrite): once writeSlack has passed since the cutoff of the
// latest sweep head records, it waits for that first, so that nothing it
// writes is at risk from that sweep and its commit need not give way.
func WriteStart(ctx context.Context, head *table.Table) (time.Time, error) {
	v, ok := head.Properties()[SweepCutoffProperty]
	if !ok {
		return time.Now(), nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Now(), nil
	}
	if wait := time.Until(time.UnixMilli(ms + 1).Add(writeSlack)); wait > 0 {
		if err := commitSleep(ctx, wait); err != nil {
			return time.Time{}, err
		}
	}
	return time.Now(), nil
}

// sweepRequirement makes a commit fail as a conflict when the metadata it
// lands on records a sweep that may have removed files written since
// since: the sweep's own commit changes no ref, so the requirements a data
// commit has otherwise would let it through. Only the catalogs that check
// requirements here (sqlCommitCatalog) can take it; a REST server does not
// know it.
type sweepRequirement struct{ since time.Time }

func (r sweepRequirement) GetType() string { return "assert-no-orphan-sweep-since" }

func (r sweepRequirement) Validate(meta table.Metadata) error {
	if sweptIn(meta, r.since) {
		return ErrSwept
	}
	return nil
}

// withSweepRequirement adds sweepRequirement to reqs when cat checks it
// and since is known.
func withSweepRequirement(cat catalog.Catalog, reqs []table.Requirement, since time.Time) []table.Requirement {
	if since.IsZero() || !checksLocally(cat) {
		return reqs
	}
	return append(slices.Clip(reqs), sweepRequirement{since})
}

// checksLocally reports whether cat validates requirements in this process.
func checksLocally(cat catalog.Catalog) bool {
	switch c := cat.(type) {
	case *pinningCatalog:
		return checksLocally(c.Catalog)
	case *transactionalPinning:
		return checksLocally(c.pinningCatalog.Catalog)
	case *sqlCommitCatalog:
		return true
	}
	return false
}

// announceSweep records cutoff in the table's properties unless a later
// one is there already.
func (w *Warehouse) announceSweep(ctx context.Context, ident table.Identifier, cutoff time.Time) error {
	ms := cutoff.UnixMilli()
	release, err := w.HoldCommits(ctx, ident)
	if err != nil {
		return err
	}
	defer release()
	for attempt := 0; ; attempt++ {
		tbl, err := w.LoadTable(withoutReadSet(ctx), ident)
		if err != nil {
			return err
		}
		if v, err := strconv.ParseInt(tbl.Properties()[SweepCutoffProperty], 10, 64); err == nil && v >= ms {
			return nil
		}
		reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID())}
		ups := []table.Update{table.NewSetPropertiesUpdate(map[string]string{SweepCutoffProperty: strconv.FormatInt(ms, 10)})}
		_, _, err = w.cat.CommitTable(ctx, ident, reqs, ups)
		if err == nil {
			return nil
		}
		if attempt >= 20 || !(isRequirementFailure(err) || IsConflict(err)) {
			return fmt.Errorf("record the sweep's cutoff: %w", err)
		}
		if err := commitSleep(ctx, time.Duration(attempt+1)*time.Millisecond); err != nil {
			return err
		}
	}
}

type writeStartKey struct{}

// WithWriteStart tells a commit under ctx when the files of the change it
// publishes began to be written (a transaction block's first write), so
// that it can tell whether a sweep may have removed them.
func WithWriteStart(ctx context.Context, since time.Time) context.Context {
	return context.WithValue(ctx, writeStartKey{}, since)
}

// writeStartOf is ctx's write start, else now.
func writeStartOf(ctx context.Context) time.Time {
	if t, ok := ctx.Value(writeStartKey{}).(time.Time); ok {
		return t
	}
	return time.Now()
}
