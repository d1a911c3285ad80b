package wire

import (
	"errors"
	"io"
	"net"
	"time"
)

var (
	errIdleTimeout = errors.New("idle-session timeout")
	errDraining    = errors.New("server shutting down")
)

// readAhead reads the socket in its own goroutine so that a client that
// disconnects while a statement runs is noticed at once (and the statement
// cancelled) instead of at the next read. It hands chunks to Read through a
// channel; a few buffers are recycled, so steady reading does not allocate.
type readAhead struct {
	data   chan []byte
	free   chan []byte
	done   chan struct{}
	cur    []byte
	spent  []byte
	err    error
	onEOF  func()
	waitFn func() (timeout time.Duration, draining <-chan struct{})
}

const readChunk = 32 << 10

func newReadAhead(nc net.Conn, onEOF func(), waitFn func() (time.Duration, <-chan struct{})) *readAhead {
	r := &readAhead{
		data:   make(chan []byte, 2),
		free:   make(chan []byte, 3),
		done:   make(chan struct{}),
		onEOF:  onEOF,
		waitFn: waitFn,
	}
	for range 3 {
		r.free <- make([]byte, readChunk)
	}
	go r.loop(nc)
	return r
}

func (r *readAhead) loop(nc net.Conn) {
	defer close(r.data)
	for {
		var b []byte
		select {
		case b = <-r.free:
		case <-r.done:
			return
		}
		n, err := nc.Read(b[:cap(b)])
		if n > 0 {
			select {
			case r.data <- b[:n]:
			case <-r.done:
				return
			}
		} else {
			r.free <- b
		}
		if err != nil {
			r.onEOF()
			return
		}
	}
}

// Read implements io.Reader for pgproto3. While waiting for a new message it
// honours the idle timeout and the server's drain signal.
func (r *readAhead) Read(p []byte) (int, error) {
	if len(r.cur) == 0 {
		if r.spent != nil {
			r.free <- r.spent
			r.spent = nil
		}
		if r.err != nil {
			return 0, r.err
		}
		b, err := r.next()
		if err != nil {
			r.err = err
			return 0, err
		}
		r.cur, r.spent = b, b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func (r *readAhead) next() ([]byte, error) {
	timeout, draining := r.waitFn()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case b, ok := <-r.data:
		if !ok {
			return nil, io.EOF
		}
		return b, nil
	case <-timer:
		return nil, errIdleTimeout
	case <-draining:
		return nil, errDraining
	}
}

// stop ends the reading goroutine once the socket is closed.
func (r *readAhead) stop() {
	select {
	case <-r.done:
	default:
		close(r.done)
	}
}
