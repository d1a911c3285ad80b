package testenv

import (
	"context"
	"errors"
	"testing"
	"time"
)

// maxPoll bounds the pause between two looks at a condition.
const maxPoll = 50 * time.Millisecond

var errNotYet = errors.New("the condition does not hold yet")

// WaitFor polls cond until it holds; when it has not held within the
// deadline the test fails saying what was awaited. Tests wait on the
// condition they need instead of sleeping for a time that is usually long
// enough.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	Retry(t, within, what, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}

// Retry calls try as WaitFor polls its condition until try succeeds; when
// it has not within the deadline the test fails with try's last error.
func Retry(t testing.TB, within time.Duration, what string, try func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var err error
	if !Await(ctx, func() bool { err = try(); return err == nil }) {
		t.Fatalf("%s: not within %v: %v", what, within, err)
	}
}

// Await polls cond, quickly at first and then less often, until it holds
// (true) or ctx ends (false): WaitFor for a goroutine other than the
// test's, which must not fail it.
func Await(ctx context.Context, cond func() bool) bool {
	for pause := time.Millisecond; !cond(); pause = min(2*pause, maxPoll) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pause):
		}
	}
	return true
}
