package lake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// ChangeFunc plans one attempt of a statement against head: the change to
// commit and every file the attempt wrote (data, delete and Puffin files),
// which are removed if the attempt does not commit. It must not commit.
type ChangeFunc func(ctx context.Context, head *table.Table) (change FileChange, written []string, err error)

// CommitLoop commits statements' changes to the tables of one catalog,
// winning against concurrent writers by rebasing or re-planning. It owns
// the retry policy, the conflict checks and when to rebase; a statement
// hands it, once, its change function (Commit) or its planned change
// (Publish), and the change carries how it rebases (FileChange.Rebase).
type CommitLoop struct {
	Catalog catalog.Catalog
	Policy  RetryPolicy
	Queue   *CommitQueue // this process's order of commits per table; nil: none
	// Manifests keeps manifests' entries between this process's commits;
	// nil: every commit reads what it needs.
	Manifests *ManifestCache
	// Branch is where every change commits ("" is main): heads are the
	// branch's views (BranchView), so plans and rebases read the branch.
	Branch string
	// Self names the warehouse's process in the tables' sweep records: its
	// own sweeps spare its writers by other means (Writes).
	Self string
}

// load reads ident's head as the loop's branch sees it.
func (l CommitLoop) load(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	tbl, err := l.Catalog.LoadTable(ctx, ident)
	if err != nil {
		return nil, mapCatalogErr("load table "+strings.Join(ident, "."), err)
	}
	return BranchView(tbl, l.Branch)
}

// onBranch addresses change to the loop's branch.
func (l CommitLoop) onBranch(change FileChange) FileChange {
	change.Branch = l.Branch
	return change
}

// LoadTable reads the table as the loop's catalog stores it. With Commit,
// it makes a loop the commit target of a statement that publishes its
// change at once (deletes.CommitTarget): maintenance of one branch, or a
// caller without a session.
func (l CommitLoop) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	return l.Catalog.LoadTable(ctx, ident)
}

// Commit loads the head of ident, plans a change with plan (outside the
// table's turn, so plans run in parallel) and commits it in its turn, as one
// snapshot or in one shared with other waiting statements of this process
// (commit_group.go). When another writer moved the table first, the change is
// rebased onto the new head if it still means the same there, else planned
// again against it (in the turn now, so nothing of this process overtakes
// it), and retried with jittered backoff for as long as the policy and ctx
// allow. It returns the committed table, or the head unchanged when the plan
// is empty. Files of attempts that did not land are removed; after
// ErrCommitUnknown they are kept, the change may have landed.
func (l CommitLoop) Commit(ctx context.Context, ident table.Identifier, plan ChangeFunc) (*table.Table, error) {
	head, err := l.load(ctx, ident)
	if err != nil {
		return nil, err
	}
	a := attempt{head: head}
	if a.since, err = writeStartAfter(ctx, head, l.Self); err != nil {
		return nil, err
	}
	a.change, a.written, err = plan(ctx, head)
	if err == nil && a.change.IsEmpty() {
		commitRemoveWritten(head, a.written)
		return head, nil
	}
	if err != nil {
		commitRemoveWritten(head, a.written)
		return nil, err
	}
	if a.prewritten = prewritten(a.change, a.written); a.prewritten {
		// An INSERT's files were written before the loop began, from rows
		// it does not keep: they are as old as the statement.
		a.since = writeStartOf(ctx)
		if sweptIn(head.Metadata(), a.since, l.Self) {
			a.removeWritten()
			return nil, fmt.Errorf("%w: %w", ErrConflict, ErrSwept)
		}
	}
	return l.run(ctx, ident, a, plan)
}

// prewritten reports whether change adds a file the attempt did not write
// (written lists what it wrote): one written before the loop began, which
// planning again cannot write anew.
func prewritten(change FileChange, written []string) bool {
	mine := make(map[string]bool, len(written))
	for _, p := range written {
		mine[p] = true
	}
	for _, f := range slices.Concat(change.AddData, change.AddDeletes) {
		if !mine[f.FilePath()] {
			return true
		}
	}
	return false
}

// Publish commits change, planned against base, that cannot be planned
// again (a transaction block's net change): when the head moved it is
// rebased or the error wraps ErrReplan. The caller owns change's files.
func (l CommitLoop) Publish(ctx context.Context, base *table.Table, change FileChange) (*table.Table, error) {
	if change.IsEmpty() {
		return base, nil
	}
	// written starts empty: only files the loop writes while rebasing are
	// its to remove.
	a := attempt{head: base, change: change, since: writeStartOf(ctx), prewritten: true}
	if sweptIn(base.Metadata(), a.since, l.Self) {
		return nil, fmt.Errorf("%w: %w", ErrConflict, ErrSwept)
	}
	return l.run(ctx, base.Identifier(), a, nil)
}

// PublishShared is Publish for a change whose files another snapshot
// still references (a cherry-pick re-commits a branch's files): rebasing
// it never removes one of them, even where it no longer uses it.
func (l CommitLoop) PublishShared(ctx context.Context, base *table.Table, change FileChange) (*table.Table, error) {
	if change.IsEmpty() {
		return base, nil
	}
	// Its files are committed already (another snapshot names them): no
	// sweep takes them for orphans.
	return l.run(ctx, base.Identifier(), attempt{head: base, change: change, shared: true, since: time.Now()}, nil)
}

// attempt is the change the loop is trying to commit and what it is based on.
type attempt struct {
	head    *table.Table
	change  FileChange
	written []string  // files to remove if the change does not land
	shared  bool      // the change's own files are not the attempt's (PublishShared)
	since   time.Time // when the change's files began to be written
	// prewritten: some of the change's files were written before the
	// loop began (Commit's prewritten), so planning again cannot renew them.
	prewritten bool
	tries      int
	// solo is the attempt as it was before a group combined it
	// (commit_combine.go): its change rests on the group's virtual head, so
	// if the group does not land the attempt goes back to solo.
	solo *attempt
}

func (a *attempt) removeWritten() {
	commitRemoveWritten(a.head, a.written)
	a.written = nil
}

// run commits a in the table's turn, retrying until it lands, the policy's
// patience runs out (ErrConflict) or ctx ends. The statement that gets the
// turn commits the waiting ones with it (commit_group.go); a statement a
// leader took finishes when the leader says so.
func (l CommitLoop) run(ctx context.Context, ident table.Identifier, a attempt, plan ChangeFunc) (*table.Table, error) {
	turn := l.Queue.turnOf(ident, l.Branch)
	m := &member{ctx: ctx, a: a, plan: plan, start: time.Now(), done: make(chan memberResult, 1)}
	turn.enqueue(m)
	timeout, stop := lockWait(ctx)
	defer stop()
	select {
	case r := <-m.done:
		return m.landed(r)
	case turn.turn <- struct{}{}:
		l.lead(ident, turn, m)
		turn.release()
	case <-ctx.Done():
		if turn.withdraw(m) {
			m.a.removeWritten()
			return nil, ctx.Err()
		}
	case <-timeout:
		// A leader that already took m commits it: only a statement still
		// waiting gives up.
		if turn.withdraw(m) {
			m.a.removeWritten()
			return nil, ErrLockTimeout
		}
	}
	return m.landed(<-m.done)
}

// liveOf is turn's cache of live files, planning through l's manifest
// cache. The caller holds the turn.
func (l CommitLoop) liveOf(turn *tableTurn) *liveFilesCache {
	turn.live.manifests = l.Manifests
	return &turn.live
}

// moveTo makes a commit on head: the change rebased, or planned again.
// done reports an empty new plan (nothing left to commit).
func (l CommitLoop) moveTo(ctx context.Context, turn *tableTurn, a *attempt, head *table.Table, plan ChangeFunc) (done bool, err error) {
	if !a.shared && sweptIn(head.Metadata(), a.since, l.Self) {
		if plan == nil || a.prewritten {
			a.removeWritten()
			return false, fmt.Errorf("%w: %w", ErrConflict, ErrSwept)
		}
		return replan(ctx, a, head, plan, l.Self)
	}
	change, extra, err := a.change.rebaser()(ctx, RebaseInput{Base: a.head, Head: head, Change: a.change, live: l.liveOf(turn), keep: a.shared})
	if err == nil {
		a.head, a.change = head, change
		a.written = append(a.written, extra...)
		return false, nil
	}
	if !errors.Is(err, ErrReplan) || plan == nil {
		a.removeWritten()
		return false, err
	}
	return replan(ctx, a, head, plan, l.Self)
}

// replan drops a's change and its files and plans it again against head.
func replan(ctx context.Context, a *attempt, head *table.Table, plan ChangeFunc, self string) (done bool, err error) {
	a.removeWritten()
	a.head = head
	if a.since, err = writeStartAfter(ctx, head, self); err != nil {
		return false, err
	}
	a.change, a.written, err = plan(ctx, head)
	if err != nil || a.change.IsEmpty() {
		a.removeWritten()
		return err == nil, err
	}
	return false, nil
}
