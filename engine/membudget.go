package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// memBudget bounds what an operator that keeps rows or values holds (ORDER
// BY, DISTINCT, GROUP BY, hash joins, windows, set operations, WITH
// RECURSIVE, ordered aggregates, a subquery's rows, LATERAL). ORDER BY and
// ordered aggregates (array_agg, string_agg ... ORDER BY) spill sorted runs
// to disk past it (sort_spill.go), GROUP BY the rows of the groups it
// cannot hold (aggregate_spill.go), a hash join both sides by key
// (join_spill.go); for the others work_mem is a hard bound: past it the
// statement fails with PostgreSQL's 53200 rather than growing until the
// OOM killer ends every session. A value being built for the output
// (string_agg's text) is not bounded by work_mem, as in PostgreSQL, only by
// the server's memory (grow).
type memBudget struct {
	limit int64 // bytes; 0: unbounded
	used  int64
	what  string // the operator charged last, for the message
	// acct is the statement's share of the server's memory (nil: the pool
	// does not see the statement); granted what the budget drew from it.
	acct    *MemAccount
	granted int64
	scope   *memScope // closes the budget with its query's rows; nil: none
	// spills: the operator spills when a charge fails (a hash join's
	// build side), so past the pool a charge fails at once, not waits.
	spills bool
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
	m.used += n
	if m.limit > 0 && m.used > m.limit {
		return m.pastWorkMem(op)
	}
	return m.draw(!m.spills, op)
}

// grow adds n bytes of a value being built for the output, which cannot
// spill: past work_mem it is still taken, waiting for the server's memory
// as a charge does, and failing with 53200 only when none will come.
func (m *memBudget) grow(n int64, op string) error {
	if m == nil {
		return nil
	}
	m.track(n)
	m.used += n
	return m.draw(true, op)
}

// spilling marks the budget of an operator that spills when a charge
// fails.
func (m *memBudget) spilling() *memBudget {
	m.spills = true
	return m
}

// pastWorkMem is the error of a charge past work_mem.
func (m *memBudget) pastWorkMem(op string) error {
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: op + " needs more than work_mem (" + sql.FormatKB(m.limit/1024) + ") to hold its rows; of these magmalake spills ORDER BY, GROUP BY, hash joins, DISTINCT, set operations, aggregates with DISTINCT or ORDER BY, and windows to disk (a part that still does not fit fails).",
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

// newMemBudget is a budget of limit bytes (work_mem) drawing on the
// server's memory through the account of ctx's statement.
func newMemBudget(ctx context.Context, limit int64) *memBudget {
	m := &memBudget{limit: limit, acct: memAccountOf(ctx)}
	if m.acct != nil {
		m.scope = memScopeOf(ctx)
	}
	return m
}

// close gives back all the budget drew from the server's pool, when what
// it counts is let go of before its statement ends (a subquery's rows for
// one outer row, a hash join's build side).
func (m *memBudget) close() {
	if m == nil {
		return
	}
	m.resetTo(0)
	m.giveAll()
	m.scope.forget(m)
}

func (m *memBudget) giveAll() {
	if m.acct != nil && m.granted > 0 {
		m.acct.give(m.granted)
		m.granted = 0
	}
}

// release returns n bytes an operator no longer holds.
func (m *memBudget) release(n int64) {
	if m != nil {
		m.used = max(0, m.used-n)
		m.track(-n)
		m.giveBack()
	}
}

// hold counts n bytes held by an operator that spills to disk past the
// limit (so it is never refused, by work_mem nor by the server's pool:
// fits, asked first, is where it learns to spill).
func (m *memBudget) hold(n int64) {
	if m != nil {
		m.used += n
		m.track(n)
		m.drawAnyway()
	}
}

// fits reports whether n more bytes stay within work_mem and the server's
// memory can give them now (without waiting: an operator that asks spills
// otherwise). What the pool gives for them stays with the budget.
func (m *memBudget) fits(n int64) bool {
	if m == nil {
		return true
	}
	if m.limit > 0 && m.used+n > m.limit {
		return false
	}
	if m.acct == nil || m.used+n <= m.granted {
		return true
	}
	m.used += n
	fits := m.draw(false, "") == nil
	m.used -= n
	return fits
}

// resetTo goes back to holding used bytes, when what was charged since is
// let go of all at once (a spilled partition's groups).
func (m *memBudget) resetTo(used int64) {
	m.track(used - m.used)
	m.used = used
	m.giveBack()
}

// draw takes from the server's pool what the budget uses beyond what it
// drew before, and up to memGrant more (within work_mem) so the next
// charges need not ask; wait says whether to wait for memory that other
// statements will give back. A draw that may not wait and is refused
// changes nothing and fails with 53200.
func (m *memBudget) draw(wait bool, op string) error {
	need := m.used - m.granted
	if m.acct == nil || need <= 0 {
		return nil
	}
	extra := int64(memGrant)
	if m.limit > 0 {
		extra = max(0, min(extra, m.limit-m.used))
	}
	got, err := m.acct.draw(need, extra, wait, op)
	m.gain(got)
	if err == nil && got == 0 {
		return m.acct.pool.short(op)
	}
	return err
}

// drawAnyway takes what the budget uses from the pool even past its limit:
// a spilling operator's hold, which it spills right after.
func (m *memBudget) drawAnyway() {
	if need := m.used - m.granted; m.acct != nil && need > 0 {
		m.acct.force(need)
		m.gain(need)
	}
}

// gain counts n more bytes drawn; the first draw joins the query's scope.
func (m *memBudget) gain(n int64) {
	if n > 0 && m.granted == 0 {
		m.scope.keep(m)
	}
	m.granted += n
}

// giveBack returns to the pool what the budget drew beyond what it uses,
// keeping a grant's worth for the next charges.
func (m *memBudget) giveBack() {
	if m.acct != nil && m.granted > m.used+2*memGrant {
		n := m.granted - m.used - memGrant
		m.acct.give(n)
		m.granted -= n
	}
}
