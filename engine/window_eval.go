package engine

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// windowEval computes one window call partition by partition.
type windowEval struct {
	in     *windowInput
	call   *sql.WindowCall
	keys   *windowKeys
	args   [][]any       // argument values per row (ranking and value functions)
	arrs   []arrow.Array // the aggregate's argument per batch
	spec   aggSpec
	offs   [2]float64 // frame start and end offsets
	peers  []int      // scratch: peer group number per position
	bounds []int      // scratch: first position of each peer group, then the end
}

func newWindowEval(ctx context.Context, in *windowInput, call *sql.WindowCall, keys *windowKeys, params []any) (*windowEval, error) {
	w := &windowEval{in: in, call: call, keys: keys}
	if call.Agg {
		w.spec = aggSpec{Func: call.Name, Star: call.Star}
		if !call.Star {
			w.spec.Input = call.Args[0].Type()
			var err error
			if w.arrs, err = in.arrays(ctx, call.Args[0], params); err != nil {
				return nil, err
			}
		}
	} else {
		for _, a := range call.Args {
			v, err := in.datums(ctx, a, params)
			if err != nil {
				return nil, err
			}
			w.args = append(w.args, v)
		}
	}
	for i, b := range []sql.FrameBound{call.Start, call.End} {
		if b.Offset == nil {
			continue
		}
		v, err := frameOffset(ctx, b.Offset, params, i == 0)
		if err != nil {
			w.release()
			return nil, err
		}
		w.offs[i] = v
	}
	return w, nil
}

// frameOffset evaluates n of n PRECEDING / FOLLOWING.
func frameOffset(ctx context.Context, e sql.Expr, params []any, start bool) (float64, error) {
	which := "ending"
	if start {
		which = "starting"
	}
	arr, err := sql.Eval(ctx, &sql.Cast{X: e, T: sql.Float64}, nil, params)
	if err != nil {
		return 0, err
	}
	defer arr.Release()
	if arr.IsNull(0) {
		return 0, pgerr.Errorf(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
	}
	v := arr.(*array.Float64).Value(0)
	if v < 0 {
		return 0, pgerr.Errorf(pgerr.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
	}
	return v, nil
}

func (w *windowEval) release() {
	for _, a := range w.arrs {
		a.Release()
	}
	w.arrs = nil
}

// partition fills out for the rows of one partition, given in window order.
func (w *windowEval) partition(check *cancelCheck, rows []int, out []any) error {
	w.peerGroups(rows)
	switch w.call.Name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile":
		return w.ranking(rows, out)
	case "lag", "lead":
		return w.shift(rows, out)
	}
	if w.call.Agg {
		return w.aggregate(check, rows, out)
	}
	return w.frameValue(check, rows, out)
}

// peerGroups numbers the peer groups (rows equal in the window's ORDER BY).
func (w *windowEval) peerGroups(rows []int) {
	w.peers = w.peers[:0]
	w.bounds = w.bounds[:0]
	for p := range rows {
		if p == 0 || w.keys.cmpOrder(rows[p-1], rows[p]) != 0 {
			w.bounds = append(w.bounds, p)
		}
		w.peers = append(w.peers, len(w.bounds)-1)
	}
	w.bounds = append(w.bounds, len(rows))
}

func (w *windowEval) ranking(rows []int, out []any) error {
	m := len(rows)
	var buckets int64
	if w.call.Name == "ntile" {
		v := w.args[0][rows[0]]
		if v == nil {
			for _, r := range rows {
				out[r] = nil
			}
			return nil
		}
		if buckets = v.(int64); buckets <= 0 {
			return pgerr.Errorf(pgerr.InvalidArgumentForNtileFunction, "argument of ntile must be greater than zero")
		}
	}
	for p, r := range rows {
		g := w.peers[p]
		rank := int64(w.bounds[g]) + 1
		switch w.call.Name {
		case "row_number":
			out[r] = int64(p + 1)
		case "rank":
			out[r] = rank
		case "dense_rank":
			out[r] = int64(g + 1)
		case "percent_rank":
			out[r] = 0.0
			if m > 1 {
				out[r] = float64(rank-1) / float64(m-1)
			}
		case "cume_dist":
			out[r] = float64(w.bounds[g+1]) / float64(m)
		case "ntile":
			out[r] = ntile(int64(p), int64(m), buckets)
		}
	}
	return nil
}

// ntile is the bucket of position p of m rows in n buckets: the first m%n
// buckets hold one row more, as PostgreSQL deals them.
func ntile(p, m, n int64) int64 {
	if n > m {
		return p + 1
	}
	size, extra := m/n, m%n
	big := extra * (size + 1)
	if p < big {
		return p/(size+1) + 1
	}
	return extra + (p-big)/size + 1
}

// shift is lag and lead: the value offset rows away in the partition.
func (w *windowEval) shift(rows []int, out []any) error {
	for p, r := range rows {
		off := int64(1)
		if len(w.args) > 1 {
			v := w.args[1][r]
			if v == nil {
				out[r] = nil
				continue
			}
			off = v.(int64)
		}
		if w.call.Name == "lag" {
			off = -off
		}
		q := int64(p) + off
		switch {
		case q >= 0 && q < int64(len(rows)):
			out[r] = w.args[0][rows[q]]
		case len(w.args) > 2:
			out[r] = w.args[2][r]
		default:
			out[r] = nil
		}
	}
	return nil
}

// frameCost is the steps finding a frame takes: a RANGE offset bound is
// looked for row by row.
func (w *windowEval) frameCost(rows []int) int {
	offset := func(b sql.FrameBound) bool { return b.Kind == sql.BoundPreceding || b.Kind == sql.BoundFollowing }
	if w.call.Mode == sql.FrameRange && (offset(w.call.Start) || offset(w.call.End)) {
		return len(rows)
	}
	return 1
}

// frame is the positions [start, end) of the frame of position p.
func (w *windowEval) frame(rows []int, p int) (int, int) {
	m := len(rows)
	s := w.bound(rows, p, w.call.Start, w.offs[0], true)
	e := w.bound(rows, p, w.call.End, w.offs[1], false)
	return max(0, min(s, m)), max(0, min(e, m))
}

func (w *windowEval) bound(rows []int, p int, b sql.FrameBound, off float64, start bool) int {
	m := len(rows)
	g := w.peers[p]
	switch b.Kind {
	case sql.BoundUnboundedPreceding:
		return 0
	case sql.BoundUnboundedFollowing:
		return m
	case sql.BoundCurrentRow:
		switch {
		case w.call.Mode == sql.FrameRows && start:
			return p
		case w.call.Mode == sql.FrameRows:
			return p + 1
		case start:
			return w.bounds[g]
		}
		return w.bounds[g+1]
	}
	n := int(math.Min(off, float64(m+1)))
	if b.Kind == sql.BoundPreceding {
		n = -n
	}
	switch w.call.Mode {
	case sql.FrameRows:
		if start {
			return p + n
		}
		return p + n + 1
	case sql.FrameGroups:
		t := g + n
		switch {
		case t < 0:
			return 0
		case t >= len(w.bounds)-1:
			return m
		case start:
			return w.bounds[t]
		}
		return w.bounds[t+1]
	}
	return w.rangeBound(rows, p, b, off, start)
}

// rangeBound is RANGE n PRECEDING / FOLLOWING: the rows whose ORDER BY
// value lies within n of the current row's.
func (w *windowEval) rangeBound(rows []int, p int, b sql.FrameBound, off float64, start bool) int {
	o := w.keys.spec[0]
	cur := w.keys.orderValue(rows[p])
	if cur == nil {
		// NULLs are each other's peers and nothing else's.
		g := w.peers[p]
		if start {
			return w.bounds[g]
		}
		return w.bounds[g+1]
	}
	x := toFloat(cur)
	target := x - off
	if b.Kind == sql.BoundFollowing {
		target = x + off
	}
	asc := !o.Desc
	// inFrame reports whether position q lies at or after the start
	// (start) / at or before the end (!start) of the frame.
	inFrame := func(q int) bool {
		v := w.keys.orderValue(rows[q])
		if v == nil {
			return false
		}
		f := toFloat(v)
		if start {
			return asc && f >= target || !asc && f <= target
		}
		return asc && f <= target || !asc && f >= target
	}
	if start {
		for q := 0; q < len(rows); q++ {
			if inFrame(q) {
				return q
			}
		}
		return len(rows)
	}
	for q := len(rows) - 1; q >= 0; q-- {
		if inFrame(q) {
			return q + 1
		}
	}
	return 0
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case sql.Decimal:
		return x.Float64()
	}
	return math.NaN()
}

// frameValue is first_value, last_value and nth_value over the frame.
func (w *windowEval) frameValue(check *cancelCheck, rows []int, out []any) error {
	cost := w.frameCost(rows)
	for p, r := range rows {
		if err := check.step(cost); err != nil {
			return err
		}
		s, e := w.frame(rows, p)
		q := -1
		switch w.call.Name {
		case "first_value":
			q = s
		case "last_value":
			q = e - 1
		case "nth_value":
			v := w.args[1][r]
			if v == nil {
				out[r] = nil
				continue
			}
			n := v.(int64)
			if n <= 0 {
				return pgerr.Errorf(pgerr.InvalidArgumentForNthValueFunction, "argument of nth_value must be greater than zero")
			}
			q = s + int(n) - 1
		}
		if q >= s && q < e {
			out[r] = w.args[0][rows[q]]
		} else {
			out[r] = nil
		}
	}
	return nil
}

// aggregate computes an aggregate over each row's frame: incrementally when
// frames all start at the partition's first row, frame by frame otherwise
// (a frame's rows are steps: frames of a million rows each are 10^12).
func (w *windowEval) aggregate(check *cancelCheck, rows []int, out []any) error {
	if w.call.Start.Kind == sql.BoundUnboundedPreceding {
		return w.runningAggregate(check, rows, out)
	}
	cost := w.frameCost(rows)
	for p, r := range rows {
		s, e := w.frame(rows, p)
		if err := check.step(cost + e - s); err != nil {
			return err
		}
		acc, err := newAccumulator(w.spec, w.call.T)
		if err != nil {
			return err
		}
		for q := s; q < e; q++ {
			if err := w.feed(acc, rows[q]); err != nil {
				return err
			}
		}
		if out[r], err = w.result(check.ctx, acc); err != nil {
			return err
		}
	}
	return nil
}

// runningAggregate feeds each row once; a result is a step per row it
// covers (array_agg builds its whole array each time the frame grows).
func (w *windowEval) runningAggregate(check *cancelCheck, rows []int, out []any) error {
	acc, err := newAccumulator(w.spec, w.call.T)
	if err != nil {
		return err
	}
	fed, last := 0, -1
	var cur any
	cost := w.frameCost(rows)
	for p, r := range rows {
		if err := check.step(cost); err != nil {
			return err
		}
		_, e := w.frame(rows, p)
		for ; fed < e; fed++ {
			if err := w.feed(acc, rows[fed]); err != nil {
				return err
			}
		}
		if e != last {
			if err := check.step(e); err != nil {
				return err
			}
			if cur, err = w.result(check.ctx, acc); err != nil {
				return err
			}
			last = e
		}
		out[r] = cur
	}
	return nil
}

func (w *windowEval) feed(acc accumulator, global int) error {
	ref := w.in.refs[global]
	if w.call.Star {
		return acc.update(0, nil, int(ref.row))
	}
	return acc.update(0, w.arrs[ref.batch], int(ref.row))
}

// result is the accumulator's current value; accumulators read their state
// without consuming it, so a running frame asks again as it grows.
func (w *windowEval) result(ctx context.Context, acc accumulator) (any, error) {
	arr, err := acc.result(ctx, memory.DefaultAllocator, 1)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return sql.DatumAt(arr, w.call.T, 0), nil
}
