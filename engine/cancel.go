package engine

import (
	"context"

	"github.com/magmalake/magmalake/pgerr"
)

// Every operator's inner loop looks at the statement's context at a
// bounded interval, so a cancel or statement_timeout is answered within
// milliseconds, not when the operator would have finished.

// checkEvery is how many steps of an inner loop (row pairs, frame rows,
// sort comparisons) go between two looks at the context: a look takes a
// lock, and 4096 steps take microseconds.
const checkEvery = 4096

// canceled is the statement's end as 57014, nil while it may go on.
func canceled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return pgerr.Canceled(err)
	}
	return nil
}

// cancelCheck counts the steps of an inner loop and looks at the context
// every checkEvery of them.
type cancelCheck struct {
	ctx   context.Context
	steps int
}

// step counts n steps; past checkEvery since the last look, it looks.
func (c *cancelCheck) step(n int) error {
	c.steps += n
	if c.steps < checkEvery {
		return nil
	}
	c.steps = 0
	return canceled(c.ctx)
}

// sortStop lets a sort from package slices, which takes no context, end
// with the statement: its comparison function calls look, which panics
// with 57014 once the statement is cancelled (looking every checkEvery
// comparisons), and the sorting function defers catch, which turns that
// panic back into its error. Sorting work_mem's rows takes seconds.
type sortStop struct{ check cancelCheck }

// sortStopped is the panic look raises.
type sortStopped struct{ err error }

func newSortStop(ctx context.Context) *sortStop { return &sortStop{check: cancelCheck{ctx: ctx}} }

func (s *sortStop) look() {
	if err := s.check.step(1); err != nil {
		panic(sortStopped{err})
	}
}

// catch, deferred, sets *err to the statement's end when look stopped the
// sort; any other panic goes on.
func (s *sortStop) catch(err *error) {
	p := recover()
	if p == nil {
		return
	}
	stopped, ok := p.(sortStopped)
	if !ok {
		panic(p)
	}
	*err = stopped.err
}
