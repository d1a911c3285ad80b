package engine

import (
	"context"
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
			seen := newRowCounter(ctx, mem, "UNION")
			if !seen.distinct(left, yield) {
				return
			}
			right, err := s.node(ctx, n.right, params, mem)
			if err != nil {
				yield(nil, err)
				return
			}
			seen.distinct(right, yield)
		}, nil
	}
	right, err := s.node(ctx, n.right, params, mem)
	if err != nil {
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		counts := newRowCounter(ctx, mem, "INTERSECT/EXCEPT")
		if err := counts.count(right); err != nil {
			yield(nil, err)
			return
		}
		counts.filter(left, n.op, yield)
	}, nil
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

// rowCounter counts rows by value (the whole row is the key).
type rowCounter struct {
	mem     *memBudget
	op      string      // the operator it counts for, for work_mem's error
	check   cancelCheck // a batch may be a whole grouped result
	counts  map[string]int
	emitted map[string]bool
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

// count tallies the rows of seq (the right side of INTERSECT and EXCEPT).
func (rc *rowCounter) count(seq iter.Seq2[arrow.RecordBatch, error]) error {
	var buf []byte
	for b, err := range seq {
		if err != nil {
			return err
		}
		for r := 0; r < int(b.NumRows()); r++ {
			if err := rc.check.step(1); err != nil {
				b.Release()
				return err
			}
			buf = rowKey(b, r, buf)
			if _, ok := rc.counts[string(buf)]; !ok {
				if err := rc.mem.charge(int64(len(buf)+48), rc.op); err != nil {
					b.Release()
					return err
				}
			}
			rc.counts[string(buf)]++
		}
		b.Release()
	}
	return nil
}

// filter passes on the left rows INTERSECT or EXCEPT [ALL] keep.
func (rc *rowCounter) filter(seq iter.Seq2[arrow.RecordBatch, error], op sql.SetOp, yield func(arrow.RecordBatch, error) bool) {
	rc.emitted = map[string]bool{}
	var buf []byte
	for b, err := range seq {
		if err != nil {
			yield(nil, err)
			return
		}
		mask := make([]bool, b.NumRows())
		for r := range mask {
			if err := rc.check.step(1); err != nil {
				b.Release()
				yield(nil, err)
				return
			}
			buf = rowKey(b, r, buf)
			k := string(buf)
			n := rc.counts[k]
			switch op {
			case sql.SetIntersectAll:
				if n > 0 {
					rc.counts[k]--
					mask[r] = true
				}
			case sql.SetIntersect:
				mask[r] = n > 0 && !rc.emitted[k]
			case sql.SetExceptAll:
				if n > 0 {
					rc.counts[k]--
				} else {
					mask[r] = true
				}
			case sql.SetExcept:
				mask[r] = n == 0 && !rc.emitted[k]
			}
			if mask[r] && (op == sql.SetIntersect || op == sql.SetExcept) {
				if err := rc.mem.charge(int64(len(k))+mapEntryBytes, rc.op); err != nil {
					b.Release()
					yield(nil, err)
					return
				}
				rc.emitted[k] = true
			}
		}
		if !yieldFiltered(b, mask, yield) {
			return
		}
	}
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
