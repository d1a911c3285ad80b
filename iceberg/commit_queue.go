package iceberg

import (
	"context"
	"strings"
	"sync"

	"github.com/apache/iceberg-go/table"
)

// CommitQueue orders one process's commits to each table. A statement
// plans freely, but commits — and, once it has lost a round, plans again —
// only while it holds its table's turn, and turns are granted in arrival
// order. So the sessions of one server never race each other at the
// catalog: a statement that lost once cannot lose again to a newer one of
// the same process; across processes the catalog's compare-and-swap
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
	// written only by the holder of the turn: a statement whose head is
	// older moves to it without asking the catalog.
	last *table.Table
}

// acquire waits for ident's turn, or for ctx.
func (q *CommitQueue) acquire(ctx context.Context, ident table.Identifier) (*tableTurn, error) {
	t := q.turnOf(ident)
	select {
	case t.turn <- struct{}{}:
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (q *CommitQueue) turnOf(ident table.Identifier) *tableTurn {
	if q == nil {
		return &tableTurn{turn: make(chan struct{}, 1)}
	}
	key := strings.Join(ident, "\x00")
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

// newer is the table as this process last committed it when that is a
// later version than head, else nil.
func (t *tableTurn) newer(head *table.Table) *table.Table {
	if t.last == nil || head == nil {
		return nil
	}
	if t.last.Metadata().TableUUID() != head.Metadata().TableUUID() {
		return nil
	}
	if t.last.Metadata().LastSequenceNumber() > head.Metadata().LastSequenceNumber() {
		return t.last
	}
	return nil
}
