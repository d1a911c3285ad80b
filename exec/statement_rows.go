package exec

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/sql"
)

// statementRows are a statement's rows streamed after Execute returned:
// they keep its deadline, and give their errors SQLSTATEs as Execute does.
type statementRows struct {
	Rows
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
	return nil, r.mapError(ctx, err)
}

// mapError is err as the client sees it. Once the statement is cancelled
// or past its deadline, that is the error, whatever a layer made of it: a
// scan started by Execute runs under Execute's own deadline timer, which
// may fire before this call's, and a library may report the end of its
// context as text.
func (r *statementRows) mapError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return sql.Canceled(cerr)
	}
	if !r.deadline.IsZero() && !time.Now().Before(r.deadline) {
		return sql.Canceled(context.DeadlineExceeded)
	}
	return toSQLError(err)
}
