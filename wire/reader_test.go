package wire

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
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

// The watch timer is not re-armed per statement: a long statement that
// starts while the timer a short one armed is still pending is watched from
// its own start on, and what the client pipelines meanwhile is read ahead.
func TestReaderWatchesStatementAfterShortOnes(t *testing.T) {
	srv, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	key := backendKey(t, c.startup(nil))
	rd := readerOf(t, srv, key.ProcessID)
	for range 20 { // short statements, each well inside watchDelay
		c.send(&pgproto3.Query{String: "SHOW TimeZone"})
		c.untilReady()
	}
	if p := rd.peak.Load(); p != 0 {
		t.Fatalf("short statements were read ahead: %d bytes", p)
	}
	c.send(&pgproto3.Query{String: "SELECT pg_sleep(0.1)"})
	for deadline := time.Now().Add(5 * time.Second); !watching(rd); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("the long statement was not watched")
		}
	}
	c.send(&pgproto3.Query{String: "SHOW TimeZone"})
	first, second := c.untilReady(), c.untilReady()
	if rd, ok := first[0].(*pgproto3.RowDescription); !ok || string(rd.Fields[0].Name) != "pg_sleep" {
		t.Fatalf("first answer: %#v", first)
	}
	if rd, ok := second[0].(*pgproto3.RowDescription); !ok || string(rd.Fields[0].Name) != "timezone" {
		t.Fatalf("second answer: %#v", second)
	}
	if rd.peak.Load() == 0 {
		t.Fatal("nothing was read ahead while the long statement ran")
	}
}

// watching reports whether rd's watcher goroutine runs.
func watching(rd *readAhead) bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.watchDone != nil
}

func TestReaderIdleTimeout(t *testing.T) {
	_, addr := testServer(t, func(c *Config) { c.IdleTimeout = 30 * time.Millisecond })
	c := dialRaw(t, addr)
	c.startup(nil)
	e, ok := c.receive().(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" || pgerr.Code(e.Code) != pgerr.IdleSessionTimeout {
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
	if !ok || e.Severity != "FATAL" || pgerr.Code(e.Code) != pgerr.AdminShutdown {
		t.Fatalf("idle connection got %#v, want FATAL 57P01", e)
	}
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// A client that keeps sending while its statement runs is read ahead only up
// to maxReadAhead: the rest waits in the socket (the client's writes block),
// the server's heap stays flat, and once the statement ends everything is
// served in order.
func TestReaderReadAheadIsBounded(t *testing.T) {
	const pipelined = 64 << 20
	srv, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	key := backendKey(t, c.startup(nil))
	c.send(&pgproto3.Query{String: "SELECT pg_sleep(30)"})
	t.Cleanup(func() { cancelStatement(t, addr, key) }) // also when the test fails
	// 1 MiB CopyData messages (ignored outside COPY), then a query.
	chunk, _ := (&pgproto3.CopyData{Data: make([]byte, 1<<20)}).Encode(nil)
	last, _ := (&pgproto3.Query{String: "SELECT 1"}).Encode(nil)
	before := heapInUse()
	wrote := make(chan error, 1)
	go func() {
		for range pipelined / len(chunk) {
			if _, err := c.nc.Write(chunk); err != nil {
				wrote <- err
				return
			}
		}
		_, err := c.nc.Write(last)
		wrote <- err
	}()
	rd := readerOf(t, srv, key.ProcessID)
	// The watcher reads until it is full; a server without the bound takes
	// everything, which lets the writer finish.
	finished := false
	for deadline := time.Now().Add(10 * time.Second); rd.peak.Load() < maxReadAhead && !finished; {
		select {
		case err := <-wrote:
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			finished = true
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("read-ahead stuck at %d bytes", rd.peak.Load())
		}
	}
	grown := heapInUse() - before
	t.Logf("pipelined %d MiB: read ahead %d bytes, heap grew %d KiB", pipelined>>20, rd.peak.Load(), grown>>10)
	if finished {
		t.Fatalf("the server read all %d MiB while the statement ran", pipelined>>20)
	}
	if p := rd.peak.Load(); p > maxReadAhead {
		t.Fatalf("read ahead %d bytes, bound %d", p, maxReadAhead)
	}
	if grown > 4*maxReadAhead {
		t.Fatalf("heap grew by %d MiB while the client pipelined", grown>>20)
	}
	cancelStatement(t, addr, key)
	expectShape(t, "cancelled", c.untilReady(), "E "+string(pgerr.QueryCanceled), "Z I")
	expectShape(t, "after the pipeline", c.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
	if err := <-wrote; err != nil {
		t.Fatalf("write: %v", err)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

func backendKey(t *testing.T, startup []pgproto3.BackendMessage) *pgproto3.BackendKeyData {
	t.Helper()
	for _, m := range startup {
		if k, ok := m.(*pgproto3.BackendKeyData); ok {
			return k
		}
	}
	t.Fatalf("no BackendKeyData in %q", shape(startup))
	return nil
}

// readerOf is the read-ahead of the server's connection pid.
func readerOf(t *testing.T, srv *Server, pid uint32) *readAhead {
	t.Helper()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	c := srv.conns[pid]
	if c == nil {
		t.Fatalf("no connection %d", pid)
	}
	return c.t.rd
}

// cancelStatement sends a CancelRequest for key on a new connection.
func cancelStatement(t *testing.T, addr string, key *pgproto3.BackendKeyData) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	msg, _ := (&pgproto3.CancelRequest{ProcessID: key.ProcessID, SecretKey: key.SecretKey}).Encode(nil)
	if _, err := nc.Write(msg); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	nc.Read(make([]byte, 1)) // the server closes the connection once it has handled the request
}
