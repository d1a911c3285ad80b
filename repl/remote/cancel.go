package remote

import (
	"context"
	"time"
)

const (
	// cancelDialTimeout bounds delivering a CancelRequest.
	cancelDialTimeout = 10 * time.Second
	// cancelGrace is how long a cancelled statement may take to end before
	// the connection is given up on: a server that never answers must not
	// hold the shell forever (psql would wait for another Ctrl-C, which a
	// context cannot give).
	cancelGrace = 30 * time.Second
)

// watchCancel sends the server a CancelRequest when ctx ends before stop
// is called, as psql does on Ctrl-C. The statement then fails with the
// server's own error (57014) and the connection stays usable. stop waits
// for a request in flight.
func (s *Session) watchCancel(ctx context.Context) (stop func()) {
	if ctx.Done() == nil {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		dctx, cancel := context.WithTimeout(context.Background(), cancelDialTimeout)
		_ = s.conn.CancelRequest(dctx) // the statement's outcome tells whether it landed
		cancel()
		select {
		case <-done:
		case <-time.After(cancelGrace):
			// The read in progress fails, and the session closes the
			// connection as lost.
			_ = s.conn.Conn().SetReadDeadline(time.Now())
		}
	}()
	var stopped bool
	return func() {
		if !stopped {
			stopped = true
			close(done)
			<-exited
		}
	}
}
