package session

import (
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// planCacheSize bounds a session's cached statements; clients repeat a few
// texts (pgbench, ORMs, health checks), so a small map suffices.
const planCacheSize = 128

// planCache remembers, per session and by exact query text, what Prepare
// derived from a SELECT so a repeated simple (or unnamed extended) query
// skips lexing, normalising and tidb parsing.
//
// It holds nothing that can go stale: parsing depends on the text alone
// (and on max_stack_depth, which is why an entry is only used under a limit
// at least as large as the one it was parsed under), a SELECT over a table
// is bound again against the catalog on every Prepare (its executions reuse
// that plan while it is current, plan_reuse.go), and only plans over no
// table at all are reused whole, since binding them reads neither catalog
// nor settings. So neither DDL (from any session or process sharing the
// warehouse) nor SET needs to invalidate it.
type planCache struct {
	entries map[string]cachedStmt
}

// cachedStmt is one query text's parse and, for a plan that depends on no
// table, its prepared form.
type cachedStmt struct {
	stmt     *sql.Select
	prep     *stmt.Prepared // nil: bind again (the statement reads a table)
	maxDepth int            // the expression depth limit it was parsed under
	input    sql.InputStyle // the DateStyle prep's literals were read in
}

// get returns query's entry if it was parsed under a depth limit no larger
// than maxDepth (a lowered max_stack_depth must refuse it again).
// A prep bound under another DateStyle is dropped: its literals would read
// differently now, while the parse still holds.
func (c *planCache) get(query string, maxDepth int, input sql.InputStyle) (cachedStmt, bool) {
	e, ok := c.entries[query]
	if e.input != input {
		e.prep = nil
	}
	return e, ok && e.maxDepth <= maxDepth
}

// put records query's parse when it is a plain SELECT, whose binding
// leaves the parsed form untouched (prepared statements already re-bind it
// on every execution). Other statements are not cached.
func (c *planCache) put(query string, st sql.Statement, p *stmt.Prepared, maxDepth int, input sql.InputStyle) {
	sel, ok := st.(*sql.Select)
	if !ok || sel.Complex {
		return
	}
	if c.entries == nil {
		c.entries = make(map[string]cachedStmt)
	}
	if len(c.entries) >= planCacheSize {
		clear(c.entries)
	}
	e := cachedStmt{stmt: sel, maxDepth: maxDepth, input: input}
	if _, whole := formOf(p).plan.(*constSelect); whole {
		e.prep = p
	}
	c.entries[query] = e
}
