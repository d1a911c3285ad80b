// Package testserver runs the real engine, and the wire server over it the
// way `magmalake serve` does, for the tests of the packages above both (the
// command, the shell, its remote session, the catalog's client tests, the
// end-to-end tests, the benchmarks). Tests inside session, lake or wire
// cannot import it: it imports them.
package testserver

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/wire"
)

// shutdownWait bounds the drain of a test's server when the test ends.
const shutdownWait = 10 * time.Second

// Engine opens a fresh warehouse in dir (its catalog.db and warehouse/)
// and an engine with default options on it; the warehouse is closed when
// the test ends, after any server Serve started later has shut down.
func Engine(t testing.TB, dir string) *session.Engine {
	t.Helper()
	return EngineWith(t, dir, session.EngineOptions{})
}

// EngineWith is Engine with opts.
func EngineWith(t testing.TB, dir string, opts session.EngineOptions) *session.Engine {
	t.Helper()
	ctx := context.Background()
	wh, err := lake.Open(ctx, lake.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	eng, err := session.NewEngine(ctx, wh, opts)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// Serve runs a wire server with cfg on 127.0.0.1:0 and returns its
// host:port; when the test ends the server shuts down, and a shutdown that
// does not drain in time fails the test.
func Serve(t testing.TB, cfg wire.Config) string {
	t.Helper()
	srv, err := wire.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(context.Background(), l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return l.Addr().String()
}

// ServeEngine serves eng with trust authentication (as Serve) and returns
// the server's host:port.
func ServeEngine(t testing.TB, eng *session.Engine) string {
	t.Helper()
	return Serve(t, wire.Config{NewSession: wire.Sessions(eng.StartSession)})
}
