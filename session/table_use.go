package session

import (
	"context"
	"sync"
	"time"
)

// tableUse counts, per table, the open transaction blocks of this engine
// that touched it, so that background maintenance does not fail them: a
// block pins the head it first read and publishes at COMMIT a change
// planned on it, which a rewrite of its files committed meanwhile would
// turn into a serialization failure. The zero value is ready to use.
type tableUse struct {
	mu     sync.Mutex
	tables map[string]*useEntry
}

// useEntry is one table's count. turn (a one-slot semaphore, so that a
// block waiting for it can be cancelled) is held by maintenance while it
// waits for the open blocks to end and commits, and briefly by a block
// entering, so a block either entered before (maintenance waits for it)
// or enters after the commit (the block pins the new head).
type useEntry struct {
	turn chan struct{}
	mu   sync.Mutex // guards blocks and idle
	// blocks is the open blocks that touched the table; idle is closed
	// when it falls to zero.
	blocks int
	idle   chan struct{}
}

func (u *tableUse) entry(key string) *useEntry {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.tables == nil {
		u.tables = map[string]*useEntry{}
	}
	e, ok := u.tables[key]
	if !ok {
		e = &useEntry{turn: make(chan struct{}, 1)}
		u.tables[key] = e
	}
	return e
}

// enter records a block touching key; the returned func records its end.
// While maintenance commits a rewrite of key it waits, as long as ctx
// lets it.
func (u *tableUse) enter(ctx context.Context, key string) (leave func(), err error) {
	e := u.entry(key)
	select {
	case e.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	e.mu.Lock()
	if e.blocks == 0 {
		e.idle = make(chan struct{})
	}
	e.blocks++
	e.mu.Unlock()
	<-e.turn
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.blocks--; e.blocks == 0 {
				close(e.idle)
			}
		})
	}, nil
}

// whenIdle runs commit once no open block touches key, keeping new blocks
// out of key until it returns: it waits up to wait for the blocks open now
// to end (while they run, a block entering waits too). ran is false when
// they did not end in time, and commit did not run.
func (u *tableUse) whenIdle(key string, wait time.Duration, commit func() error) (ran bool, err error) {
	e := u.entry(key)
	e.turn <- struct{}{}
	defer func() { <-e.turn }()
	if !e.waitIdle(wait) {
		return false, nil
	}
	return true, commit()
}

func (e *useEntry) waitIdle(wait time.Duration) bool {
	e.mu.Lock()
	idle := e.idle
	open := e.blocks > 0
	e.mu.Unlock()
	if !open {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}
