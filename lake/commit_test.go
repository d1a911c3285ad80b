package lake

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

func TestIsConflict(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{table.ErrCommitFailed, true},
		{fmt.Errorf("commit: %w", table.ErrCommitFailed), true},
		{table.ErrCommitDiverged, true},
		{errors.New(`requirement failed: branch "main" has changed: expected id 1, found 2`), true},
		{fmt.Errorf("commit table: %w", errors.New("requirement failed: x")), true},
		{errors.New("disk full"), false},
		{context.Canceled, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := IsConflict(c.err); got != c.want {
			t.Errorf("IsConflict(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestRetryBackoffBounded(t *testing.T) {
	p := RetryPolicy{MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond}.withDefaults()
	for n := 0; n < 30; n++ {
		d := p.backoff(n)
		if d < 5*time.Millisecond || d > 45*time.Millisecond {
			t.Fatalf("backoff(%d) = %v outside [min/2, max+min/2]", n, d)
		}
	}
}
