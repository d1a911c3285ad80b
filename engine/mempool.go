package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// The server's memory budget. work_mem bounds one operator; MemPool bounds
// what all statements' operators hold together. A statement draws on it
// through its MemAccount, which gives everything back when the statement
// ends, so an operator that never releases its budget cannot keep the
// server's memory past its statement.
//
// Operators draw in grants of up to memGrant bytes (a lock per megabyte,
// not per row). When the pool cannot give what an operator needs, one
// that spills (ORDER BY, GROUP BY, hash joins, the LATERAL cache, the
// subquery scan cache, ORDER BY ... LIMIT's compaction) spills or gives up
// as it does past work_mem; any other waits for another statement to give
// memory back, as long as one that is not itself waiting and is not of the
// same session (whose other statements, an open cursor or a suspended
// portal, cannot go on while this one runs) holds some. Otherwise waiting
// could only deadlock, and the statement fails with 53200.

// memGrant is the most a budget takes from the pool beyond what it needs.
const memGrant = 1 << 20

// MemPoolOptions configure a server's pool.
type MemPoolOptions struct {
	// Limit is what all statements may hold together, in bytes (0:
	// unbounded: accounted, never refused).
	Limit int64
	// ReturnMemory, when set, gives the process's free memory back to the
	// operating system (debug.FreeOSMemory for a server). It runs in its
	// own goroutine once a statement that held at least ReturnAfter bytes
	// has ended and no statement has run for ReturnQuiet, at most once
	// per ReturnEvery: a forced collection is too dear for every
	// statement, and memory given back while statements follow each other
	// is faulted in again by the next one (a tenth of TPC-H Q9's CPU).
	ReturnMemory func()
	ReturnAfter  int64
	ReturnEvery  time.Duration
	ReturnQuiet  time.Duration
}

// MemPool is a server's memory budget, shared by its sessions.
type MemPool struct {
	opts MemPoolOptions

	mu      sync.Mutex
	used    int64
	holders map[*MemAccount]struct{} // accounts holding memory
	waiters int                      // draws waiting for memory
	// changed is closed, and replaced, when a waiter may now be served or
	// must stop waiting: memory was given back, or one more waits.
	changed chan struct{}
	// lastReturn is when ReturnMemory last ran; returnDue that a run is
	// scheduled, returnWanted that one is owed (a large statement ended)
	// for when the server is quiet.
	lastReturn   time.Time
	returnDue    bool
	returnWanted bool
	// open counts the accounts open now; lastActive is when one was last
	// opened or closed.
	open       int
	lastActive time.Time
}

// NewMemPool starts a server's pool.
func NewMemPool(opts MemPoolOptions) *MemPool {
	return &MemPool{opts: opts, holders: map[*MemAccount]struct{}{}, changed: make(chan struct{})}
}

// Limit is the pool's bound in bytes (0: unbounded).
func (p *MemPool) Limit() int64 { return p.opts.Limit }

// Used is what the statements running now hold of the pool, in bytes.
func (p *MemPool) Used() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// Waiting is how many draws wait for memory now.
func (p *MemPool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiters
}

// MemAccount is one statement's (or one open cursor's) share of the pool.
type MemAccount struct {
	pool  *MemPool
	owner any // the session: its accounts never wait for each other
	// Under pool.mu:
	held, peak int64
	waiting    int             // the account's goroutines waiting for memory
	call       context.Context // the call the statement runs under; nil: none
	closed     bool
}

// Open starts an account for a statement of owner's (its session).
func (p *MemPool) Open(owner any) *MemAccount {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open++
	p.lastActive = time.Now()
	return &MemAccount{pool: p, owner: owner}
}

// Enter makes ctx the call the account's statement runs under now
// (Execute, or a later fetch of its rows): a wait for memory ends when ctx
// does. leave goes back to the call before.
func (a *MemAccount) Enter(ctx context.Context) (leave func()) {
	p := a.pool
	p.mu.Lock()
	prev := a.call
	a.call = ctx
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		a.call = prev
		p.mu.Unlock()
	}
}

// Close gives back everything the account holds: its statement ended.
// Later draws are not counted.
func (a *MemAccount) Close() {
	p := a.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if a.closed {
		return
	}
	a.closed = true
	p.giveLocked(a, a.held)
	p.open--
	p.lastActive = time.Now()
	if p.opts.ReturnMemory != nil && a.peak >= p.opts.ReturnAfter {
		p.returnWanted = true
	}
	if p.returnWanted && p.open == 0 {
		p.scheduleReturnLocked()
	}
}

// Held is what the account holds of the pool, in bytes.
func (a *MemAccount) Held() int64 {
	a.pool.mu.Lock()
	defer a.pool.mu.Unlock()
	return a.held
}

// give returns n bytes to the pool.
func (a *MemAccount) give(n int64) {
	if n <= 0 {
		return
	}
	a.pool.mu.Lock()
	defer a.pool.mu.Unlock()
	if !a.closed {
		a.pool.giveLocked(a, n)
	}
}

// force takes n bytes even past the limit: a spilling operator's batch,
// held until it is spilled.
func (a *MemAccount) force(n int64) {
	a.pool.mu.Lock()
	defer a.pool.mu.Unlock()
	if !a.closed {
		a.pool.takeLocked(a, n)
	}
}

func (p *MemPool) giveLocked(a *MemAccount, n int64) {
	n = min(n, a.held)
	a.held -= n
	p.used -= n
	if a.held == 0 {
		delete(p.holders, a)
	}
	if n > 0 {
		p.wakeLocked()
	}
}

func (p *MemPool) takeLocked(a *MemAccount, n int64) {
	a.held += n
	a.peak = max(a.peak, a.held)
	p.used += n
	p.holders[a] = struct{}{}
}

// wakeLocked tells the waiters to look again.
func (p *MemPool) wakeLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// draw takes need bytes for op, and up to extra more when the pool has
// them; it returns what it took. Past the pool's limit, a draw that may
// not wait takes nothing, and one that may waits for memory to come back
// or fails with 53200 when none will.
func (a *MemAccount) draw(need, extra int64, wait bool, op string) (int64, error) {
	p := a.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	waiting := false
	defer func() {
		if waiting {
			a.waiting--
			p.waiters--
		}
	}()
	for {
		if a.closed {
			return need, nil
		}
		switch {
		case p.opts.Limit <= 0 || p.used+need+extra <= p.opts.Limit:
			p.takeLocked(a, need+extra)
			return need + extra, nil
		case p.used+need <= p.opts.Limit:
			p.takeLocked(a, need)
			return need, nil
		case !wait:
			return 0, nil
		case !p.othersWillGiveLocked(a):
			return 0, p.exhausted(a, op)
		}
		if !waiting {
			// Waiters that counted on this statement giving memory
			// back look again: now it waits too.
			waiting = true
			a.waiting++
			p.waiters++
			p.wakeLocked()
		}
		changed, ctx := p.changed, a.call
		if ctx == nil {
			ctx = context.Background()
		}
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
		p.mu.Lock()
		if err := ctx.Err(); err != nil {
			return 0, pgerr.Canceled(err)
		}
	}
}

// othersWillGiveLocked reports whether a statement of another session
// that is not waiting for memory holds some: what a waits for may come
// back.
func (p *MemPool) othersWillGiveLocked(a *MemAccount) bool {
	for b := range p.holders {
		if b != a && (b.owner == nil || b.owner != a.owner) && b.waiting == 0 {
			return true
		}
	}
	return false
}

// exhausted is the error of a statement the pool cannot serve and whose
// wait would not end.
func (p *MemPool) exhausted(a *MemAccount, op string) error {
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: fmt.Sprintf("%s needs more memory than the server's limit (--memory-limit %s) leaves: this statement holds %s of it, other statements %s, and none of them will give memory back while it waits.",
			op, sql.FormatKB(p.opts.Limit/1024), sql.SizePretty(a.held), sql.SizePretty(p.used-a.held)),
		Hint: "Lower work_mem, narrow the query (a WHERE, a LIMIT, fewer groups), or raise the server's --memory-limit."}
}

// short is the error of a draw that may not wait and finds the pool
// short: the operator spills instead.
func (p *MemPool) short(op string) error {
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: fmt.Sprintf("%s needs more memory than the server's limit (--memory-limit %s) leaves.", op, sql.FormatKB(p.opts.Limit/1024))}
}

// scheduleReturnLocked runs ReturnMemory once no statement has run for
// ReturnQuiet and ReturnEvery has passed since its last run.
func (p *MemPool) scheduleReturnLocked() {
	if p.returnDue {
		return
	}
	p.returnDue = true
	time.AfterFunc(p.returnDelayLocked(), p.returnMemory)
}

// returnDelayLocked is how long until a return of memory may run.
func (p *MemPool) returnDelayLocked() time.Duration {
	return max(0, p.opts.ReturnEvery-time.Since(p.lastReturn), p.opts.ReturnQuiet-time.Since(p.lastActive))
}

// returnMemory runs ReturnMemory if the server is still quiet; a statement
// that runs now, or ran since, puts it off (Close schedules it again).
func (p *MemPool) returnMemory() {
	p.mu.Lock()
	p.returnDue = false
	if p.open > 0 {
		p.mu.Unlock()
		return
	}
	if d := p.returnDelayLocked(); d > 0 {
		p.returnDue = true
		time.AfterFunc(d, p.returnMemory)
		p.mu.Unlock()
		return
	}
	p.returnWanted = false
	p.lastReturn = time.Now()
	p.mu.Unlock()
	p.opts.ReturnMemory()
}

type memAccountKey struct{}

// WithMemAccount makes a the account the budgets of ctx's statement draw
// on.
func WithMemAccount(ctx context.Context, a *MemAccount) context.Context {
	return context.WithValue(ctx, memAccountKey{}, a)
}

// memAccountOf is the account of ctx's statement; nil: none (the pool
// does not see the statement, work_mem alone bounds its operators).
func memAccountOf(ctx context.Context) *MemAccount {
	a, _ := ctx.Value(memAccountKey{}).(*MemAccount)
	return a
}
