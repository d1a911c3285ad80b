package exec

import (
	"sync"
	"sync/atomic"
)

// tableUse counts, per table, the open transaction blocks of this engine
// that touched it, so that background maintenance gives way to them: a
// block pins the head it first read and publishes at COMMIT a change
// planned on it, which a rewrite of its files committed meanwhile would
// turn into a serialization failure. The zero value is ready to use.
type tableUse struct {
	mu     sync.Mutex
	tables map[string]*useEntry
}

// useEntry is one table's count. turn is held by maintenance while it
// commits, and briefly by a block entering, so a block either enters
// before maintenance looks (maintenance gives way) or after its commit
// (the block pins the new head).
type useEntry struct {
	turn   sync.Mutex
	blocks atomic.Int64
}

func (u *tableUse) entry(key string) *useEntry {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.tables == nil {
		u.tables = map[string]*useEntry{}
	}
	e, ok := u.tables[key]
	if !ok {
		e = &useEntry{}
		u.tables[key] = e
	}
	return e
}

// enter records a block touching key; the returned func records its end.
func (u *tableUse) enter(key string) (leave func()) {
	e := u.entry(key)
	e.turn.Lock()
	e.blocks.Add(1)
	e.turn.Unlock()
	var once sync.Once
	return func() { once.Do(func() { e.blocks.Add(-1) }) }
}

// busy reports whether an open block touched key.
func (u *tableUse) busy(key string) bool { return u.entry(key).blocks.Load() > 0 }

// unlessBusy runs commit unless an open block touched key, keeping new
// blocks out of key until it returns; ran is false when it gave way.
func (u *tableUse) unlessBusy(key string, commit func() error) (ran bool, err error) {
	e := u.entry(key)
	e.turn.Lock()
	defer e.turn.Unlock()
	if e.blocks.Load() > 0 {
		return false, nil
	}
	return true, commit()
}
