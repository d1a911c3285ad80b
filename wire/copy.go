package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

var errCopyFailed = errors.New("COPY aborted by the client")

// copyIn runs COPY ... FROM STDIN: CopyData bytes are streamed to the
// load, CopyDone ends the stream, CopyFail cancels it.
func copyIn(ctx context.Context, t *transport, res *stmt.Result) error {
	t.send(&pgproto3.CopyInResponse{OverallFormat: 0, ColumnFormatCodes: make([]uint16, res.CopyIn.Columns)})
	if err := t.flush(); err != nil {
		return err
	}
	load := res.CopyIn.Start(ctx)
	abort := func(err error) error {
		load.Abort(err)
		return err
	}
	// Text and CSV data is text in the client encoding: a piece that is not
	// UTF-8 never reaches the loader, which fails on the broken pipe.
	var text *utf8Stream
	if !res.CopyIn.Binary {
		text = &utf8Stream{}
	}
	for {
		msg, err := t.be.Receive()
		if err != nil {
			return abort(fmt.Errorf("read COPY data: %w", err))
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if text != nil {
				if err := text.check(m.Data); err != nil {
					return abort(err)
				}
			}
			if _, err := load.Write(m.Data); err != nil {
				// The loader stopped early: its error is the statement's.
				_, err := load.Finish()
				return err
			}
		case *pgproto3.CopyDone:
			if text != nil {
				if err := text.end(); err != nil {
					return abort(err)
				}
			}
			n, err := load.Finish()
			if err != nil {
				return err
			}
			t.send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "COPY %d", n)})
			return nil
		case *pgproto3.CopyFail:
			abort(errCopyFailed)
			return pgerr.Errorf(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
			// Ignored during COPY IN, as in PostgreSQL.
		default:
			abort(errCopyFailed)
			return pgerr.Errorf(pgerr.ProtocolViolation, "unexpected message type %T during COPY from stdin", msg)
		}
	}
}

// copyOut runs COPY ... TO STDOUT: one CopyData per row (after a header
// line when asked for) in the statement's text or CSV layout.
func copyOut(ctx context.Context, t *transport, res *stmt.Result) error {
	if res.Rows == nil {
		return pgerr.Errorf(pgerr.InternalError, "COPY TO STDOUT without rows")
	}
	defer res.Rows.Close()
	enc := stmt.NewCopyEncoder(res)
	t.send(&pgproto3.CopyOutResponse{OverallFormat: 0, ColumnFormatCodes: make([]uint16, len(res.Columns))})
	if enc.Header() {
		buf, start := beginCopyData(t.out)
		t.out = endCopyData(enc.AppendHeader(buf), start)
	}
	var n int64
	for {
		var b arrow.RecordBatch
		err := guard(func() (err error) {
			b, err = res.Rows.Next(ctx)
			return err
		})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for row := 0; row < int(b.NumRows()); row++ {
			buf, start := beginCopyData(t.out)
			t.out = endCopyData(enc.AppendRow(buf, b, row), start)
			n++
			if err := t.flushIfLarge(); err != nil {
				return err
			}
		}
	}
	t.send(&pgproto3.CopyDone{})
	t.send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "COPY %d", n)})
	return nil
}

func beginCopyData(buf []byte) ([]byte, int) {
	buf = append(buf, 'd', 0, 0, 0, 0)
	return buf, len(buf) - 4
}

// endCopyData fills in the length of the CopyData message buf ends with
// (its line, '\n' included).
func endCopyData(buf []byte, start int) []byte {
	binary.BigEndian.PutUint32(buf[start:], uint32(len(buf)-start))
	return buf
}
