package lake

import (
	"context"
	"strings"
	"sync"

	"github.com/apache/iceberg-go/table"
)

// CommitQueue orders one process's commits to each table. A statement
// plans freely, then waits in its table's queue; whoever holds the turn
// commits the waiting statements oldest first, as many at a time as
// combine into one snapshot (commit_group.go), rebasing or re-planning them
// onto the head. So the sessions of one server never race each other at
// the catalog: a statement that lost once cannot lose again to a newer one
// of the same process; across processes the catalog's compare-and-swap
// decides. The zero value is not usable; a nil *CommitQueue gives every
// caller a private turn (no ordering).
type CommitQueue struct {
	mu     sync.Mutex
	tables map[string]*tableTurn
}

// NewCommitQueue returns an empty queue.
func NewCommitQueue() *CommitQueue {
	return &CommitQueue{tables: map[string]*tableTurn{}}
}

// tableTurn is one table's place in the queue: holding the token in turn
// is holding the turn.
type tableTurn struct {
	turn chan struct{}
	// last is the table as this process last committed it, read and
	// written only by the holder of the turn: statements whose head is
	// older move to it without asking the catalog.
	last *table.Table
	// mu guards waiting and the members' taken and finished marks.
	mu      sync.Mutex
	waiting []*member
	// live is the live files of the snapshots this process rebased
	// between, also used only by the holder of the turn.
	live liveFilesCache
}

// turnOf is the turn of ident's branch: each branch has its own, since
// only commits to one branch combine or rebase onto each other (commits to
// two branches of a table meet at the catalog's compare-and-swap).
func (q *CommitQueue) turnOf(ident table.Identifier, branch string) *tableTurn {
	if q == nil {
		return &tableTurn{turn: make(chan struct{}, 1)}
	}
	key := strings.Join(ident, "\x00")
	if !IsMain(branch) {
		key += "\x00@" + branch
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.tables[key]
	if !ok {
		t = &tableTurn{turn: make(chan struct{}, 1)}
		q.tables[key] = t
	}
	return t
}

func (t *tableTurn) release() { <-t.turn }

// liveFilesCache keeps LiveFiles of a table's last few snapshots: under
// contention every commit rebases from the head the one before it rebased
// onto, so each snapshot is planned once, not once per statement. A nil
// cache plans every time.
type liveFilesCache struct {
	keys      []liveKey
	files     map[liveKey]map[string]*LiveFile
	manifests *ManifestCache // what plans read manifests through (set by the turn's holder)
}

// liveKey names one snapshot of one table.
type liveKey struct {
	table    string
	snapshot int64
}

const liveFilesKept = 8

func (c *liveFilesCache) get(ctx context.Context, tbl *table.Table) (map[string]*LiveFile, error) {
	snap := tbl.CurrentSnapshot()
	if c == nil || snap == nil {
		return LiveFiles(ctx, tbl)
	}
	k := liveKey{tbl.Metadata().TableUUID().String(), snap.SnapshotID}
	if lf, ok := c.files[k]; ok {
		return lf, nil
	}
	lf, err := liveFiles(ctx, tbl, c.manifests)
	if err != nil {
		return nil, err
	}
	if c.files == nil {
		c.files = map[liveKey]map[string]*LiveFile{}
	}
	if len(c.keys) == liveFilesKept {
		delete(c.files, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.keys = append(c.keys, k)
	c.files[k] = lf
	return lf, nil
}

// HoldCommits takes ident's turn: this process's commits to the table wait
// until release is called (or ctx ends first: an error). For tests that
// need statements to queue up, and for work that must see no commit of
// this process land meanwhile.
func (c *Commits) HoldCommits(ctx context.Context, ident table.Identifier) (release func(), err error) {
	turn := c.queue.turnOf(ident, table.MainBranch)
	select {
	case turn.turn <- struct{}{}:
		return turn.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// CommitsWaiting is how many statements of this process wait for ident's
// turn.
func (c *Commits) CommitsWaiting(ident table.Identifier) int {
	turn := c.queue.turnOf(ident, table.MainBranch)
	turn.mu.Lock()
	defer turn.mu.Unlock()
	return len(turn.waiting)
}
