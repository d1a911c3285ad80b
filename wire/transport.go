package wire

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/stmt"
)

// flushThreshold is how much output is buffered before it is written out
// mid-statement; small results go out in one write at Sync/ReadyForQuery.
const flushThreshold = 64 << 10

// transport is the client's socket as framed protocol messages: messages in
// through the backend decoder over the read-ahead, messages out through a
// buffer written at Sync/Flush/ReadyForQuery or when large.
type transport struct {
	raw net.Conn // the accepted socket, for other goroutines: nc may become TLS
	nc  net.Conn
	be  *pgproto3.Backend
	rd  *readAhead
	out []byte // pending output, flushed at Sync/Flush/ReadyForQuery or when large
	err error  // the first encoding or write failure; output stops there
	// wmu orders writes to nc: progress NOTICEs come from another goroutine
	// while a statement runs.
	wmu sync.Mutex
}

// startReadAhead switches reading to the read-ahead and the message
// decoder once the (possibly TLS) stream is final.
func (t *transport) startReadAhead(maxBodyLen int, onEOF func(), done <-chan struct{}, waitFn func() (time.Duration, <-chan struct{})) {
	t.rd = newReadAhead(t.nc, onEOF, done, waitFn)
	t.be = pgproto3.NewBackend(t.rd, io.Discard)
	t.be.SetMaxBodyLen(maxBodyLen)
}

// isTLS reports whether the client negotiated TLS.
func (t *transport) isTLS() bool {
	_, ok := t.nc.(*tls.Conn)
	return ok
}

// send appends msg to the output buffer.
func (t *transport) send(msg pgproto3.BackendMessage) {
	if t.err != nil {
		return
	}
	out, err := msg.Encode(t.out)
	if err != nil {
		t.err = fmt.Errorf("encode %T: %w", msg, err)
		return
	}
	t.out = out
}

// flush writes the buffered output to the client.
func (t *transport) flush() error {
	if t.err != nil {
		return t.err
	}
	if len(t.out) == 0 {
		return nil
	}
	t.wmu.Lock()
	_, err := t.nc.Write(t.out)
	t.wmu.Unlock()
	if cap(t.out) > 4*flushThreshold {
		t.out = nil // do not keep a huge buffer for the connection's life
	} else {
		t.out = t.out[:0]
	}
	if err != nil {
		t.err = fmt.Errorf("write to client: %w", err)
	}
	return t.err
}

// flushIfLarge keeps memory bounded while a large result streams.
func (t *transport) flushIfLarge() error {
	if len(t.out) >= flushThreshold {
		return t.flush()
	}
	return t.err
}

// sendNotices sends NOTICEs and WARNINGs to the client.
func (t *transport) sendNotices(ns []stmt.Notice) {
	for _, n := range ns {
		t.send(&pgproto3.NoticeResponse{Severity: n.Severity, SeverityUnlocalized: n.Severity, Code: string(n.Code), Message: n.Message})
	}
}
