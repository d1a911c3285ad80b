package engine

import (
	"context"
	"iter"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// A WITH query read by several references (plan.Query.Shared) runs once
// per statement: the first reference to be read materialises its rows in
// the statement's cache (up to work_mem), and every reference replays
// them, so all see the same rows (PostgreSQL materialises such a query;
// TPC-H Q15 no longer aggregates a quarter of lineitem twice). Past
// work_mem each reference runs the query itself, as before.

// cteRows is one shared WITH query's rows for a statement.
type cteRows struct {
	once sync.Once
	held []arrow.RecordBatch
	ok   bool // held are all its rows
	err  error
}

// sharedBatches serves d's rows from the statement's cache; ok is false
// when it cannot (no statement cache, or the rows passed work_mem).
func (d *derivedSource) sharedBatches(ctx context.Context, params []any) (iter.Seq2[arrow.RecordBatch, error], bool, error) {
	c, _ := ctx.Value(scanCacheKey{}).(*scanCache)
	if c == nil {
		return nil, false, nil
	}
	c.mu.Lock()
	r, found := c.ctes[d.q.Query]
	if !found {
		r = &cteRows{}
		c.ctes[d.q.Query] = r
	}
	c.mu.Unlock()
	// The query runs outside the cache's lock: its own scans use it.
	r.once.Do(func() { r.ok, r.err = d.materialise(ctx, c, r, params) })
	if r.err != nil || !r.ok {
		return nil, false, r.err
	}
	return replay(r.held), true, nil
}

// materialise runs the query into r.held, charging the statement cache's
// work_mem; false (and nothing held) when the rows do not fit.
func (d *derivedSource) materialise(ctx context.Context, c *scanCache, r *cteRows, params []any) (bool, error) {
	rows, err := d.q.run(ctx, d.env, params)
	if err != nil {
		return false, err
	}
	var charged int64
	drop := func() {
		ReleaseAll(r.held)
		r.held = nil
		c.mu.Lock()
		c.mem.release(charged)
		c.mu.Unlock()
	}
	for b, err := range rowsSeq(ctx, rows) {
		if err != nil {
			drop()
			return false, err
		}
		n := BatchBytes(b)
		c.mu.Lock()
		full := c.mem.charge(n, "WITH query") != nil
		c.mu.Unlock()
		charged += n
		if full {
			b.Release()
			drop()
			return false, nil
		}
		r.held = append(r.held, b)
	}
	return true, nil
}
