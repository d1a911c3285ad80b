package engine

import "github.com/magmalake/magmalake/sql"

// windowKind is what a window call computed in one pass over sorted rows
// (window_stream.go) waits for before its value at a row is known.
type windowKind uint8

const (
	// kindRow: the row itself — row_number(), rank(), dense_rank(),
	// lag() by a constant, an aggregate over ROWS from UNBOUNDED
	// PRECEDING to CURRENT ROW.
	kindRow windowKind = iota
	// kindPeerAgg: the end of the row's peer group — an aggregate over
	// RANGE or GROUPS from UNBOUNDED PRECEDING to CURRENT ROW.
	kindPeerAgg
	// kindWholeAgg: the end of the partition — an aggregate over all of
	// it, which needs no order.
	kindWholeAgg
	// kindAhead: the partition's size or rows after the row — lead() by a
	// constant, ntile(), percent_rank(), first_value(), and last_value()
	// and nth_value() over frames to the partition's end.
	kindAhead
	// kindPeerEnd: the partition's size and the peer group's end —
	// cume_dist(), last_value() over a RANGE or GROUPS frame to CURRENT
	// ROW.
	kindPeerEnd
	// kindRowsFrame: the rows of a ROWS frame with an offset (n PRECEDING,
	// n FOLLOWING) — an aggregate, first_value(), last_value() or
	// nth_value() over it, computed frame by frame from the spool.
	kindRowsFrame
)

// wholePartition reports whether the kind's values need the partition's
// rows all read first.
func (k windowKind) wholePartition() bool {
	return k == kindWholeAgg || k == kindAhead || k == kindPeerEnd || k == kindRowsFrame
}

// readsSpool reports whether the kind's values read its arguments from the
// partition's spool, which then holds them as extra columns.
func (k windowKind) readsSpool() bool {
	return k == kindAhead || k == kindPeerEnd || k == kindRowsFrame
}

// peers reports whether the kind's values are known at the end of the
// row's peer group.
func (k windowKind) peers() bool { return k == kindPeerAgg || k == kindPeerEnd }

// streamKind is what c waits for in the pass; false when the pass cannot
// compute it (frames with offsets, functions it does not know).
func streamKind(c *sql.WindowCall) (windowKind, bool) {
	if c.Mode == sql.FrameRows && frameHasOffset(c) {
		switch c.Name {
		case "first_value", "last_value", "nth_value":
			return kindRowsFrame, true
		}
		return kindRowsFrame, c.Agg && streamedAggregate(c.Name)
	}
	switch c.Name {
	case "row_number", "rank", "dense_rank":
		return kindRow, true
	case "lag":
		if len(c.Args) < 2 {
			return kindRow, true
		}
		_, ok := lagOffset(c.Args[1])
		return kindRow, ok
	case "lead":
		if len(c.Args) >= 2 {
			if _, ok := constOffset(c.Args[1]); !ok {
				return 0, false
			}
		}
		return kindAhead, true
	case "ntile", "percent_rank":
		return kindAhead, true
	case "cume_dist":
		return kindPeerEnd, true
	case "first_value":
		return kindAhead, c.Start.Kind == sql.BoundUnboundedPreceding && reachesCurrent(c.End)
	case "last_value":
		return lastValueKind(c)
	case "nth_value":
		return kindAhead, c.Start.Kind == sql.BoundUnboundedPreceding && c.End.Kind == sql.BoundUnboundedFollowing
	}
	if !c.Agg || c.Start.Kind != sql.BoundUnboundedPreceding || !streamedAggregate(c.Name) {
		return 0, false
	}
	switch {
	case c.End.Kind == sql.BoundUnboundedFollowing:
		return kindWholeAgg, true
	case c.End.Kind != sql.BoundCurrentRow:
		return 0, false
	case c.Mode == sql.FrameRows:
		return kindRow, true
	case len(c.Order) == 0:
		// Without ORDER BY every row is a peer of every other: a RANGE or
		// GROUPS frame is the whole partition.
		return kindWholeAgg, true
	}
	return kindPeerAgg, true
}

// frameHasOffset reports whether c's frame has an n PRECEDING or n
// FOLLOWING bound.
func frameHasOffset(c *sql.WindowCall) bool {
	for _, b := range []sql.FrameBound{c.Start, c.End} {
		if b.Kind == sql.BoundPreceding || b.Kind == sql.BoundFollowing {
			return true
		}
	}
	return false
}

// streamedAggregate names the aggregates the pass feeds row by row.
func streamedAggregate(name string) bool {
	switch name {
	case "count", "sum", "avg", "min", "max", "bool_and", "bool_or",
		"stddev_samp", "stddev_pop", "var_samp", "var_pop":
		return true
	}
	return false
}

// lastValueKind: to the partition's end, a frame's last row is the
// partition's; to CURRENT ROW it is the row (ROWS) or its peer group's
// last (RANGE, GROUPS; without ORDER BY, the partition's).
func lastValueKind(c *sql.WindowCall) (windowKind, bool) {
	if !reachesBack(c.Start) {
		return 0, false
	}
	switch {
	case c.End.Kind == sql.BoundUnboundedFollowing:
		return kindAhead, true
	case c.End.Kind != sql.BoundCurrentRow:
		return 0, false
	case c.Mode == sql.FrameRows || len(c.Order) == 0:
		return kindAhead, true
	}
	return kindPeerEnd, true
}

// reachesCurrent reports whether a frame ending at b holds the current row.
func reachesCurrent(b sql.FrameBound) bool {
	return b.Kind == sql.BoundCurrentRow || b.Kind == sql.BoundUnboundedFollowing
}

// reachesBack reports whether a frame starting at b holds the current row.
func reachesBack(b sql.FrameBound) bool {
	return b.Kind == sql.BoundUnboundedPreceding || b.Kind == sql.BoundCurrentRow
}

// orderFree reports whether c's values are the same whatever order the
// pass reads its partition in (an aggregate over all of it).
func orderFree(k windowKind) bool { return k == kindWholeAgg }

// windowStage is window calls computed in one pass over rows sorted by
// their partition and order keys: the calls sharing both (an aggregate
// over the whole partition needs only the partition).
type windowStage struct {
	calls   []int // the query's calls, by index
	part    []sql.Expr
	order   []sql.WindowOrder
	ordered bool // order is that of a call whose values depend on it
}

// windowStages groups q's calls into stages, as PostgreSQL stacks a
// WindowAgg (over a Sort) per window its calls need: each stage's rows,
// with its calls' columns, are sorted again for the next.
func (q *selectQuery) windowStages() []windowStage {
	var stages []windowStage
	for k, c := range q.Win.Calls {
		kind, _ := streamKind(c)
		if i := stageFor(stages, c, orderFree(kind)); i >= 0 {
			st := &stages[i]
			st.calls = append(st.calls, k)
			if !orderFree(kind) && !st.ordered {
				st.order, st.ordered = c.Order, true
			}
			continue
		}
		st := windowStage{calls: []int{k}, part: c.Partition}
		if !orderFree(kind) {
			st.order, st.ordered = c.Order, true
		}
		stages = append(stages, st)
	}
	return stages
}

// stageFor is the stage c can join, -1 for none.
func stageFor(stages []windowStage, c *sql.WindowCall, free bool) int {
	for i, st := range stages {
		if sameExprs(st.part, c.Partition) && (free || !st.ordered || sameWindowOrder(st.order, c.Order)) {
			return i
		}
	}
	return -1
}
