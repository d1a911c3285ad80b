package lake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// How orphan removal tells the other magmalake processes writing a table
// that it may remove their files: before listing the table's files it
// records, in the table's properties, under a key of its own process
// (magmalake.orphan-sweep.<process>.cutoff-ms), the newest modification
// time (ms) a file it removes can have. A writer of another process whose
// commit finds a cutoff later than when it began writing its files cannot
// know they are all still there: it plans its change again (a statement)
// or fails with 40001 (an INSERT's or a block's files, written before the
// commit), and never commits a snapshot that names a removed file. A writer
// whose compare and swap came first committed its files, which the sweep
// finds referenced when it reads the head again after listing. A process's
// own writers are protected by Writes, and ignore its own key.
const (
	sweepKeyPrefix = "magmalake.orphan-sweep."
	sweepKeySuffix = ".cutoff-ms"
)

// sweepKeyStale: a key whose cutoff is older than this is dropped by the
// next sweep of any process (its process is long gone, or swept since).
const sweepKeyStale = 7 * 24 * time.Hour

// ErrSwept: an orphan sweep of another process may have removed files the
// change names.
var ErrSwept = errors.New("an orphan sweep that began meanwhile may have removed the files written for the change")

// newProcessID names this process's sweeps in the tables' properties.
func newProcessID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// sweepCutoffs are the cutoffs props records, by process.
func sweepCutoffs(props map[string]string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range props {
		if !strings.HasPrefix(k, sweepKeyPrefix) || !strings.HasSuffix(k, sweepKeySuffix) {
			continue
		}
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[strings.TrimSuffix(strings.TrimPrefix(k, sweepKeyPrefix), sweepKeySuffix)] = ms
		}
	}
	return out
}

// latestForeignSweep is the latest cutoff (ms) a process other than self
// recorded in meta; 0: none.
func latestForeignSweep(meta table.Metadata, self string) int64 {
	var latest int64
	for proc, ms := range sweepCutoffs(meta.Properties()) {
		if proc != self {
			latest = max(latest, ms)
		}
	}
	return latest
}

// sweptIn reports whether meta records a sweep of a process other than
// self that may have removed a file written since since.
func sweptIn(meta table.Metadata, since time.Time, self string) bool {
	ms := latestForeignSweep(meta, self)
	return ms > 0 && !since.IsZero() && ms > since.Add(-writeSlack).UnixMilli()
}

// writeStartAfter is when a writer of process self that read head may
// start writing files it commits later: once writeSlack has passed since
// the latest cutoff another process recorded, it waits for that first, so
// that nothing it writes is at risk from that sweep and its commit need not
// give way.
func writeStartAfter(ctx context.Context, head *table.Table, self string) (time.Time, error) {
	if ms := latestForeignSweep(head.Metadata(), self); ms > 0 {
		if wait := time.Until(time.UnixMilli(ms + 1).Add(writeSlack)); wait > 0 {
			if err := commitSleep(ctx, wait); err != nil {
				return time.Time{}, err
			}
		}
	}
	return time.Now(), nil
}

// WriteStart is writeStartAfter for a writer of this warehouse (an INSERT,
// a transaction block, a rewrite).
func (c *Commits) WriteStart(ctx context.Context, head *table.Table) (time.Time, error) {
	return writeStartAfter(ctx, head, c.process)
}

// sweepRequirement makes a commit fail as a conflict when the metadata it
// lands on records a sweep of another process that may have removed files
// written since since: the sweep's own commit changes no ref, so the
// requirements a data commit has otherwise would let it through. Only the
// catalogs that check requirements here (sqlCommitCatalog) can take it; a
// REST server does not know it.
type sweepRequirement struct {
	since time.Time
	self  string
}

func (r sweepRequirement) GetType() string { return "assert-no-orphan-sweep-since" }

func (r sweepRequirement) Validate(meta table.Metadata) error {
	if sweptIn(meta, r.since, r.self) {
		return ErrSwept
	}
	return nil
}

// withSweepRequirement adds sweepRequirement to reqs when cat checks it
// and since is known.
func withSweepRequirement(cat catalog.Catalog, reqs []table.Requirement, since time.Time, self string) []table.Requirement {
	if since.IsZero() || !checksLocally(cat) {
		return reqs
	}
	return append(slices.Clip(reqs), sweepRequirement{since: since, self: self})
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

// announceSweep records cutoff under this process's key unless a later
// one is there already, dropping stale keys of any process.
func (m *Maintenance) announceSweep(ctx context.Context, ident table.Identifier, cutoff time.Time) error {
	ms := cutoff.UnixMilli()
	release, err := m.commits.HoldCommits(ctx, ident)
	if err != nil {
		return err
	}
	defer release()
	own := sweepKeyPrefix + m.commits.process + sweepKeySuffix
	for attempt := 0; ; attempt++ {
		tbl, err := m.wh.LoadTable(withoutReadSet(ctx), ident)
		if err != nil {
			return err
		}
		cutoffs := sweepCutoffs(tbl.Properties())
		if cutoffs[m.commits.process] >= ms {
			return nil
		}
		var stale []string
		for proc, at := range cutoffs {
			if proc != m.commits.process && time.Since(time.UnixMilli(at)) > sweepKeyStale {
				stale = append(stale, sweepKeyPrefix+proc+sweepKeySuffix)
			}
		}
		reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID())}
		ups := []table.Update{table.NewSetPropertiesUpdate(map[string]string{own: strconv.FormatInt(ms, 10)})}
		if len(stale) > 0 {
			ups = append(ups, table.NewRemovePropertiesUpdate(stale))
		}
		_, _, err = m.wh.cat.CommitTable(ctx, ident, reqs, ups)
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
