package wire

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestErrorResponseContextErrors: a context error that reaches the wire
// without a SQLSTATE is 57014 in PostgreSQL's words for what ended the
// statement, never XX000 "context deadline exceeded".
func TestErrorResponseContextErrors(t *testing.T) {
	cases := []struct {
		err     error
		message string
	}{
		{fmt.Errorf("scan public.s: %w", context.DeadlineExceeded), "canceling statement due to statement timeout"},
		{fmt.Errorf("scan public.s: %w", context.Canceled), "canceling statement due to user request"},
		{errors.Join(errors.New("read"), context.DeadlineExceeded), "canceling statement due to statement timeout"},
	}
	for _, c := range cases {
		got := errorResponse(c.err)
		if pgerr.Code(got.Code) != pgerr.QueryCanceled || got.Message != c.message || got.Severity != "ERROR" {
			t.Errorf("%v: %s %q (%s), want 57014 %q", c.err, got.Code, got.Message, got.Severity, c.message)
		}
	}
}
