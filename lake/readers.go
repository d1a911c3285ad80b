package lake

import (
	"context"
	"sync"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Readers records, per table, the snapshots this process's statements,
// cursors and transaction blocks are reading, so that expiry keeps them
// and the files they read: a reader that finds a file gone can only fail.
// A pin is taken before the head is read (pending) and settles on the
// snapshot read, so an expiry that asks while a reader is between the two
// knows it cannot tell yet. Pins name snapshots by id: commit times need
// not grow along a table's history, and expiry measures age by its own
// clock.
type Readers struct {
	mu     sync.Mutex
	next   uint64
	tables map[string]map[uint64]pinned // table -> pin
}

// pinned is one pin's snapshot (pending until read; none for a table
// that had no snapshot) and the statement's set it belongs to (nil: a
// block's).
type pinned struct {
	id            int64
	pending, none bool
	set           *ReadSet
}

// ReadPin is one reader's hold on a table's snapshot.
type ReadPin struct {
	r     *Readers
	table string
	id    uint64
	once  sync.Once
}

// Begin pins table before its head is read; Settle names the snapshot.
func (r *Readers) Begin(ident table.Identifier) *ReadPin {
	return r.begin(ident, nil)
}

func (r *Readers) begin(ident table.Identifier, set *ReadSet) *ReadPin {
	key := IdentKey(ident)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tables == nil {
		r.tables = map[string]map[uint64]pinned{}
	}
	pins := r.tables[key]
	if pins == nil {
		pins = map[uint64]pinned{}
		r.tables[key] = pins
	}
	r.next++
	pins[r.next] = pinned{pending: true, set: set}
	return &ReadPin{r: r, table: key, id: r.next}
}

// Pin holds snap of ident (nil: a table with no snapshot) until Release.
func (r *Readers) Pin(ident table.Identifier, snap *table.Snapshot) *ReadPin {
	p := r.Begin(ident)
	p.Settle(snap)
	return p
}

// Settle records the snapshot the reader reads (nil: none yet).
func (p *ReadPin) Settle(snap *table.Snapshot) {
	at := pinned{none: snap == nil}
	if snap != nil {
		at.id = snap.SnapshotID
	}
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	if pins := p.r.tables[p.table]; pins != nil {
		if old, ok := pins[p.id]; ok {
			at.set = old.set
			pins[p.id] = at
		}
	}
}

// Release ends the pin; later calls do nothing.
func (p *ReadPin) Release() {
	p.once.Do(func() {
		p.r.mu.Lock()
		defer p.r.mu.Unlock()
		pins := p.r.tables[p.table]
		delete(pins, p.id)
		if len(pins) == 0 {
			delete(p.r.tables, p.table)
		}
	})
}

// Pinned are the snapshots readers of ident read, and settled false while
// a reader has not read its head yet. The pins of except (the asking
// statement's own) are left out.
func (r *Readers) Pinned(ident table.Identifier, except *ReadSet) (ids map[int64]bool, settled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids, settled = map[int64]bool{}, true
	for _, p := range r.tables[IdentKey(ident)] {
		switch {
		case except != nil && p.set == except, p.none:
		case p.pending:
			settled = false
		default:
			ids[p.id] = true
		}
	}
	return ids, settled
}

// ReadSet is the pins one statement takes, released together when its
// rows are closed.
type ReadSet struct {
	readers *Readers
	mu      sync.Mutex
	pins    []*ReadPin
	done    bool
}

// NewReadSet starts a statement's set of pins.
func (r *Readers) NewReadSet() *ReadSet { return &ReadSet{readers: r} }

type readSetKey struct{}

// WithReadSet makes every table head loaded under ctx, and every older
// snapshot a scan under ctx reads, pinned in set until set is released.
func WithReadSet(ctx context.Context, set *ReadSet) context.Context {
	return context.WithValue(ctx, readSetKey{}, set)
}

func readSetOf(ctx context.Context) *ReadSet {
	s, _ := ctx.Value(readSetKey{}).(*ReadSet)
	return s
}

// begin pins ident pending in the set; nil when the set was released (a
// load after the statement ended pins nothing).
func (s *ReadSet) begin(ident table.Identifier) *ReadPin {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	p := s.readers.begin(ident, s)
	s.pins = append(s.pins, p)
	return p
}

// Release ends every pin of the set.
func (s *ReadSet) Release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	pins := s.pins
	s.pins, s.done = nil, true
	s.mu.Unlock()
	for _, p := range pins {
		p.Release()
	}
}

// pinSnapshot pins snap of tbl in ctx's read set, if any: a scan of a
// snapshot older than the head its statement loaded (time travel).
func pinSnapshot(ctx context.Context, tbl *table.Table, snap *table.Snapshot) {
	if s := readSetOf(ctx); s != nil && snap != nil {
		if p := s.begin(tbl.Identifier()); p != nil {
			p.Settle(snap)
		}
	}
}

// PinHead pins tbl's current snapshot in ctx's read set, if any: a head
// a statement reads without loading it (the one its block pinned).
func PinHead(ctx context.Context, tbl *table.Table) {
	pinSnapshot(ctx, tbl, tbl.CurrentSnapshot())
}

// pinningCatalog pins every head a statement loads in the statement's read
// set (WithReadSet), before the catalog is asked.
type pinningCatalog struct {
	catalog.Catalog
}

// transactionalPinning keeps the catalog's multi-table commit visible.
type transactionalPinning struct {
	pinningCatalog
	catalog.TransactionalCatalog
}

// pinning wraps cat so loads under a read set pin what they load.
func pinning(cat catalog.Catalog) catalog.Catalog {
	p := pinningCatalog{Catalog: cat}
	if tc, ok := cat.(catalog.TransactionalCatalog); ok {
		return &transactionalPinning{pinningCatalog: p, TransactionalCatalog: tc}
	}
	return &p
}

func (c *pinningCatalog) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	set := readSetOf(ctx)
	if set == nil {
		return c.Catalog.LoadTable(ctx, ident)
	}
	p := set.begin(ident)
	tbl, err := c.Catalog.LoadTable(ctx, ident)
	if p != nil {
		if err != nil {
			p.Release()
		} else {
			p.Settle(tbl.CurrentSnapshot())
		}
	}
	return tbl, err
}

// withoutReadSet is ctx pinning nothing: maintenance reading the head it
// is about to change.
func withoutReadSet(ctx context.Context) context.Context {
	return context.WithValue(ctx, readSetKey{}, (*ReadSet)(nil))
}
