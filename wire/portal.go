package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// statement is a parsed (named or unnamed) statement.
type statement struct {
	prep  *stmt.Prepared
	empty bool // only whitespace/semicolons: EmptyQueryResponse
}

// portal is a bound statement and, once executed, its partly consumed result.
type portal struct {
	stmt        *statement
	params      []stmt.Param
	formatCodes []int16 // Bind's result format codes, expanded when the columns are known

	res       *stmt.Result
	cols      []stmt.Column
	formats   []int16
	batch     arrow.RecordBatch
	next      int
	suspended bool
	done      bool
	doneTag   string
}

func (p *portal) close() {
	if p.res != nil && p.res.Rows != nil && !p.done {
		p.res.Rows.Close()
	}
	p.batch = nil
	p.done = true
}

// finish completes a portal whose work is done: tag may be empty when a COPY
// helper already sent CommandComplete.
func (p *portal) finish(t *transport, tag string, err error) error {
	if err != nil {
		return err
	}
	if tag != "" {
		t.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	}
	// PostgreSQL reports changed settings after CommandComplete (pgjdbc-connect trace).
	for _, pc := range p.res.ParameterChanges {
		t.send(&pgproto3.ParameterStatus{Name: pc.Name, Value: pc.Value})
	}
	p.done, p.doneTag = true, zeroCount(tag)
	return nil
}

// stream sends up to maxRows rows (0: all), then PortalSuspended or, at the
// end of the rows, CommandComplete.
func (p *portal) stream(ctx context.Context, t *transport, maxRows int) error {
	sent := 0
	for {
		if maxRows > 0 && sent == maxRows {
			p.suspended = true
			t.send(&pgproto3.PortalSuspended{})
			return nil
		}
		if p.batch == nil || p.next >= int(p.batch.NumRows()) {
			var b arrow.RecordBatch
			err := guard(func() (err error) {
				b, err = p.res.Rows.Next(ctx)
				return err
			})
			if errors.Is(err, io.EOF) {
				return p.endRows(t, sent)
			}
			if err != nil {
				return err
			}
			if int(b.NumCols()) != len(p.cols) {
				return pgerr.Errorf(pgerr.InternalError, "result batch has %d columns, row description %d", b.NumCols(), len(p.cols))
			}
			p.batch, p.next = b, 0
			continue
		}
		t.appendDataRow(p.batch, p.next, p.cols, p.formats)
		p.next++
		sent++
		if err := t.flushIfLarge(); err != nil {
			return err
		}
	}
}

func (p *portal) endRows(t *transport, sent int) error {
	p.batch = nil
	var tag string
	err := guard(func() error {
		tag = p.res.Rows.Tag()
		return p.res.Rows.Close()
	})
	p.done = true // Rows are closed
	if err != nil {
		return fmt.Errorf("close result: %w", err)
	}
	if p.suspended {
		// After PortalSuspended PostgreSQL counts the rows of this Execute only.
		tag = withCount(tag, sent)
	}
	return p.finish(t, tag, nil)
}

// withCount replaces the row count at the end of a SELECT/FETCH tag.
func withCount(tag string, n int) string {
	i := strings.LastIndexByte(tag, ' ')
	if i < 0 || !(strings.HasPrefix(tag, "SELECT") || strings.HasPrefix(tag, "FETCH")) {
		return tag
	}
	return tag[:i+1] + strconv.Itoa(n)
}

// zeroCount is the tag a finished portal reports when executed again.
func zeroCount(tag string) string { return withCount(tag, 0) }
