package session

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// statementRows are a statement's rows streamed after Execute returned:
// they keep its deadline, and give their errors SQLSTATEs as Execute does.
type statementRows struct {
	stmt.Rows
	deadline time.Time          // zero: no statement_timeout
	cancel   context.CancelFunc // ends the statement's context
}

func (r *statementRows) Close() error {
	defer r.cancel()
	return r.Rows.Close()
}

func (r *statementRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !r.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, r.deadline)
		defer cancel()
	}
	b, err := r.Rows.Next(ctx)
	if err == nil || errors.Is(err, io.EOF) {
		return b, err
	}
	return nil, statementError(ctx, r.deadline, err)
}

// statementLoad keeps a statement's deadline over its COPY FROM STDIN load,
// which runs after Execute returned, and gives its errors their SQLSTATEs.
func statementLoad(load func(context.Context, io.Reader) (int64, error), deadline time.Time) func(context.Context, io.Reader) (int64, error) {
	return func(ctx context.Context, r io.Reader) (int64, error) {
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		n, err := load(ctx, r)
		if err != nil {
			return n, statementError(ctx, deadline, err)
		}
		return n, nil
	}
}

// statementError is err, from a statement with this deadline (zero: none)
// whose work went on under ctx, as the client sees it. Once the statement
// is cancelled or past its deadline, that is the error, whatever a layer
// made of it: a scan started by Execute runs under Execute's own deadline
// timer, which may fire before ctx's, and a library may report the end of
// its context as text, or as a bad input.
func statementError(ctx context.Context, deadline time.Time, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return pgerr.Canceled(cerr)
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return pgerr.Canceled(context.DeadlineExceeded)
	}
	return toSQLError(err)
}
