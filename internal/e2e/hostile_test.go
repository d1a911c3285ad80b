package e2e

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// A hostile client against the real server (issue 19): each query below
// used to kill the process (goroutine stack overflow), run for minutes or
// grow the heap by gigabytes. Now each answers its SQLSTATE quickly, another
// connection's SELECT 1 answers within 2 s meanwhile, the hostile
// connection stays usable, and the heap stays bounded.
func TestHostileQueries(t *testing.T) {
	srv := startServer(t, wire.AuthTrust)
	ctx := context.Background()
	setup := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	loadBig(t, setup, 200000)
	cases := []struct {
		name, query string
		code        pgerr.Code
	}{
		{"sum of 1,000,000 terms", "SELECT " + strings.Repeat("1+", 1000000) + "1", pgerr.StatementTooComplex},
		{"3,000,000 NOTs", "SELECT " + strings.Repeat("NOT ", 3000000) + "true", pgerr.StatementTooComplex},
		{"DELETE with a 1,000,000-term sum", "DELETE FROM big WHERE id = " + strings.Repeat("0+", 1000000) + "0", pgerr.StatementTooComplex},
		{"100,000 nested parentheses", "SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000), pgerr.StatementTooComplex},
		// Allowed, and cheap once constants fold: 2 KB of SQL that used to
		// take the server past 4 GB on a 2M-row table.
		{"DELETE with a 1,000-term constant sum", "DELETE FROM big WHERE id = " + strings.Repeat("0+", 1000) + "5", ""},
		{"40,000-term OR chain", "SELECT count(*) FROM big WHERE " + orTerms(40000), ""},
		{"IN list of 200,000 literals", "SELECT count(*) FROM big WHERE id IN (" + inItems(200000) + ")", ""},
		{"an 82-digit literal", "SELECT 1234567890123456789012345678901234567890123456789012345678901234567890123456789012 + 1", ""},
		{"a 16 MB string literal", "SELECT length('" + strings.Repeat("x", 16<<20) + "')", ""},
	}
	hostile := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	other := pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := heapInUse()
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go sampleHeap(stop, sampled, &peak)
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := hostile.Exec(ctx, c.query)
				done <- err
			}()
			// Another session is served meanwhile.
			pingCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
			var one int
			if err := other.QueryRow(pingCtx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("SELECT 1 on another connection during the query: %v", err)
			}
			cancel()
			err := <-done
			close(stop)
			<-sampled
			elapsed := time.Since(start)
			if got := sqlState(err); got != c.code || (c.code == "" && err != nil) {
				t.Fatalf("got %v (SQLSTATE %q), want SQLSTATE %q", err, got, c.code)
			}
			if err := hostile.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
				t.Fatalf("the connection is not usable after: %v", err)
			}
			grow := int64(peak.Load()) - int64(base)
			t.Logf("%s in %v, heap %d MB before, peak +%d MB", c.name, elapsed.Round(time.Millisecond), base>>20, grow>>20)
			if grow > 512<<20 {
				t.Fatalf("heap grew by %d MB", grow>>20)
			}
		})
	}
	var n int64
	if err := setup.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil || n != 199999 {
		t.Fatalf("after: %d rows (%v), want 199999 (the 1,000-term DELETE removes id 5 only)", n, err)
	}
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func sampleHeap(stop <-chan struct{}, done chan<- struct{}, peak *atomic.Uint64) {
	defer close(done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if h := heapInUse(); h > peak.Load() {
			peak.Store(h)
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

func orTerms(n int) string {
	terms := make([]string, n)
	for k := range terms {
		terms[k] = "id = " + strconv.Itoa(k*5)
	}
	return strings.Join(terms, " OR ")
}

func inItems(n int) string {
	items := make([]string, n)
	for k := range items {
		items[k] = strconv.Itoa(k * 3)
	}
	return strings.Join(items, ", ")
}

// loadBig creates big (id bigint, v text) holding ids 1..rows and 'v<id>',
// loaded over COPY (INSERT ... SELECT FROM generate_series is not supported yet).
func loadBig(t *testing.T, conn *pgx.Conn, rows int) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE big (id bigint, v text)"); err != nil {
		t.Fatal(err)
	}
	var data strings.Builder
	for i := 1; i <= rows; i++ {
		data.WriteString(strconv.Itoa(i) + "\tv" + strconv.Itoa(i) + "\n")
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data.String()), "COPY big FROM STDIN"); err != nil {
		t.Fatal(err)
	}
}
