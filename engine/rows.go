package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
)

// BatchRows serves materialised batches; it owns and releases them.
type BatchRows struct {
	batches []arrow.RecordBatch
	next    int
	rows    int64
	verb    string // "SELECT", "DELETE", ...
	tag     string // fixed tag, overrides verb+count when set
	closeFn func()
}

// NewBatchRows serves batches under the tag "verb count".
func NewBatchRows(verb string, batches []arrow.RecordBatch) *BatchRows {
	return &BatchRows{batches: batches, verb: verb}
}

func (r *BatchRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, pgerr.Canceled(err)
	}
	for r.next < len(r.batches) {
		b := r.batches[r.next]
		r.next++
		if b.NumRows() == 0 {
			continue
		}
		r.rows += b.NumRows()
		return b, nil
	}
	return nil, io.EOF
}

func (r *BatchRows) Tag() string {
	if r.tag != "" {
		return r.tag
	}
	return fmt.Sprintf("%s %d", r.verb, r.rows)
}

func (r *BatchRows) Close() error {
	ReleaseAll(r.batches)
	r.batches = nil
	if r.closeFn != nil {
		r.closeFn()
		r.closeFn = nil
	}
	return nil
}

// streamRows pulls batches from a producer function, releasing each batch
// when the next one is requested.
type streamRows struct {
	next func(ctx context.Context) (arrow.RecordBatch, error)
	stop func()
	cur  arrow.RecordBatch
	rows int64
	verb string
	done bool
}

func (r *streamRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, pgerr.Canceled(err)
	}
	for {
		b, err := r.next(ctx)
		if err == io.EOF {
			r.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		r.cur = b
		r.rows += b.NumRows()
		return b, nil
	}
}

func (r *streamRows) Tag() string { return fmt.Sprintf("%s %d", r.verb, r.rows) }

func (r *streamRows) Close() error {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	return nil
}

// SetTag fixes the command tag, overriding verb and count.
func (r *BatchRows) SetTag(tag string) { r.tag = tag }

// Streaming marks rows that hold one batch at a time, pulled from the scan.
func (r *streamRows) Streaming() {}
