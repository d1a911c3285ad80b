package engine

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// memBudget bounds what an operator that keeps rows or values holds (ORDER
// BY, DISTINCT, GROUP BY, hash joins, windows, set operations, WITH
// RECURSIVE, array_agg and string_agg, a subquery's rows, LATERAL). ORDER
// BY spills sorted runs to disk past it (sort_spill.go), GROUP BY the rows
// of the groups it cannot hold (aggregate_spill.go), a hash join both
// sides by key (join_spill.go); for the others
// work_mem is a hard bound: past it the statement fails with PostgreSQL's
// 53200 rather than growing until the OOM killer ends every session.
type memBudget struct {
	limit int64 // bytes; 0: unbounded
	used  int64
	what  string // the operator charged last, for the message
	// stats, under EXPLAIN ANALYZE, is the operator the charges count
	// for (attribute), tracked what they hold since.
	stats   *opStats
	tracked int64
}

// charge adds n bytes held by op ("ORDER BY", "GROUP BY", ...).
func (m *memBudget) charge(n int64, op string) error {
	if m == nil {
		return nil
	}
	m.track(n)
	if m.limit <= 0 {
		return nil
	}
	m.used += n
	if m.used <= m.limit {
		return nil
	}
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: op + " needs more than work_mem (" + sql.FormatKB(m.limit/1024) + ") to hold its rows; of these magmalake spills ORDER BY, GROUP BY, hash joins, DISTINCT, set operations, aggregates' DISTINCT and windows to disk (a part that still does not fit fails).",
		Hint:   "Raise work_mem, or narrow the query (a WHERE, a LIMIT, fewer groups)."}
}

// BatchBytes is the memory an Arrow batch's buffers take.
func BatchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		for _, buf := range c.Data().Buffers() {
			if buf != nil {
				n += int64(buf.Len())
			}
		}
	}
	return n
}

func newMemBudget(limit int64) *memBudget { return &memBudget{limit: limit} }

// release returns n bytes an operator no longer holds.
func (m *memBudget) release(n int64) {
	if m != nil {
		m.used = max(0, m.used-n)
		m.track(-n)
	}
}

// hold counts n bytes held by an operator that spills to disk past the
// limit (so it is never refused).
func (m *memBudget) hold(n int64) {
	if m != nil {
		m.used += n
		m.track(n)
	}
}

// fits reports whether n more bytes stay within work_mem.
func (m *memBudget) fits(n int64) bool {
	return m == nil || m.limit <= 0 || m.used+n <= m.limit
}

// resetTo goes back to holding used bytes, when what was charged since is
// let go of all at once (a spilled partition's groups).
func (m *memBudget) resetTo(used int64) {
	m.track(used - m.used)
	m.used = used
}
