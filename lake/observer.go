package lake

import (
	"context"

	"github.com/apache/iceberg-go/table"
)

// CommitReport is one change as it landed: the snapshot that holds it
// (shared with other statements when a group committed them together) and
// the files the change itself added.
type CommitReport struct {
	Table       table.Identifier
	SnapshotID  int64
	DataFiles   int // data files added
	DeleteFiles int // position/equality delete files and deletion vectors added
}

type commitObserverKey struct{}

// WithCommitObserver returns a context under which every change a
// CommitLoop commits for the caller (Commit, Publish) is reported to f once
// it landed, in the caller's goroutine. The statement log uses it: the
// commit happens layers below the statement, often in a leader's group.
func WithCommitObserver(ctx context.Context, f func(CommitReport)) context.Context {
	return context.WithValue(ctx, commitObserverKey{}, f)
}

// reportCommit tells ctx's observer, if any, that change landed in tbl.
func reportCommit(ctx context.Context, tbl *table.Table, change FileChange) {
	f, ok := ctx.Value(commitObserverKey{}).(func(CommitReport))
	if !ok || tbl == nil || change.IsEmpty() {
		return
	}
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return
	}
	f(CommitReport{Table: tbl.Identifier(), SnapshotID: snap.SnapshotID, DataFiles: len(change.AddData), DeleteFiles: len(change.AddDeletes)})
}

// landed reports m's change to its statement's observer when it committed.
// The leader that finished m no longer touches m.a: the change read here is
// the one that landed (rebased or planned again as it had to be).
func (m *member) landed(r memberResult) (*table.Table, error) {
	if r.err == nil {
		reportCommit(m.ctx, r.tbl, m.a.change)
	}
	return r.tbl, r.err
}
