package engine

import (
	"context"
	"io"
	"iter"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/stmt"
)

// EXPLAIN ANALYZE counts, per operator, the rows it produced, how often it
// ran (loops), the time spent in it, the most memory it held and what it
// spilled. The counters live in an analysis the statement's context
// carries; without one (every statement but EXPLAIN ANALYZE) no operator
// is wrapped and the cost is one context lookup per operator run, never
// one per batch.
//
// Time is inclusive, as PostgreSQL's is: an operator's time contains its
// inputs' but not its consumer's (the wrapper stops its clock while the
// consumer holds a batch). Startup is the time to the first batch; a
// materialising operator (sort, aggregate) has its rows only at the end,
// so its startup is its total.

// analysis is one EXPLAIN ANALYZE run's counters, by operator.
type analysis struct {
	ops    map[any]*opStats
	levels map[*selectQuery]*levelStats
}

func newAnalysis() *analysis {
	return &analysis{ops: map[any]*opStats{}, levels: map[*selectQuery]*levelStats{}}
}

// opStats are one operator's counters, summed over its loops.
type opStats struct {
	rows, loops    int64
	startup, total time.Duration
	peakMem        int64 // bytes the operator's work_mem charges held at most
	disk           int64 // bytes it wrote to temporary files
	batches        int64 // partitions a spilling hash join or aggregate processed
	held           int64 // what it holds, while another operator's charges are counted
}

// sideKey names a join side's rows after the WHERE conjuncts pushed into
// the join filtered them.
type sideKey struct {
	j    *joinSource
	left bool
}

type analysisKey struct{}

func withAnalysis(ctx context.Context, a *analysis) context.Context {
	return context.WithValue(ctx, analysisKey{}, a)
}

// analysisOf is the statement's analysis; nil outside EXPLAIN ANALYZE.
func analysisOf(ctx context.Context) *analysis {
	a, _ := ctx.Value(analysisKey{}).(*analysis)
	return a
}

// stats are key's counters, made on first use; nil without an analysis.
func (a *analysis) stats(key any) *opStats {
	if a == nil {
		return nil
	}
	st := a.ops[key]
	if st == nil {
		st = &opStats{}
		a.ops[key] = st
	}
	return st
}

// found are key's counters if the operator ran; nil otherwise.
func (a *analysis) found(key any) *opStats {
	if a == nil {
		return nil
	}
	return a.ops[key]
}

// open starts src's rows, counted under src when the statement is
// analysed.
func open(ctx context.Context, src source, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	st := analysisOf(ctx).stats(src)
	if st == nil {
		return src.batches(ctx, filter, params)
	}
	start := time.Now()
	seq, err := src.batches(ctx, filter, params)
	if err != nil {
		st.loops++
		st.total += time.Since(start)
		return nil, err
	}
	return st.counted(seq, time.Since(start)), nil
}

// counted passes seq on, counting its rows, its runs and the time spent
// producing them (opened: what starting it took).
func (st *opStats) counted(seq iter.Seq2[arrow.RecordBatch, error], opened time.Duration) iter.Seq2[arrow.RecordBatch, error] {
	if st == nil {
		return seq
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		st.loops++
		start := time.Now()
		var consumer time.Duration
		first := true
		seq(func(b arrow.RecordBatch, err error) bool {
			at := time.Now()
			if first && b != nil {
				st.startup += opened + at.Sub(start) - consumer
				first = false
			}
			if b != nil {
				st.rows += b.NumRows()
			}
			ok := yield(b, err)
			consumer += time.Since(at)
			return ok
		})
		if first {
			st.startup += opened + time.Since(start) - consumer
		}
		st.total += opened + time.Since(start) - consumer
		opened = 0 // a second run of the same sequence started itself
	}
}

// levelStats are a query level's counters: the operators a selectQuery
// runs over its source (which counts under the source).
type levelStats struct {
	out        opStats // the level's rows, as its consumer reads them
	filtered   int64   // the source's rows WHERE kept
	agg        opStats
	window     opStats
	distinct   opStats
	sort       opStats
	distinctOn opStats
	started    time.Time // when the current run began
}

// level is q's counters; nil without an analysis.
func (a *analysis) level(q *selectQuery) *levelStats {
	if a == nil {
		return nil
	}
	l := a.levels[q]
	if l == nil {
		l = &levelStats{}
		a.levels[q] = l
	}
	return l
}

// run runs a query level through exec, counting its output.
func (l *levelStats) run(exec func() (stmt.Rows, error)) (stmt.Rows, error) {
	l.out.loops++
	l.started = time.Now()
	rows, err := exec()
	spent := time.Since(l.started)
	l.out.total += spent
	if err != nil {
		l.out.startup += spent
		return nil, err
	}
	return &analysedRows{Rows: rows, st: &l.out, startup: spent}, nil
}

// stage is the counter of one of the level's operators.
type stage int

const (
	stageAgg stage = iota
	stageWindow
	stageDistinct
	stageSort
	stageDistinctOn
)

func (l *levelStats) of(s stage) *opStats {
	if l == nil {
		return nil
	}
	return [...]*opStats{&l.agg, &l.window, &l.distinct, &l.sort, &l.distinctOn}[s]
}

// enter starts stage s of the level's run: work_mem charges go to it from
// now on, and the returned function counts the rows it produced, its time
// being everything the run did so far (the stages run one after another,
// each over the last one's rows).
func (p *pipeline) enter(s stage) func(rows int64) {
	if p.an == nil {
		return func(int64) {}
	}
	st := p.an.of(s)
	p.mem.attribute(st)
	return func(rows int64) {
		spent := time.Since(p.an.started)
		st.loops++
		st.rows += rows
		st.startup += spent
		st.total += spent
	}
}

// holds notes that stage s holds rows (charged to work_mem by the
// operator that made them) while it works.
func (l *levelStats) holds(s stage, rows []arrow.RecordBatch) {
	if l == nil {
		return
	}
	var n int64
	for _, b := range rows {
		n += BatchBytes(b)
	}
	st := l.of(s)
	st.peakMem = max(st.peakMem, n)
}

// countRows is the rows of batches.
func countRows(batches []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range batches {
		if b != nil {
			n += b.NumRows()
		}
	}
	return n
}

// analysedRows counts the rows a query level's consumer reads and the time
// their Next calls take.
type analysedRows struct {
	stmt.Rows
	st      *opStats
	startup time.Duration
	started bool // the first batch (or the end) came
}

func (r *analysedRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	b, err := r.Rows.Next(ctx)
	spent := time.Since(start)
	r.st.total += spent
	r.startup += spent
	if !r.started && (b != nil || err != nil) {
		r.started = true
		r.st.startup += r.startup
	}
	if b != nil {
		r.st.rows += b.NumRows()
	}
	return b, err
}

// attribute makes st the operator the budget's charges count for, from
// zero.
func (m *memBudget) attribute(st *opStats) {
	if m != nil && m.stats != st {
		if m.stats != nil {
			m.stats.held = m.tracked // for switchTo
		}
		m.stats, m.tracked = st, 0
	}
}

// switchTo makes st the operator the budget's charges count for, going on
// from what it held when it was last switched from; it returns the one
// they counted for, to switch back to. Operators that stream into each
// other (DISTINCT into ORDER BY) take turns this way.
func (m *memBudget) switchTo(st *opStats) *opStats {
	if m == nil {
		return nil
	}
	prev := m.stats
	if prev != nil {
		prev.held = m.tracked
	}
	m.stats, m.tracked = st, 0
	if st != nil {
		m.tracked = st.held
	}
	return prev
}

// streamStage counts the rows the stream open starts streams for stage
// s, its work_mem charges (open's too) counting for s while it runs; the
// stage is done at its end (or when c closes, should the consumer stop
// first).
func (p *pipeline) streamStage(s stage, open func() (pullFunc, error), c *pullChain) (pullFunc, error) {
	if p.an == nil {
		return open()
	}
	st := p.an.of(s)
	done := p.enter(s)
	next, err := open()
	if err != nil {
		return nil, err
	}
	var rows int64
	finished := false
	finish := func() {
		if !finished {
			finished = true
			done(rows)
		}
	}
	c.onClose(finish)
	return func(ctx context.Context) (arrow.RecordBatch, error) {
		prev := p.mem.switchTo(st)
		b, err := next(ctx)
		p.mem.switchTo(prev)
		if b != nil {
			rows += b.NumRows()
		}
		if err == io.EOF {
			finish()
		}
		return b, err
	}, nil
}

// track follows what the attributed operator holds (n < 0: lets go).
func (m *memBudget) track(n int64) {
	if m.stats == nil {
		return
	}
	m.tracked = max(0, m.tracked+n)
	m.stats.peakMem = max(m.stats.peakMem, m.tracked)
}

// budgetFor is a work_mem budget whose charges count for key's operator
// when the statement is analysed.
func budgetFor(ctx context.Context, key any, limit int64) *memBudget {
	m := newMemBudget(ctx, limit)
	m.stats = analysisOf(ctx).stats(key)
	return m
}

// spilledFiles counts the sizes of files an operator spilled to.
func (m *memBudget) spilledFiles(paths ...string) {
	if m == nil || m.stats == nil {
		return
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil {
			m.stats.disk += fi.Size()
		}
	}
}

// spilledBatch counts one more partition a spilling operator processed.
func (m *memBudget) spilledBatch() {
	if m != nil && m.stats != nil {
		m.stats.batches++
	}
}
