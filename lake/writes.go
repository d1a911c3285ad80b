package lake

import (
	"context"
	"sync"
	"time"

	"github.com/apache/iceberg-go/table"
)

// Writes records since when this process's statements, blocks and
// background passes may have written files they have not committed yet:
// a data file, a deletion vector, a manifest or a metadata file is
// unreferenced from when it is written until its commit lands, and orphan
// removal must not take it for a leftover meanwhile. A hold names a table,
// or none for a statement that may write to any (it holds back orphan
// removal everywhere until it ends).
type Writes struct {
	mu    sync.Mutex
	next  uint64
	holds map[uint64]writeHold
}

type writeHold struct {
	table string // "" any table
	since time.Time
}

// Hold records a writer that started at since, on ident (nil: any table),
// until release.
func (w *Writes) Hold(ident table.Identifier, since time.Time) (id uint64, release func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.holds == nil {
		w.holds = map[uint64]writeHold{}
	}
	w.next++
	id = w.next
	w.holds[id] = writeHold{table: IdentKey(ident), since: since}
	var once sync.Once
	return id, func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			delete(w.holds, id)
		})
	}
}

// oldest is when the oldest writer that may write to ident started, other
// than except (the maintenance statement asking); ok false when none.
func (w *Writes) oldest(ident table.Identifier, except uint64) (since time.Time, ok bool) {
	key := IdentKey(ident)
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, h := range w.holds {
		if id == except || (h.table != "" && h.table != key) {
			continue
		}
		if !ok || h.since.Before(since) {
			since, ok = h.since, true
		}
	}
	return since, ok
}

type writeHoldKey struct{}

// WithWriteHold tells orphan removal under ctx which hold is its own
// statement's, so that it does not hold itself back.
func WithWriteHold(ctx context.Context, id uint64) context.Context {
	return context.WithValue(ctx, writeHoldKey{}, id)
}

func writeHoldOf(ctx context.Context) uint64 {
	id, _ := ctx.Value(writeHoldKey{}).(uint64)
	return id
}
