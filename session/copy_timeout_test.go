package session

import (
	"context"
	"sync"
	"testing"
	"time"
)

// endlessRows is a client's COPY data that never ends: "1\tx" lines. The
// first read closes loading: the COPY has started.
type endlessRows struct {
	loading chan struct{}
	once    sync.Once
}

func newEndlessRows() *endlessRows { return &endlessRows{loading: make(chan struct{})} }

func (r *endlessRows) Read(p []byte) (int, error) {
	r.once.Do(func() { close(r.loading) })
	for i := range p {
		p[i] = "1\tx\n"[i%4]
	}
	return len(p) - len(p)%4, nil
}

// TestCopyFromStopsWithTheStatement: COPY ... FROM STDIN runs after
// Execute returned, as the client sends its data; statement_timeout and a
// cancel end it all the same, with 57014 in PostgreSQL's words, and nothing
// of it is left. It ignored statement_timeout, and a cancel came out as
// whatever the reader made of it (issue 48).
func TestCopyFromStopsWithTheStatement(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE ct (id int, v text)")
	load := func(ctx context.Context, rows *endlessRows) error {
		t.Helper()
		p, err := s.Prepare(ctx, "COPY ct FROM STDIN", nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Execute(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := res.CopyIn.Load(ctx, rows)
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(2 * time.Minute):
			t.Fatal("an endless COPY still loading two minutes after its statement ended")
			return nil
		}
	}
	mustQuery(t, s, "SET statement_timeout = '100ms'")
	wantCanceled(t, "COPY under a timeout", load(context.Background(), newEndlessRows()), "canceling statement due to statement timeout")
	mustQuery(t, s, "RESET statement_timeout")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows := newEndlessRows()
	go func() {
		// Cancel a COPY that is loading, not one yet to start.
		select {
		case <-rows.loading:
		case <-ctx.Done():
		}
		cancel()
	}()
	wantCanceled(t, "COPY cancelled", load(ctx, rows), "canceling statement due to user request")
	if got := mustQuery(t, s, "SELECT count(*) FROM ct").text(); got != "0\n" {
		t.Fatalf("after the cancelled loads: %q rows", got)
	}
}
