package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/stmt"
)

// A query with DISTINCT or DISTINCT ON, or windows computed a partition
// at a time (window_spill.go), streams its rows through its operators
// rather than holding them: DISTINCT is a hash table of the values seen
// that spills past work_mem (setop_spill.go), ORDER BY the external sort
// (sort_spill.go), and DISTINCT ON, over rows sorted by its keys first,
// keeps the first row of each run of equal keys, holding one key.

// runStreamed runs such a query over in; it owns stopInput, which ends
// in's source.
func (q *selectQuery) runStreamed(ctx context.Context, env *Env, in *pipeline, lim *limiter, stopInput func()) (stmt.Rows, error) {
	c := &pullChain{}
	c.onClose(stopInput)
	src, err := q.streamedInput(ctx, env, in, c)
	if err != nil {
		c.close()
		return nil, err
	}
	if q.Distinct {
		keys := make([]int, q.Visible)
		for i := range keys {
			keys[i] = i
		}
		d := hashDistinct("DISTINCT", keys, in.mem, env.Options.TempDir, src)
		c.onClose(d.close)
		src, _ = in.streamStage(stageDistinct, func() (pullFunc, error) { return d.next, nil }, c)
	}
	if keys := q.distinctSortKeys(); len(keys) > 0 {
		if src, err = in.sortedPull(ctx, env, keys, src, c); err != nil {
			c.close()
			return nil, err
		}
	}
	if len(q.DistinctOn) > 0 {
		first := firstOfEachKey(q.DistinctOn, src)
		src, _ = in.streamStage(stageDistinctOn, func() (pullFunc, error) { return first, nil }, c)
	}
	stmtCtx := ctx
	return &streamRows{verb: "SELECT", stop: c.close, next: func(ctx context.Context) (arrow.RecordBatch, error) {
		if lim.done() {
			return nil, io.EOF
		}
		b, err := src(statementContext(stmtCtx, ctx))
		if err != nil {
			return nil, err
		}
		return visibleColumns(lim.apply(b), q.Visible), nil
	}}, nil
}

// pullChain is what a streamed query holds open until its result closes,
// closed last first.
type pullChain struct{ closers []func() }

func (c *pullChain) onClose(f func()) { c.closers = append(c.closers, f) }

func (c *pullChain) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
	c.closers = nil
}

// streamedInput is the rows DISTINCT reads: the grouped or windowed rows,
// else the projected input as it comes.
func (q *selectQuery) streamedInput(ctx context.Context, env *Env, in *pipeline, c *pullChain) (pullFunc, error) {
	var rows []arrow.RecordBatch
	var err error
	switch {
	case q.windowStreams():
		return in.streamStage(stageWindow, func() (pullFunc, error) { return in.windowStream(ctx, env, c) }, c)
	case q.Win != nil:
		done := in.enter(stageWindow)
		rows, err = in.windowed(ctx)
		done(countRows(rows))
	case q.Agg != nil:
		rows, err = in.aggregate(ctx)
	default:
		return in.nextProjected, nil
	}
	if err != nil {
		return nil, err
	}
	return slicePull(rows, c), nil
}

// slicePull streams batches, handing each on; those not read are let go
// when c closes.
func slicePull(rows []arrow.RecordBatch, c *pullChain) pullFunc {
	c.onClose(func() { ReleaseAll(rows); rows = nil })
	return func(ctx context.Context) (arrow.RecordBatch, error) {
		if err := canceled(ctx); err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, io.EOF
		}
		b := rows[0]
		rows = rows[1:]
		return b, nil
	}
}

// distinctSortKeys is the order the rows are sorted in: ORDER BY's, with
// DISTINCT ON's keys it does not lead with after those it does, so that
// rows of equal DISTINCT ON keys are adjacent (as PostgreSQL sorts).
func (q *selectQuery) distinctSortKeys() []plan.OrderKey {
	if len(q.DistinctOn) == 0 {
		return q.Order
	}
	on := map[int]bool{}
	for _, c := range q.DistinctOn {
		on[c] = true
	}
	lead := 0
	covered := map[int]bool{}
	for lead < len(q.Order) && on[q.Order[lead].Col] {
		covered[q.Order[lead].Col] = true
		lead++
	}
	keys := append([]plan.OrderKey(nil), q.Order[:lead]...)
	for _, c := range q.DistinctOn {
		if !covered[c] {
			covered[c] = true
			keys = append(keys, plan.OrderKey{Col: c})
		}
	}
	return append(keys, q.Order[lead:]...)
}

// sortedPull reads all of src into the external sort by keys and streams
// the sorted rows, from memory or from the merge of the spilled runs.
func (p *pipeline) sortedPull(ctx context.Context, env *Env, keys []plan.OrderKey, src pullFunc, c *pullChain) (pullFunc, error) {
	done := p.enter(stageSort)
	next, n, err := p.sortAll(ctx, env, keys, src, c, false)
	if err != nil {
		return nil, err
	}
	done(n)
	return next, nil
}

// sortAll is sortedPull within another operator (a window's partitions),
// whose memory and disk it counts for; n is the rows it sorted. onDisk
// merges from the runs even when the rows fitted, so that the sort lets
// go of them for its consumer.
func (p *pipeline) sortAll(ctx context.Context, env *Env, keys []plan.OrderKey, src pullFunc, c *pullChain, onDisk bool) (_ pullFunc, n int64, _ error) {
	s := &spillSort{keys: keys, batchSize: env.batchSize(), mem: p.mem, tempRoot: env.Options.TempDir}
	c.onClose(s.release)
	for {
		b, err := src(ctx)
		if err == io.EOF {
			break
		}
		if err == nil {
			n += b.NumRows()
			err = s.add(ctx, b)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if !s.spilled() && !onDisk {
		rows, err := s.sorted(ctx)
		if err != nil {
			return nil, 0, err
		}
		return slicePull(rows, c), n, nil
	}
	m, err := s.merged(ctx)
	if err != nil {
		return nil, 0, err
	}
	c.onClose(m.close)
	return m.next, n, nil
}

// firstOfEachKey keeps the first row of each run of equal cols values in
// src.
func firstOfEachKey(cols []int, src pullFunc) pullFunc {
	var prev, key []byte
	first := true
	return func(ctx context.Context) (arrow.RecordBatch, error) {
		for {
			b, err := src(ctx)
			if err != nil {
				return nil, err
			}
			mask := make([]bool, b.NumRows())
			kept := 0
			for r := range mask {
				key = key[:0]
				for _, c := range cols {
					key = appendKey(key, b.Column(c), r)
				}
				if first || string(key) != string(prev) {
					mask[r], first = true, false
					prev, key = key, prev
					kept++
				}
			}
			if kept == 0 {
				b.Release()
				continue
			}
			f, err := filterBatch(b, mask)
			b.Release()
			return f, err
		}
	}
}
