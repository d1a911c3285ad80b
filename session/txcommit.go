package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// commitBlock publishes the block's net change of every table, one snapshot
// each. When the block changed several tables and the catalog can commit
// them in one transaction (REST), it does: all tables move or none.
// Otherwise they are published one by one in a fixed order, and a failure
// after some tables were published is reported as such (40003) rather than
// hidden; the tables not yet published are left as they were.
func (b *txBlock) commitBlock(ctx context.Context) error {
	if err := b.flushAll(ctx); err != nil {
		return err
	}
	var changed []*txTable
	for _, tt := range b.sortedTables() {
		if tt.net.IsEmpty() {
			removeTableFiles(tt.base, tt.orphans)
			continue
		}
		changed = append(changed, tt)
	}
	// The block's files are as old as its first touch of a table: a
	// sweep of another process since then makes the commit fail rather
	// than name a removed file (see lake/sweep_marker.go).
	ctx = lake.WithWriteStart(ctx, blockWriteStart(changed))
	loop := b.commitLoop(b.branch)
	if len(changed) > 1 && loop.Atomic() {
		err := b.publishAll(ctx, loop, changed)
		if !errors.Is(err, lake.ErrNotAtomic) {
			return err
		}
	}
	return b.publishEach(ctx, changed)
}

// blockWriteStart is when the earliest of the tables was first touched.
func blockWriteStart(tables []*txTable) time.Time {
	var since time.Time
	for _, tt := range tables {
		if since.IsZero() || tt.since.Before(since) {
			since = tt.since
		}
	}
	return since
}

// publishEach publishes the tables one after the other.
func (b *txBlock) publishEach(ctx context.Context, tables []*txTable) error {
	var done []string
	for i, tt := range tables {
		if err := b.publish(ctx, tt); err != nil {
			for _, rest := range tables[i:] {
				rest.abandon()
			}
			if len(done) == 0 {
				return err
			}
			return &pgerr.Error{Code: pgerr.StatementCompletionUnknown,
				Message: fmt.Sprintf("COMMIT was only partly applied: %s failed: %v", lake.IdentKey(tt.ident), err),
				Detail:  "Committed before the failure: " + strings.Join(done, ", ") + ". The catalog cannot commit several tables atomically.",
				Err:     err}
		}
		done = append(done, lake.IdentKey(tt.ident))
	}
	return nil
}

// publishAll commits the tables in one catalog transaction. ErrNotAtomic
// (the server does not offer it) leaves everything as it was, for
// publishEach.
func (b *txBlock) publishAll(ctx context.Context, loop lake.CommitLoop, tables []*txTable) error {
	pubs := make([]lake.Publication, len(tables))
	for i, tt := range tables {
		tt.staged.Discard()
		tt.staged = nil
		pubs[i] = lake.Publication{Base: tt.base, Change: tt.net}
	}
	_, err := loop.PublishAll(ctx, pubs)
	if errors.Is(err, lake.ErrNotAtomic) {
		return err
	}
	if err != nil {
		if !errors.Is(err, lake.ErrCommitUnknown) {
			for _, tt := range tables {
				tt.abandon()
			}
		}
		return blockCommitError(err)
	}
	for _, tt := range tables {
		removeTableFiles(tt.base, tt.orphans)
	}
	return nil
}

// blockCommitError is what a client is told when a block's commit failed.
func blockCommitError(err error) error {
	var te *lake.TableError
	if !errors.As(err, &te) {
		return err
	}
	if errors.Is(err, lake.ErrReplan) {
		return &pgerr.Error{Code: pgerr.SerializationFailure,
			Message: fmt.Sprintf("could not serialize access due to concurrent update of %s", lake.IdentKey(te.Table)),
			Detail:  strings.TrimPrefix(te.Err.Error(), lake.ErrReplan.Error()+": "), Err: err}
	}
	return droppedConcurrently(te.Table, err)
}

// publish commits one table's net change. If another session committed to
// the table since the block first read it, the change is rebased onto the
// new head as long as the two touched different rows (by data file and
// position); otherwise 40001.
func (b *txBlock) publish(ctx context.Context, tt *txTable) error {
	tt.staged.Discard()
	tt.staged = nil
	_, err := b.commitLoop(b.branch).Publish(ctx, tt.base, tt.net)
	if errors.Is(err, lake.ErrReplan) {
		return &pgerr.Error{Code: pgerr.SerializationFailure,
			Message: fmt.Sprintf("could not serialize access due to concurrent update of %s", lake.IdentKey(tt.ident)),
			Detail:  strings.TrimPrefix(err.Error(), lake.ErrReplan.Error()+": "), Err: err}
	}
	if err != nil && !lake.IsConflict(err) {
		return droppedConcurrently(tt.ident, err)
	}
	if err != nil {
		return err
	}
	removeTableFiles(tt.base, tt.orphans)
	return nil
}
