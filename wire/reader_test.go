package wire

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// A client that pipelines its next query while a statement runs long enough
// for the watcher to read ahead gets both answers, in order.
func TestReaderServesWhatTheWatcherRead(t *testing.T) {
	_, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	c.startup(nil)
	c.send(&pgproto3.Query{String: "SELECT pg_sleep(0.05)"}, &pgproto3.Query{String: "SHOW TimeZone"})
	first, second := c.untilReady(), c.untilReady()
	if rd, ok := first[0].(*pgproto3.RowDescription); !ok || string(rd.Fields[0].Name) != "pg_sleep" {
		t.Fatalf("first answer: %#v", first)
	}
	if rd, ok := second[0].(*pgproto3.RowDescription); !ok || string(rd.Fields[0].Name) != "timezone" {
		t.Fatalf("second answer: %#v", second)
	}
}

func TestReaderIdleTimeout(t *testing.T) {
	_, addr := testServer(t, func(c *Config) { c.IdleTimeout = 30 * time.Millisecond })
	c := dialRaw(t, addr)
	c.startup(nil)
	e, ok := c.receive().(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" || e.Code != "57P05" {
		t.Fatalf("idle connection got %#v, want FATAL 57P05", e)
	}
}

// Shutdown ends a connection blocked in an idle read at once.
func TestReaderDrainWakesIdleRead(t *testing.T) {
	srv, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	c.startup(nil)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- srv.Shutdown(ctx)
	}()
	e, ok := c.receive().(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" || e.Code != "57P01" {
		t.Fatalf("idle connection got %#v, want FATAL 57P01", e)
	}
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}
