package wire

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
)

// flushThreshold is how much output is buffered before it is written out
// mid-statement; small results go out in one write at Sync/ReadyForQuery.
const flushThreshold = 64 << 10

// send appends msg to the output buffer.
func (c *conn) send(msg pgproto3.BackendMessage) {
	if c.outErr != nil {
		return
	}
	out, err := msg.Encode(c.out)
	if err != nil {
		c.outErr = fmt.Errorf("encode %T: %w", msg, err)
		return
	}
	c.out = out
}

// flush writes the buffered output to the client.
func (c *conn) flush() error {
	if c.outErr != nil {
		return c.outErr
	}
	if len(c.out) == 0 {
		return nil
	}
	c.wmu.Lock()
	_, err := c.nc.Write(c.out)
	c.wmu.Unlock()
	if cap(c.out) > 4*flushThreshold {
		c.out = nil // do not keep a huge buffer for the connection's life
	} else {
		c.out = c.out[:0]
	}
	if err != nil {
		c.outErr = fmt.Errorf("write to client: %w", err)
	}
	return c.outErr
}

// flushIfLarge keeps memory bounded while a large result streams.
func (c *conn) flushIfLarge() error {
	if len(c.out) >= flushThreshold {
		return c.flush()
	}
	return c.outErr
}
