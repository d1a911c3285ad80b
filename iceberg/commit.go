package iceberg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// ErrConflict is returned when another writer kept moving the table and every
// attempt of a statement lost the race. The executor maps it to SQLSTATE 40001.
var ErrConflict = errors.New("commit conflict: the table was changed concurrently")

// RetryPolicy bounds CommitWithRetry. Zero fields take the defaults.
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first; default 6
	MinBackoff  time.Duration // default 20ms
	MaxBackoff  time.Duration // default 1s
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 6
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = 20 * time.Millisecond
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = time.Second
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = p.MinBackoff
	}
	return p
}

// backoff is exponential with full jitter, so racing writers spread out.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.MinBackoff << min(attempt, 20)
	if d <= 0 || d > p.MaxBackoff {
		d = p.MaxBackoff
	}
	return p.MinBackoff/2 + rand.N(d)
}

// IsConflict reports whether err means "the table moved under us": iceberg-go
// signals that as table.ErrCommitFailed (and its wrappers), as
// table.ErrCommitDiverged, or, on the SQL catalog, as a plain error whose
// message starts with "requirement failed:".
func IsConflict(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrConflict) || errors.Is(err, table.ErrCommitFailed) || errors.Is(err, table.ErrCommitDiverged) {
		return true
	}
	return strings.Contains(err.Error(), "requirement failed:")
}

// AttemptFunc builds one attempt of a statement against head. It returns the
// staged transaction (nil: nothing to commit) and every file it wrote, so a
// failed attempt can be cleaned up. It must not commit.
type AttemptFunc func(ctx context.Context, head *table.Table) (tx *table.Transaction, written []string, err error)

// CommitWithRetry loads the head of ident, runs attempt and commits its
// transaction; on a conflict it removes the attempt's files, waits, reloads and
// tries again. It returns the committed table, or the head unchanged when an
// attempt staged nothing. Files of a failed or cancelled attempt are removed.
func CommitWithRetry(ctx context.Context, cat catalog.Catalog, ident table.Identifier, policy RetryPolicy, attempt AttemptFunc) (*table.Table, error) {
	policy = policy.withDefaults()
	var lastErr error
	for n := 0; n < policy.MaxAttempts; n++ {
		if n > 0 {
			if err := commitSleep(ctx, policy.backoff(n-1)); err != nil {
				return nil, err
			}
		}
		committed, err := commitOnce(ctx, cat, ident, attempt)
		if err == nil {
			return committed, nil
		}
		if !IsConflict(err) || ctx.Err() != nil {
			return nil, err
		}
		lastErr = err
	}
	return nil, fmt.Errorf("%w after %d attempts: %v", ErrConflict, policy.MaxAttempts, lastErr)
}

// commitOnce is one load-plan-write-commit round; it cleans up its own files
// on any failure. An attempt may return its transaction along with an error
// so the manifests it staged are removed too.
func commitOnce(ctx context.Context, cat catalog.Catalog, ident table.Identifier, attempt AttemptFunc) (*table.Table, error) {
	head, err := cat.LoadTable(ctx, ident)
	if err != nil {
		return nil, withCtxErr(ctx, mapCatalogErr(fmt.Sprintf("load table %s", strings.Join(ident, ".")), err))
	}
	tx, written, err := attempt(ctx, head)
	if err == nil && tx == nil {
		return head, nil
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		commitRemoveWritten(head, append(written, commitStagedFiles(head, tx)...))
		return nil, err
	}
	staged := commitStagedFiles(head, tx)
	// Past this point the statement is no longer cancellable: a swap cut
	// short by cancellation leaves the catalog's new metadata file behind,
	// and whether it landed is then uncertain.
	committed, err := tx.Commit(context.WithoutCancel(ctx))
	if err != nil {
		if !commitLanded(cat, ident, head, tx) {
			commitRemoveWritten(head, append(written, staged...))
		}
		return nil, withCtxErr(ctx, err)
	}
	return committed, nil
}

// commitStagedFiles lists the manifest lists and manifests tx staged on top
// of head: iceberg-go writes them before the catalog swap and never removes
// them when the swap does not happen.
func commitStagedFiles(head *table.Table, tx *table.Transaction) []string {
	if tx == nil {
		return nil
	}
	staged, err := tx.StagedTable()
	if err != nil {
		return nil
	}
	fs, err := head.FS(context.Background())
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range commitNewSnapshots(head, staged.Table) {
		out = append(out, s.ManifestList)
		mfs, err := s.Manifests(fs)
		if err != nil {
			continue
		}
		for _, m := range mfs {
			if m.SnapshotID() == s.SnapshotID {
				out = append(out, m.FilePath())
			}
		}
	}
	return out
}

// commitNewSnapshots are the snapshots of staged that head does not have.
func commitNewSnapshots(head, staged *table.Table) []table.Snapshot {
	var out []table.Snapshot
	for _, s := range staged.Metadata().Snapshots() {
		if head.SnapshotByID(s.SnapshotID) == nil {
			out = append(out, s)
		}
	}
	return out
}

// commitLanded tells whether a commit that returned an error was applied
// after all (a cancelled or ambiguous swap): only when it was not may its
// files be removed.
func commitLanded(cat catalog.Catalog, ident table.Identifier, head *table.Table, tx *table.Transaction) bool {
	staged, err := tx.StagedTable()
	if err != nil {
		return true
	}
	now, err := cat.LoadTable(context.Background(), ident)
	if err != nil {
		return true // cannot tell: keep the files
	}
	for _, s := range commitNewSnapshots(head, staged.Table) {
		if now.SnapshotByID(s.SnapshotID) != nil {
			return true
		}
	}
	return false
}

// commitRemoveWritten deletes files of an attempt that did not commit. It must run
// even when the statement's ctx is cancelled, so it uses its own context.
func commitRemoveWritten(tbl *table.Table, paths []string) {
	if len(paths) == 0 {
		return
	}
	fs, err := tbl.FS(context.Background())
	if err != nil {
		return
	}
	RemoveWrittenFiles(fs, paths)
}

// RemoveWrittenFiles removes paths best-effort: a file that is already gone or
// cannot be removed is left for orphan cleanup.
func RemoveWrittenFiles(fs iceio.IO, paths []string) {
	for _, p := range paths {
		_ = fs.Remove(p)
	}
}

func commitSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// withCtxErr makes a failure caused by cancelling ctx say so: database/sql
// answers a cancelled transaction with ErrTxDone, which would otherwise
// reach the client as an internal error instead of a cancellation.
func withCtxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}
