package engine

import (
	"context"
	"io"
	"iter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/sql"
)

// setNode is a set operation's tree: a leaf query, or op over two nodes.
type setNode struct {
	leaf        *selectQuery
	op          sql.SetOp
	left, right *setNode
}

// setSource streams a set operation's rows.
type setSource struct {
	root *setNode
	sc   *sql.Scope
	env  *Env
}

func (s *setSource) scope() *sql.Scope { return s.sc }

func (s *setSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return s.node(ctx, s.root, params, budgetFor(ctx, s, s.env.Options.WorkMem))
}

// node streams n's rows, counted under n when the statement is analysed
// (a leaf counts as its query).
func (s *setSource) node(ctx context.Context, n *setNode, params []any, mem *memBudget) (iter.Seq2[arrow.RecordBatch, error], error) {
	st := analysisOf(ctx).stats(n)
	if st == nil || n.leaf != nil {
		return s.rows(ctx, n, params, mem)
	}
	start := time.Now()
	seq, err := s.rows(ctx, n, params, mem)
	if err != nil {
		return nil, err
	}
	return st.counted(seq, time.Since(start)), nil
}

func (s *setSource) rows(ctx context.Context, n *setNode, params []any, mem *memBudget) (iter.Seq2[arrow.RecordBatch, error], error) {
	if n.leaf != nil {
		rows, err := n.leaf.run(ctx, s.env, params)
		if err != nil {
			return nil, err
		}
		return rowsSeq(ctx, rows), nil
	}
	left, err := s.node(ctx, n.left, params, mem)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case sql.SetUnionAll:
		return func(yield func(arrow.RecordBatch, error) bool) {
			if !forward(left, yield) {
				return
			}
			right, err := s.node(ctx, n.right, params, mem)
			if err != nil {
				yield(nil, err)
				return
			}
			forward(right, yield)
		}, nil
	case sql.SetUnion:
		return func(yield func(arrow.RecordBatch, error) bool) {
			both := &concatPull{first: left, rest: func() (iter.Seq2[arrow.RecordBatch, error], error) {
				return s.node(ctx, n.right, params, mem)
			}}
			defer both.stop()
			drainSetOp(ctx, newHashSetOp(sql.SetExcept, "UNION", mem, s.env.Options.TempDir, both.next, nil), yield)
		}, nil
	}
	right, err := s.node(ctx, n.right, params, mem)
	if err != nil {
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		l, stopL := pullSeq(left)
		defer stopL()
		r, stopR := pullSeq(right)
		defer stopR()
		what := "INTERSECT"
		if n.op == sql.SetExcept || n.op == sql.SetExceptAll {
			what = "EXCEPT"
		}
		drainSetOp(ctx, newHashSetOp(n.op, what, mem, s.env.Options.TempDir, l, r), yield)
	}, nil
}

// drainSetOp passes on every batch h keeps, then lets go of h.
func drainSetOp(ctx context.Context, h *hashSetOp, yield func(arrow.RecordBatch, error) bool) {
	defer h.close()
	for {
		b, err := h.next(ctx)
		if err == io.EOF {
			return
		}
		if !yield(b, err) || err != nil {
			return
		}
	}
}

// pullSeq reads seq a batch at a time; stop ends it early.
func pullSeq(seq iter.Seq2[arrow.RecordBatch, error]) (pullFunc, func()) {
	next, stop := iter.Pull2(seq)
	return func(context.Context) (arrow.RecordBatch, error) {
		b, err, ok := next()
		if !ok {
			return nil, io.EOF
		}
		return b, err
	}, stop
}

// concatPull reads first's batches, then those of the sequence rest
// starts (UNION's right side, started once the left one is done).
type concatPull struct {
	first   iter.Seq2[arrow.RecordBatch, error]
	rest    func() (iter.Seq2[arrow.RecordBatch, error], error)
	cur     pullFunc
	stopCur func()
	onRest  bool
}

func (c *concatPull) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if c.cur == nil {
			seq := c.first
			if c.onRest {
				var err error
				if seq, err = c.rest(); err != nil {
					return nil, err
				}
			}
			c.cur, c.stopCur = pullSeq(seq)
		}
		b, err := c.cur(ctx)
		if err != io.EOF || c.onRest {
			return b, err
		}
		c.stop()
		c.onRest = true
	}
}

func (c *concatPull) stop() {
	if c.stopCur != nil {
		c.stopCur()
	}
	c.cur, c.stopCur = nil, nil
}

// forward passes every batch of seq on; false when the consumer stopped or
// an error was passed.
func forward(seq iter.Seq2[arrow.RecordBatch, error], yield func(arrow.RecordBatch, error) bool) bool {
	for b, err := range seq {
		if !yield(b, err) || err != nil {
			return false
		}
	}
	return true
}

// rowCounter is the rows WITH RECURSIVE's UNION has seen, by value (the
// whole row is the key). Each round's rows are decided against every
// round's before, so unlike a set operation's table (setop_spill.go) it
// cannot defer values to disk: work_mem bounds it.
type rowCounter struct {
	mem    *memBudget
	op     string      // the operator it counts for, for work_mem's error
	check  cancelCheck // a batch may be a whole grouped result
	counts map[string]int
}

func newRowCounter(ctx context.Context, mem *memBudget, op string) *rowCounter {
	return &rowCounter{mem: mem, op: op, check: cancelCheck{ctx: ctx}, counts: map[string]int{}}
}

func rowKey(b arrow.RecordBatch, r int, buf []byte) []byte {
	buf = buf[:0]
	for c := 0; c < int(b.NumCols()); c++ {
		buf = appendKey(buf, b.Column(c), r)
	}
	return buf
}

// distinct passes on the rows not seen before.
func (rc *rowCounter) distinct(seq iter.Seq2[arrow.RecordBatch, error], yield func(arrow.RecordBatch, error) bool) bool {
	var buf []byte
	for b, err := range seq {
		if err != nil {
			yield(nil, err)
			return false
		}
		mask := make([]bool, b.NumRows())
		for r := range mask {
			if err := rc.check.step(1); err != nil {
				b.Release()
				yield(nil, err)
				return false
			}
			buf = rowKey(b, r, buf)
			if _, dup := rc.counts[string(buf)]; dup {
				continue
			}
			if err := rc.mem.charge(int64(len(buf)+48), rc.op); err != nil {
				b.Release()
				yield(nil, err)
				return false
			}
			rc.counts[string(buf)] = 1
			mask[r] = true
		}
		if !yieldFiltered(b, mask, yield) {
			return false
		}
	}
	return true
}

// yieldFiltered passes on b's rows under mask and releases b.
func yieldFiltered(b arrow.RecordBatch, mask []bool, yield func(arrow.RecordBatch, error) bool) bool {
	f, err := filterBatch(b, mask)
	b.Release()
	if err != nil {
		yield(nil, err)
		return false
	}
	if f.NumRows() == 0 {
		f.Release()
		return true
	}
	return yield(f, nil)
}
