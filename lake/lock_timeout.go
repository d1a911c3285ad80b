package lake

import (
	"context"
	"errors"
	"time"
)

// ErrLockTimeout is a statement that waited longer than its lock timeout
// for a table's commit turn (PostgreSQL's lock_timeout, 55P03). It gave
// up before committing anything; the files it wrote are removed.
var ErrLockTimeout = errors.New("lock timeout waiting for the table's commit turn")

type lockTimeoutKey struct{}

// WithLockTimeout bounds how long commits under ctx wait for a table's turn
// behind this process's other commits; 0 waits as long as ctx allows.
func WithLockTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

// lockWait is the channel that fires when ctx's lock timeout has passed
// (nil: never) and the function that stops its timer.
func lockWait(ctx context.Context) (<-chan time.Time, func()) {
	d, _ := ctx.Value(lockTimeoutKey{}).(time.Duration)
	if d <= 0 {
		return nil, func() {}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}
