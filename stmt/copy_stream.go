package stmt

import (
	"context"
	"errors"
	"io"

	"github.com/magmalake/magmalake/pgerr"
)

// CopyStream is a COPY ... FROM STDIN load running on a goroutine of its
// own, fed through Write: the wire layer writes the client's CopyData into
// it, the shell the input lines after the statement. A panic in the load
// becomes its error.
type CopyStream struct {
	pw      *io.PipeWriter
	done    chan copyOutcome
	cancel  context.CancelFunc
	stopped bool // a Write found the load no longer reading
}

type copyOutcome struct {
	n   int64
	err error
}

// Start starts loading what is written to the returned stream.
func (c *CopyIn) Start(ctx context.Context) *CopyStream {
	ctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	s := &CopyStream{pw: pw, done: make(chan copyOutcome, 1), cancel: cancel}
	go func() {
		var o copyOutcome
		func() {
			defer func() {
				if p := recover(); p != nil {
					o.err = pgerr.Errorf(pgerr.InternalError, "internal error: %v", p)
				}
			}()
			o.n, o.err = c.Load(ctx, pr)
		}()
		pr.CloseWithError(errors.New("COPY loader finished"))
		s.done <- o
	}()
	return s
}

// Write passes data to the load; an error says it stopped reading (Finish
// then gives the reason).
func (s *CopyStream) Write(p []byte) (int, error) {
	n, err := s.pw.Write(p)
	s.stopped = s.stopped || err != nil
	return n, err
}

// Finish ends the data and waits for the load: the rows it loaded, or its
// error. A load that stopped reading early without one fails here.
func (s *CopyStream) Finish() (int64, error) {
	s.pw.Close()
	o := <-s.done
	s.cancel()
	if o.err == nil && s.stopped {
		o.err = pgerr.Errorf(pgerr.InternalError, "COPY loader stopped reading")
	}
	return o.n, o.err
}

// Abort stops the load with err and waits for it to end.
func (s *CopyStream) Abort(err error) {
	s.cancel()
	s.pw.CloseWithError(err)
	<-s.done
}
