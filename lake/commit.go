package lake

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// ErrConflict is returned when another writer kept moving the table and every
// attempt of a statement lost the race. The executor maps it to SQLSTATE 40001.
var ErrConflict = errors.New("commit conflict: the table was changed concurrently")

// RetryPolicy bounds how long a commit keeps trying against concurrent
// writers. Zero fields take the defaults.
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first; default 0: no limit but MaxWait
	MaxWait     time.Duration // how long to keep trying; default 60s (a statement_timeout ends it sooner)
	MinBackoff  time.Duration // default 5ms
	MaxBackoff  time.Duration // default 250ms
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxWait <= 0 {
		p.MaxWait = time.Minute
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = 5 * time.Millisecond
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 250 * time.Millisecond
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = p.MinBackoff
	}
	return p
}

// exhausted reports whether a commit that lost tries rounds in elapsed
// should give up.
func (p RetryPolicy) exhausted(tries int, elapsed time.Duration) bool {
	return (p.MaxAttempts > 0 && tries >= p.MaxAttempts) || elapsed >= p.MaxWait
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
// message starts with "requirement failed:". A commit to another branch
// moves no ref a commit requires, yet takes the sequence number (and v3
// row ids) the commit was staged with: the metadata builder's refusal of
// those is the same race.
func IsConflict(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrConflict) || errors.Is(err, table.ErrCommitFailed) || errors.Is(err, table.ErrCommitDiverged) {
		return true
	}
	// SQLite under concurrent writers may still report a busy database
	// after its busy timeout: the commit did not happen, try again.
	msg := err.Error()
	return strings.Contains(msg, "requirement failed:") || strings.Contains(msg, "database is locked") ||
		strings.Contains(msg, "can't add snapshot with sequence number") ||
		(errors.Is(err, table.ErrInvalidRowLineage) && strings.Contains(msg, "is behind table next-row-id"))
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
