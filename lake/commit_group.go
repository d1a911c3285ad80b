package lake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Group commit. Commits to one table are serial — each is a compare-and-swap
// of the table's metadata — so under contention a table's throughput is one
// commit per commit time, however many sessions wait. The holder of a
// table's turn therefore commits every waiting statement whose change it can
// combine with the others' as one snapshot: statements that touch disjoint
// data files, or only add data. Each statement keeps its own plan, count and
// answer; a group that loses to another process is rebased member by member
// and tried again, and a member that has to be planned again is, alone.

// maxGroup bounds how many statements share one snapshot.
const maxGroup = 32

// member is one statement waiting in its table's queue.
type member struct {
	ctx   context.Context
	a     attempt
	plan  ChangeFunc
	start time.Time
	done  chan memberResult // buffered: the leader never blocks on it

	// Guarded by the turn's mu.
	taken    bool // in a leader's batch: only that leader may finish it
	finished bool
}

type memberResult struct {
	tbl *table.Table
	err error
}

// enqueue adds m at the back of the table's waiting list.
func (t *tableTurn) enqueue(m *member) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.waiting = append(t.waiting, m)
}

// withdraw takes m out of the waiting list; false when a leader holds it
// (it will finish it) or already did.
func (t *tableTurn) withdraw(m *member) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m.taken || m.finished {
		return false
	}
	t.waiting = slices.DeleteFunc(t.waiting, func(w *member) bool { return w == m })
	m.finished = true
	return true
}

// take moves up to n waiting members, oldest first, into a batch.
func (t *tableTurn) take(n int) []*member {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := min(n, len(t.waiting))
	batch := slices.Clone(t.waiting[:k])
	t.waiting = slices.Delete(t.waiting, 0, k)
	for _, m := range batch {
		m.taken = true
	}
	return batch
}

// putBack returns members a batch could not include to the front of the
// list, in their order: they are the oldest.
func (t *tableTurn) putBack(ms []*member) {
	if len(ms) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range ms {
		m.taken = false
	}
	t.waiting = slices.Concat(ms, t.waiting)
}

func (t *tableTurn) finish(m *member, tbl *table.Table, err error) {
	t.mu.Lock()
	m.finished = true
	t.mu.Unlock()
	m.done <- memberResult{tbl, err}
}

func (t *tableTurn) isFinished(m *member) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return m.finished
}

// lead commits batches from the front of the queue until self is finished.
func (l CommitLoop) lead(ident table.Identifier, turn *tableTurn, self *member) {
	for !turn.isFinished(self) {
		batch := turn.take(maxGroup)
		if len(batch) == 0 {
			return
		}
		l.commitBatch(ident, turn, batch)
	}
}

// commitBatch brings the batch's members onto one head, commits those that
// combine as one snapshot, and finishes them; members that conflict with an
// earlier one of the batch go back to the queue.
func (l CommitLoop) commitBatch(ident table.Identifier, turn *tableTurn, batch []*member) {
	p := l.Policy.withDefaults()
	head := turn.newestHead(batch)
	for len(batch) > 0 {
		group, union, later, superseded := l.gather(turn, batch, head)
		turn.putBack(later)
		if len(group) == 0 {
			return
		}
		ctx := context.WithoutCancel(group[0].ctx)
		committed, err := commitChange(ctx, l.Catalog, head, l.onBranch(withAttempts(union, group)), l.Manifests, earliestWrite(group), l.Self)
		for _, m := range group {
			m.a.tries++
		}
		if err == nil {
			commitRemoveWritten(committed, superseded)
			turn.last = committed
			for _, m := range group {
				turn.finish(m, committed, nil)
			}
			return
		}
		retryable := (IsConflict(err) || errors.Is(err, ErrFileNotInSnapshot)) && !errors.Is(err, ErrCommitUnknown)
		if !retryable && len(group) > 1 && !errors.Is(err, ErrCommitUnknown) {
			// One member's change may be what failed: the others must not
			// fail with it, so each goes on alone, the oldest now.
			turn.putBack(group[1:])
			batch = group[:1]
			continue
		}
		if !retryable {
			for _, m := range group {
				if !errors.Is(err, ErrCommitUnknown) {
					m.a.removeWritten()
				}
				turn.finish(m, nil, err)
			}
			return
		}
		batch = l.patient(turn, group, p, err)
		if len(batch) == 0 {
			return
		}
		_ = commitSleep(batch[0].ctx, p.backoff(batch[0].a.tries-1))
		if batch = l.failCancelled(turn, batch); len(batch) == 0 {
			return
		}
		if head, err = l.load(ctx, ident); err != nil {
			for _, m := range batch {
				m.a.removeWritten()
				turn.finish(m, nil, err)
			}
			return
		}
	}
}

// gather moves each member onto head (rebasing, or planning again) and
// collects the ones that combine: the group, their union, and the members
// left for a later batch. Members that fail, end or have nothing left to do
// are finished here.
func (l CommitLoop) gather(turn *tableTurn, batch []*member, head *table.Table) (group []*member, union FileChange, later []*member, superseded []string) {
	claimed := map[string]bool{}
	for i, m := range batch {
		if err := m.ctx.Err(); err != nil {
			m.a.removeWritten()
			turn.finish(m, nil, err)
			continue
		}
		if done, err := l.onto(turn, m, head); err != nil {
			turn.finish(m, nil, err)
			continue
		} else if done {
			turn.finish(m, head, nil)
			continue
		}
		keys, alone := groupKeys(m.a.change)
		// A shared change commits alone: combining may cancel its files,
		// and cancelled files are removed.
		alone = alone || m.a.shared
		overlaps := slices.ContainsFunc(keys, func(k string) bool { return claimed[k] })
		switch {
		case len(group) == 0:
			group, union = append(group, m), m.a.change // as planned: an explicit operation stays
		case alone:
			later = append(later, m)
			continue
		case overlaps:
			net, orphans, ok := l.combine(turn, head, union, m)
			if !ok {
				later = append(later, m)
				continue
			}
			group, union, superseded = append(group, m), net, append(superseded, orphans...)
		default:
			group, union = append(group, m), unionChange(union, m.a.change)
		}
		for _, k := range keys {
			claimed[k] = true
		}
		if alone {
			return group, union, append(later, batch[i+1:]...), superseded
		}
	}
	return group, union, later, superseded
}

// onto moves m onto head (rebased, or planned again), first back to its own
// change if a group that did not land had combined it. done: nothing is
// left to commit.
func (l CommitLoop) onto(turn *tableTurn, m *member, head *table.Table) (done bool, err error) {
	if m.a.solo != nil {
		m.a.uncombine()
	}
	if m.a.head.MetadataLocation() == head.MetadataLocation() {
		return false, nil
	}
	return l.moveTo(m.ctx, turn, &m.a, head, m.plan)
}

// earliestWrite is when the first of the group's files was written (zero:
// none of theirs; a shared change's files are committed already).
func earliestWrite(group []*member) time.Time {
	var since time.Time
	for _, m := range group {
		if !m.a.shared && (since.IsZero() || m.a.since.Before(since)) {
			since = m.a.since
		}
	}
	return since
}

// groupKeys names the data files a change touches: the ones it removes and
// the ones its delete files (added or removed) apply to. alone reports a
// change that shares a snapshot with nothing: an explicit operation (a
// rewrite), equality deletes (they would not apply to data added in the
// same snapshot), or position deletes that name no single data file.
func groupKeys(c FileChange) (keys []string, alone bool) {
	if c.Operation != "" {
		return nil, true
	}
	for _, df := range c.RemoveData {
		keys = append(keys, df.FilePath())
	}
	for _, df := range slices.Concat(c.AddDeletes, c.RemoveDeletes) {
		ref := df.ReferencedDataFile()
		if df.ContentType() == iceberg.EntryContentEqDeletes || ref == nil {
			return nil, true
		}
		keys = append(keys, *ref)
	}
	return keys, false
}

// unionChange is both changes in one snapshot; groupKeys made sure they
// touch different files.
func unionChange(a, b FileChange) FileChange {
	return FileChange{
		AddData:       slices.Concat(a.AddData, b.AddData),
		RemoveData:    slices.Concat(a.RemoveData, b.RemoveData),
		AddDeletes:    slices.Concat(a.AddDeletes, b.AddDeletes),
		RemoveDeletes: slices.Concat(a.RemoveDeletes, b.RemoveDeletes),
		Props:         mergeProps(a.Props, b.Props),
		Rebase:        rebaseOf(a, b),
	}
}

// Summary keys recording how hard a snapshot was to commit: its statements
// and their attempts at the catalog, this one included. Attempts minus
// statements is the compare-and-swap rounds they lost.
const (
	SummaryStatements = "magmalake.statements"
	SummaryAttempts   = "magmalake.attempts"
)

// withAttempts is union with the group's statement and attempt counts in
// its summary properties (a copy: union may be a member's own change).
func withAttempts(union FileChange, group []*member) FileChange {
	attempts := 0
	for _, m := range group {
		attempts += m.a.tries + 1
	}
	return withCommitCounts(union, len(group), attempts)
}

func withCommitCounts(c FileChange, statements, attempts int) FileChange {
	props := maps.Clone(c.Props)
	if props == nil {
		props = map[string]string{}
	}
	props[SummaryStatements] = strconv.Itoa(statements)
	props[SummaryAttempts] = strconv.Itoa(attempts)
	c.Props = props
	return c
}

// newestHead is the latest table version the turn or a member has seen.
func (t *tableTurn) newestHead(batch []*member) *table.Table {
	head := batch[0].a.head
	for _, m := range batch[1:] {
		if newerVersion(m.a.head, head) {
			head = m.a.head
		}
	}
	if t.last != nil && newerVersion(t.last, head) {
		head = t.last
	}
	return head
}

// newerVersion reports whether a is a newer version of the same table than b.
func newerVersion(a, b *table.Table) bool {
	return a.Metadata().TableUUID() == b.Metadata().TableUUID() &&
		a.Metadata().LastSequenceNumber() > b.Metadata().LastSequenceNumber()
}

// patient finishes the members whose patience the lost round used up and
// returns the others.
func (l CommitLoop) patient(turn *tableTurn, group []*member, p RetryPolicy, lost error) []*member {
	var keep []*member
	for _, m := range group {
		if elapsed := time.Since(m.start); p.exhausted(m.a.tries, elapsed) {
			m.a.removeWritten()
			turn.finish(m, nil, fmt.Errorf("%w after %d attempts in %v: %v", ErrConflict, m.a.tries, elapsed.Round(time.Millisecond), lost))
			continue
		}
		keep = append(keep, m)
	}
	return keep
}

// failCancelled finishes the members whose context ended during the
// backoff and returns the others.
func (l CommitLoop) failCancelled(turn *tableTurn, batch []*member) []*member {
	var keep []*member
	for _, m := range batch {
		if err := m.ctx.Err(); err != nil {
			m.a.removeWritten()
			turn.finish(m, nil, err)
			continue
		}
		keep = append(keep, m)
	}
	return keep
}
