package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/sql"
)

var errCopyFailed = errors.New("COPY aborted by the client")

type loadResult struct {
	n   int64
	err error
}

// copyIn runs COPY ... FROM STDIN: CopyData bytes are streamed to Load
// through a pipe, CopyDone ends the stream, CopyFail cancels it.
func (c *conn) copyIn(ctx context.Context, res *exec.Result) error {
	c.send(&pgproto3.CopyInResponse{OverallFormat: 0, ColumnFormatCodes: make([]uint16, res.CopyIn.Columns)})
	if err := c.flush(); err != nil {
		return err
	}
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan loadResult, 1)
	go func() {
		var r loadResult
		r.err = guard(func() (err error) {
			r.n, err = res.CopyIn.Load(loadCtx, pr)
			return err
		})
		pr.CloseWithError(errors.New("COPY loader finished"))
		done <- r
	}()
	abort := func(err error) error {
		cancel()
		pw.CloseWithError(err)
		<-done
		return err
	}
	for {
		msg, err := c.be.Receive()
		if err != nil {
			return abort(fmt.Errorf("read COPY data: %w", err))
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if _, err := pw.Write(m.Data); err != nil {
				// The loader stopped early: its error is the statement's.
				r := <-done
				if r.err == nil {
					r.err = sql.Errorf(sql.CodeInternal, "COPY loader stopped reading")
				}
				return r.err
			}
		case *pgproto3.CopyDone:
			pw.Close()
			r := <-done
			if r.err != nil {
				return r.err
			}
			c.send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "COPY %d", r.n)})
			return nil
		case *pgproto3.CopyFail:
			abort(errCopyFailed)
			return sql.Errorf(sql.CodeQueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
			// Ignored during COPY IN, as in PostgreSQL.
		default:
			abort(errCopyFailed)
			return sql.Errorf(sql.CodeProtocolViolation, "unexpected message type %T during COPY from stdin", msg)
		}
	}
}

// copyOut runs COPY ... TO STDOUT: one CopyData per row in text or CSV format.
func (c *conn) copyOut(ctx context.Context, res *exec.Result) error {
	if res.Rows == nil {
		return sql.Errorf(sql.CodeInternal, "COPY TO STDOUT without rows")
	}
	defer res.Rows.Close()
	c.send(&pgproto3.CopyOutResponse{OverallFormat: 0, ColumnFormatCodes: make([]uint16, len(res.Columns))})
	var n int64
	var scratch []byte
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
			scratch = c.appendCopyRow(b, row, res.Columns, res.CopyCSV, scratch)
			n++
			if err := c.flushIfLarge(); err != nil {
				return err
			}
		}
	}
	c.send(&pgproto3.CopyDone{})
	c.send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "COPY %d", n)})
	return nil
}

// appendCopyRow appends one CopyData message holding one row.
func (c *conn) appendCopyRow(b arrow.RecordBatch, row int, cols []exec.Column, csv bool, scratch []byte) []byte {
	buf := append(c.out, 'd', 0, 0, 0, 0)
	start := len(buf) - 4
	for j, col := range cols {
		if j > 0 {
			if csv {
				buf = append(buf, ',')
			} else {
				buf = append(buf, '\t')
			}
		}
		arr := b.Column(j)
		if arr.IsNull(row) {
			if !csv {
				buf = append(buf, '\\', 'N')
			}
			continue
		}
		scratch = sql.AppendText(scratch[:0], col.Type, arr, row)
		if csv {
			buf = appendCSVField(buf, scratch)
		} else {
			buf = appendCopyText(buf, scratch)
		}
	}
	buf = append(buf, '\n')
	binary.BigEndian.PutUint32(buf[start:], uint32(len(buf)-start))
	c.out = buf
	return scratch
}

// appendCopyText escapes a value for COPY's text format.
func appendCopyText(buf, v []byte) []byte {
	for _, ch := range v {
		switch ch {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\v':
			buf = append(buf, '\\', 'v')
		default:
			buf = append(buf, ch)
		}
	}
	return buf
}

// appendCSVField quotes a value when CSV requires it; an empty string is
// quoted so that it differs from NULL.
func appendCSVField(buf, v []byte) []byte {
	quote := len(v) == 0 || string(v) == `\.`
	for _, ch := range v {
		if ch == ',' || ch == '"' || ch == '\n' || ch == '\r' {
			quote = true
			break
		}
	}
	if !quote {
		return append(buf, v...)
	}
	buf = append(buf, '"')
	for _, ch := range v {
		if ch == '"' {
			buf = append(buf, '"')
		}
		buf = append(buf, ch)
	}
	return append(buf, '"')
}
