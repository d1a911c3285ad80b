package remote

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// copyChunk is how much COPY FROM data goes in one CopyData message.
const copyChunk = 64 << 10

// copyIn answers a CopyInResponse: the Result's Load streams the data and
// returns the row count of the server's "COPY n".
func (q *query) copyIn(m *pgproto3.CopyInResponse) *stmt.Result {
	q.stopCancel() // the load watches its own context
	q.s.unfinished = q.abandonCopyIn
	in := &stmt.CopyIn{
		Columns: len(m.ColumnFormatCodes),
		Binary:  m.OverallFormat == 1,
		Load: func(ctx context.Context, r io.Reader) (int64, error) {
			q.s.unfinished = nil
			return q.load(ctx, r)
		},
	}
	return &stmt.Result{CopyIn: in, Notices: q.notices, ParameterChanges: q.changes}
}

// load sends r as CopyData while another goroutine reads the server's
// messages, so that an error the server reports mid-way (a bad row, a
// cancel) stops the sending at once, as libpq's COPY does.
func (q *query) load(ctx context.Context, r io.Reader) (int64, error) {
	stop := q.s.watchCancel(ctx)
	defer stop()
	failed := make(chan struct{})
	answered := make(chan error, 1)
	go q.readCopyAnswer(failed, answered)
	if err := q.sendCopyData(r, failed); err != nil {
		q.endCopyData(&pgproto3.CopyFail{Message: err.Error()})
	} else {
		q.endCopyData(&pgproto3.CopyDone{})
	}
	if broken := <-answered; broken != nil {
		return 0, q.failure(q.s.lost(broken)) // closed here, not under the sender
	}
	if q.err != nil {
		return 0, q.err
	}
	return copyCount(q.tag), nil
}

// readCopyAnswer reads up to ReadyForQuery, closing failed at the first
// error, and sends on answered what broke the connection, if anything.
func (q *query) readCopyAnswer(failed chan<- struct{}, answered chan<- error) {
	var once sync.Once
	for {
		msg, err := q.s.conn.ReceiveMessage(context.Background())
		if err != nil {
			once.Do(func() { close(failed) })
			answered <- err
			return
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			answered <- nil
			return
		}
		q.take(msg)
		if q.err != nil {
			once.Do(func() { close(failed) })
		}
	}
}

// sendCopyData streams r until EOF (nil) or a read error (returned, for
// CopyFail), or until the server has failed the COPY.
func (q *query) sendCopyData(r io.Reader, failed <-chan struct{}) error {
	buf := make([]byte, 5+copyChunk)
	buf[0] = 'd'
	for {
		select {
		case <-failed:
			return nil
		default:
		}
		n, err := r.Read(buf[5:])
		if n > 0 {
			binary.BigEndian.PutUint32(buf[1:5], uint32(n+4))
			if werr := q.s.conn.Frontend().SendUnbufferedEncodedCopyData(buf[:5+n]); werr != nil {
				// Unblock the reader: the connection is broken.
				q.s.conn.Conn().Close()
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// endCopyData sends CopyDone or CopyFail; a server that failed the COPY
// already ignores it, as the protocol says.
func (q *query) endCopyData(m pgproto3.FrontendMessage) {
	fe := q.s.conn.Frontend()
	fe.Send(m)
	_ = fe.Flush() // a broken connection shows in the answer
}

// abandonCopyIn ends a COPY FROM STDIN whose data nobody sent, so that the
// connection can take the next statement.
func (q *query) abandonCopyIn() error {
	_, err := q.load(context.Background(), &failingReader{errors.New("COPY abandoned by the shell")})
	if q.s.conn.IsClosed() {
		return err
	}
	return nil
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// copyCount is n of a "COPY n" tag.
func copyCount(tag string) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(tag, "COPY "), 10, 64)
	return n
}

// copyOut answers a CopyOutResponse: the data stays on the wire until the
// shell writes it out with WriteCopyData.
func (q *query) copyOut(m *pgproto3.CopyOutResponse) *stmt.Result {
	cols := make([]stmt.Column, len(m.ColumnFormatCodes))
	for i := range cols {
		cols[i].Type = sql.Text
	}
	out := &copyOutRows{q: q}
	q.s.unfinished = out.Close
	return &stmt.Result{Columns: cols, Rows: out, CopyOut: true, Notices: q.notices, ParameterChanges: q.changes}
}

// copyOutRows is COPY TO STDOUT data still arriving. The server has
// already laid it out (format, delimiter, header, ...), so it is written
// as it comes, not read as rows.
type copyOutRows struct {
	q    *query
	done bool
}

// WriteCopyData writes the COPY data to w as it arrives and returns the
// count of the server's "COPY n". The statement's context (given to
// Execute) still cancels it.
func (o *copyOutRows) WriteCopyData(_ context.Context, w io.Writer) (int64, error) {
	var werr error
	err := o.read(func(data []byte) {
		if werr == nil {
			_, werr = w.Write(data)
		}
	})
	switch {
	case err != nil:
		return 0, err
	case werr != nil:
		return 0, pgerr.Errorf(pgerr.IOError, "could not write COPY data: %v", werr)
	}
	return copyCount(o.q.tag), nil
}

// read passes each CopyData to data up to ReadyForQuery.
func (o *copyOutRows) read(data func([]byte)) error {
	if o.done {
		return nil
	}
	o.done = true
	o.q.s.unfinished = nil
	defer o.q.stopCancel()
	for {
		msg, err := o.q.s.receive()
		if err != nil {
			return o.q.failure(err)
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			data(m.Data)
		case *pgproto3.ReadyForQuery:
			return o.q.err
		default:
			o.q.take(msg)
		}
	}
}

// Next refuses: COPY data is the server's text, written by WriteCopyData.
func (o *copyOutRows) Next(context.Context) (arrow.RecordBatch, error) {
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY TO STDOUT data from a server is written as it arrives, not read as rows")
}

func (o *copyOutRows) Tag() string { return o.q.tag }

// Close drops data nobody wrote, so that the connection is ready again.
func (o *copyOutRows) Close() error {
	err := o.read(func([]byte) {})
	if o.q.s.conn.IsClosed() {
		return err
	}
	return nil
}
