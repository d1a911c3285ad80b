package session

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
)

// failingRows fail every Next with err, once the clock has passed after
// (zero: at once) whatever the context says: a scan whose own deadline
// timer fired before the one of the call's context.
type failingRows struct {
	err   error
	after time.Time
}

func (r failingRows) Next(context.Context) (arrow.RecordBatch, error) {
	for time.Now().Before(r.after) {
		runtime.Gosched()
	}
	return nil, r.err
}
func (r failingRows) Tag() string  { return "" }
func (r failingRows) Close() error { return nil }

// TestStatementRowsErrors: an error from streamed rows gets its SQLSTATE
// as Execute's errors do. Past the statement's deadline, or once it is
// cancelled, the error is 57014 whatever the layer below made of it (here
// a reader's text that lost the context error); otherwise it goes through
// toSQLError.
func TestStatementRowsErrors(t *testing.T) {
	text := errors.New("read part-0.parquet: context deadline exceeded")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	soon := time.Now().Add(20 * time.Millisecond)
	cases := []struct {
		name     string
		ctx      context.Context
		deadline time.Time
		rows     failingRows
		code     pgerr.Code
		message  string
	}{
		{"at the deadline", context.Background(), soon, failingRows{err: text, after: soon}, pgerr.QueryCanceled, "canceling statement due to statement timeout"},
		{"cancelled", cancelled, time.Time{}, failingRows{err: text}, pgerr.QueryCanceled, "canceling statement due to user request"},
		{"cancelled before the deadline", cancelled, time.Now().Add(time.Hour), failingRows{err: text}, pgerr.QueryCanceled, "canceling statement due to user request"},
		{"a context error, unwrapped", context.Background(), time.Time{}, failingRows{err: context.DeadlineExceeded}, pgerr.QueryCanceled, "canceling statement due to statement timeout"},
		{"another error", context.Background(), time.Time{}, failingRows{err: errors.New("disk on fire")}, pgerr.InternalError, "disk on fire"},
	}
	for _, c := range cases {
		r := &statementRows{Rows: c.rows, deadline: c.deadline, cancel: func() {}}
		_, err := r.Next(c.ctx)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != c.code || se.Message != c.message {
			t.Errorf("%s: %v, want %s %q", c.name, err, c.code, c.message)
		}
	}
	r := &statementRows{Rows: failingRows{err: io.EOF}, cancel: func() {}}
	if _, err := r.Next(context.Background()); err != io.EOF {
		t.Errorf("the end of the rows: %v", err)
	}
}
