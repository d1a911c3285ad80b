package wire

import (
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

var (
	errIdleTimeout = errors.New("idle-session timeout")
	errDraining    = errors.New("server shutting down")
)

// watchDelay is how long a statement runs before the socket is watched for
// the client going away: short statements never pay for the watcher.
const watchDelay = 10 * time.Millisecond

// maxReadAhead bounds what the watcher buffers while a statement runs. Past
// it the watcher stops reading, so a client that keeps sending is held back
// by TCP flow control instead of growing the server, as PostgreSQL's backend
// holds it back by not reading at all; the rest is read once the statement
// ends. readChunk is the size of one read.
const (
	maxReadAhead = 4 << 20
	readChunk    = 64 << 10
)

// readAhead reads the client socket on the connection's own goroutine, so a
// request costs no hand-off between goroutines. While a statement runs for
// longer than watchDelay a watcher goroutine reads ahead instead, so that a
// client that disconnects is noticed at once (and its statement cancelled)
// rather than at the next read; what it read is served first afterwards.
// A client that fills maxReadAhead while its statement runs is not watched
// any more: its disconnect is noticed at the next read.
type readAhead struct {
	nc     net.Conn
	onEOF  func()
	done   <-chan struct{} // the connection's context: a hard abort
	waitFn func() (timeout time.Duration, draining <-chan struct{})

	pending []byte // read by the watcher, not consumed yet; at most limit bytes
	err     error  // the watcher's read error, returned once pending is empty
	limit   int
	peak    atomic.Int64 // the most bytes pending ever held, for tests

	mu sync.Mutex
	// The watch timer is armed at most once per watchDelay, not per
	// statement: re-arming it wakes the runtime's network poller, a
	// futex wake-up per statement that was a tenth of a 1-client
	// pgbench's server time. When it fires it looks at the statement
	// running then: one past watchDelay is watched, a younger one gets the
	// timer again for the rest, none leaves it unarmed.
	timer     *time.Timer
	armed     bool      // the timer is pending
	running   bool      // a statement is running (watchAfter, not yet unwatch)
	started   time.Time // when it started
	delay     time.Duration
	watchDone chan struct{} // closed when the running watcher exits
	stop      atomic.Bool
}

func newReadAhead(nc net.Conn, onEOF func(), done <-chan struct{}, waitFn func() (time.Duration, <-chan struct{})) *readAhead {
	return &readAhead{nc: nc, onEOF: onEOF, done: done, waitFn: waitFn, limit: maxReadAhead}
}

// Read implements io.Reader for pgproto3. While waiting for a new message it
// honours the idle timeout and the server's drain signal (Shutdown wakes the
// read with a past deadline).
func (r *readAhead) Read(p []byte) (int, error) {
	r.unwatch()
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		if len(r.pending) == 0 {
			r.pending = nil // let a large read-ahead buffer go
		}
		return n, nil
	}
	if r.err != nil {
		return 0, r.err
	}
	timeout, draining := r.waitFn()
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		// Deadline first, checks second: an abort or drain that lands after
		// the checks sets its past deadline after ours.
		r.nc.SetReadDeadline(deadline)
		if err := r.interrupted(draining); err != nil {
			return 0, err
		}
		n, err := r.nc.Read(p)
		if n > 0 || err == nil {
			return n, nil // a sticky error comes back on the next Read
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			r.err = err
			r.onEOF()
			return 0, err
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return 0, errIdleTimeout
		}
	}
}

// failed reports that reading the socket failed (or met its end): a
// message error not explained by it is the client's.
func (r *readAhead) failed() bool { return r.err != nil }

// interrupted reports a hard abort or a drain while idle.
func (r *readAhead) interrupted(draining <-chan struct{}) error {
	select {
	case <-r.done:
		return io.EOF
	case <-draining:
		return errDraining
	default:
		return nil
	}
}

// watchAfter has the socket watched if the statement that is starting
// runs longer than d.
func (r *readAhead) watchAfter(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running, r.started, r.delay = true, time.Now(), d
	switch {
	case r.armed:
	case r.timer == nil:
		r.timer = time.AfterFunc(d, r.startWatch)
		r.armed = true
	default:
		r.timer.Reset(d)
		r.armed = true
	}
}

// startWatch is the timer's: it starts the watcher for a statement running
// for its delay, and waits again for a younger one.
func (r *readAhead) startWatch() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armed = false
	if !r.running || r.watchDone != nil || r.err != nil {
		return
	}
	if left := r.delay - time.Since(r.started); left > 0 {
		r.timer.Reset(left)
		r.armed = true
		return
	}
	r.stop.Store(false)
	r.watchDone = make(chan struct{})
	go r.watch(r.watchDone)
}

// watch reads ahead until unwatch stops it, the client goes away or limit
// bytes are pending.
func (r *readAhead) watch(done chan struct{}) {
	defer close(done)
	for !r.stop.Load() {
		room := min(r.limit-len(r.pending), readChunk)
		if room <= 0 {
			return // full: the socket holds the rest until the statement ends
		}
		r.pending = slices.Grow(r.pending, room)
		n, err := r.nc.Read(r.pending[len(r.pending) : len(r.pending)+room])
		r.pending = r.pending[:len(r.pending)+n]
		if int64(len(r.pending)) > r.peak.Load() {
			r.peak.Store(int64(len(r.pending)))
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			r.err = err
			r.onEOF()
			return
		}
	}
}

// unwatch ends the statement's watching: the timer will not start a
// watcher, and a running one is stopped; once it returns only the caller
// reads the socket.
func (r *readAhead) unwatch() {
	r.mu.Lock()
	r.running = false
	done := r.watchDone
	r.watchDone = nil
	r.mu.Unlock()
	if done != nil {
		r.stop.Store(true)
		r.nc.SetReadDeadline(time.Now())
		<-done
	}
}

// wake ends a blocked idle read so that it sees the drain signal.
func (r *readAhead) wake() {
	r.nc.SetReadDeadline(time.Now())
}

// stop ends watching when the connection closes.
func (r *readAhead) close() {
	r.unwatch()
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
		r.armed = false
	}
	r.mu.Unlock()
}
