package lake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
)

// ErrNotAtomic says the catalog cannot commit several tables in one
// request: the caller publishes them one by one.
var ErrNotAtomic = errors.New("the catalog cannot commit several tables atomically")

// Publication is one table's part of a multi-table commit: the change
// planned against Base.
type Publication struct {
	Base   *table.Table
	Change FileChange
}

// TableError is a multi-table commit's failure that belongs to one table
// (its change must be planned again, or the table is gone).
type TableError struct {
	Table table.Identifier
	Err   error
}

func (e *TableError) Error() string { return IdentKey(e.Table) + ": " + e.Err.Error() }
func (e *TableError) Unwrap() error { return e.Err }

// pubState is one table's attempt inside PublishAll.
type pubState struct {
	turn    *tableTurn
	head    *table.Table
	change  FileChange
	written []string // files the loop wrote while rebasing
	staged  *StagedChange
	tries   int // attempts at the catalog, the current one included
}

// Atomic reports whether the loop's catalog offers multi-table commits
// (the REST catalog's POST /v1/transactions/commit). A server that does
// not advertise the endpoint is found out by PublishAll (ErrNotAtomic).
func (l CommitLoop) Atomic() bool {
	_, ok := l.Catalog.(catalog.TransactionalCatalog)
	return ok
}

// PublishAll commits every publication's change, one snapshot per table,
// all in one catalog transaction: either every table moves or none does.
// It holds the tables' turns (taken in the order given, which callers keep
// sorted, so two blocks never wait for each other) and, when another writer
// moved a table first, rebases that table's change onto the new head and
// tries again, as Publish does for one table; a change that no longer
// means the same there fails with an error wrapping ErrReplan, and nothing
// is committed. It returns the committed tables in the order given. The
// caller owns the changes' files; files the loop wrote are removed unless
// the outcome is unknown (ErrCommitUnknown).
func (l CommitLoop) PublishAll(ctx context.Context, pubs []Publication) ([]*table.Table, error) {
	tc, ok := l.Catalog.(catalog.TransactionalCatalog)
	if !ok {
		return nil, ErrNotAtomic
	}
	states, err := l.takeTurns(ctx, pubs)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range states {
			s.turn.release()
		}
	}()
	p := l.Policy.withDefaults()
	start := time.Now()
	for tries := 1; ; tries++ {
		err := l.commitAll(ctx, tc, states)
		if err == nil {
			return l.published(ctx, states)
		}
		if !IsConflict(err) || errors.Is(err, ErrCommitUnknown) {
			if !errors.Is(err, ErrCommitUnknown) {
				discardRebased(states)
			}
			return nil, err
		}
		if p.exhausted(tries, time.Since(start)) {
			discardRebased(states)
			return nil, fmt.Errorf("%w after %d attempts in %v: %v", ErrConflict, tries, time.Since(start).Round(time.Millisecond), err)
		}
		if err := commitSleep(ctx, p.backoff(tries-1)); err != nil {
			discardRebased(states)
			return nil, err
		}
		if err := l.rebaseAll(ctx, states); err != nil {
			discardRebased(states)
			return nil, err
		}
	}
}

// takeTurns waits for every table's turn, in order.
func (l CommitLoop) takeTurns(ctx context.Context, pubs []Publication) ([]*pubState, error) {
	states := make([]*pubState, 0, len(pubs))
	timeout, stop := lockWait(ctx)
	defer stop()
	for _, pub := range pubs {
		turn := l.Queue.turnOf(pub.Base.Identifier(), l.Branch)
		var err error
		select {
		case turn.turn <- struct{}{}:
		case <-ctx.Done():
			err = ctx.Err()
		case <-timeout:
			err = ErrLockTimeout
		}
		if err != nil {
			for _, s := range states {
				s.turn.release()
			}
			return nil, err
		}
		states = append(states, &pubState{turn: turn, head: pub.Base, change: pub.Change})
	}
	return states, nil
}

// commitAll stages every table's change on its head and sends them as one
// transaction. An unknown outcome is resolved by reloading the tables: all
// snapshots there is success, none is a failure, anything else is
// ErrCommitUnknown.
func (l CommitLoop) commitAll(ctx context.Context, tc catalog.TransactionalCatalog, states []*pubState) error {
	commits := make([]table.TableCommit, 0, len(states))
	for _, s := range states {
		s.tries++
		staged, err := stageChange(ctx, s.head, l.onBranch(withCommitCounts(s.change, 1, s.tries)), l.Manifests)
		if err != nil {
			discardStaged(states)
			return fmt.Errorf("commit change to %s: %w", IdentKey(s.head.Identifier()), err)
		}
		s.staged = staged
		commits = append(commits, table.TableCommit{Identifier: s.head.Identifier(),
			Requirements: withSweepRequirement(l.Catalog, staged.Requirements, writeStartOf(ctx), l.Self), Updates: staged.Updates})
	}
	if err := ctx.Err(); err != nil {
		discardStaged(states)
		return err
	}
	// Like a single table's swap, the request is not cancellable.
	err := tc.CommitTransaction(context.WithoutCancel(ctx), commits)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rest.ErrEndpointNotSupported) || errors.Is(err, ErrNotAtomic):
		discardStaged(states)
		return ErrNotAtomic
	case IsConflict(err) || errors.Is(err, catalog.ErrNoSuchTable):
		discardStaged(states)
		return mapCatalogErr("commit transaction of "+tableList(states), err)
	}
	landed, lerr := l.landedAll(ctx, states)
	switch {
	case lerr == nil && landed == len(states):
		return nil
	case lerr == nil && landed == 0:
		discardStaged(states)
		return fmt.Errorf("commit transaction of %s: %w", tableList(states), err)
	}
	return fmt.Errorf("commit transaction of %s: %w (%w)", tableList(states), err, ErrCommitUnknown)
}

// landedAll counts the tables whose staged snapshot is in the catalog now.
func (l CommitLoop) landedAll(ctx context.Context, states []*pubState) (int, error) {
	n := 0
	for _, s := range states {
		now, err := l.Catalog.LoadTable(context.WithoutCancel(ctx), s.head.Identifier())
		if err != nil {
			return 0, err
		}
		if now.SnapshotByID(s.staged.Snapshot.SnapshotID) != nil {
			n++
		}
	}
	return n, nil
}

// rebaseAll reloads every table and carries each change that another
// writer overtook onto the new head.
func (l CommitLoop) rebaseAll(ctx context.Context, states []*pubState) error {
	for _, s := range states {
		head, err := l.load(ctx, s.head.Identifier())
		if err != nil {
			return &TableError{Table: s.head.Identifier(), Err: err}
		}
		if head.MetadataLocation() == s.head.MetadataLocation() {
			continue
		}
		if sweptIn(head.Metadata(), writeStartOf(ctx), l.Self) {
			return &TableError{Table: s.head.Identifier(), Err: fmt.Errorf("%w: %w", ErrConflict, ErrSwept)}
		}
		change, extra, err := s.change.rebaser()(ctx, RebaseInput{Base: s.head, Head: head, Change: s.change, live: l.liveOf(s.turn)})
		s.written = append(s.written, extra...)
		if err != nil {
			return &TableError{Table: s.head.Identifier(), Err: err}
		}
		s.head, s.change = head, change
	}
	return nil
}

// published loads the committed tables (the transaction endpoint answers
// no metadata) and makes them the turns' latest.
func (l CommitLoop) published(ctx context.Context, states []*pubState) ([]*table.Table, error) {
	out := make([]*table.Table, len(states))
	for i, s := range states {
		tbl, err := l.load(context.WithoutCancel(ctx), s.head.Identifier())
		if err != nil {
			return nil, err
		}
		s.turn.last = tbl
		out[i] = tbl
		reportCommit(ctx, tbl, s.change)
	}
	return out, nil
}

func discardStaged(states []*pubState) {
	for _, s := range states {
		s.staged.Discard()
		s.staged = nil
	}
}

// discardRebased removes what rebasing wrote for a transaction that will
// not commit.
func discardRebased(states []*pubState) {
	for _, s := range states {
		commitRemoveWritten(s.head, s.written)
		s.written = nil
	}
}

func tableList(states []*pubState) string {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = IdentKey(s.head.Identifier())
	}
	return strings.Join(slices.Compact(names), ", ")
}
