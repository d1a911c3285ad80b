package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/internal/testenv"
)

// TestKillDuringStatementOnS3 (issue 18): `kill -9` of a server while an
// UPDATE of every row writes to an s3:// warehouse leaves the table readable
// and either unchanged or fully updated, never half; what the dead statement
// wrote is found and removed by remove_orphan_files, which removes nothing
// the table references. The kill comes once the statement has written its
// first, second, third and fourth new object, and last after it answered.
// On versitygw with the embedded SQLite catalog, and on weed mini's REST
// catalog and S3.
func TestKillDuringStatementOnS3(t *testing.T) {
	bin := buildMagmalake(t)
	t.Run("sqlite", func(t *testing.T) {
		srv := s3test.StartVersity(t)
		srv.CreateBucket(t, "bucket")
		flags := []string{"--data", t.TempDir(), "--warehouse", "s3://bucket/wh",
			"--catalog-prop", "s3.endpoint=" + srv.Endpoint}
		killDuringUpdate(t, bin, flags, bucketObjects{srv, "bucket", "wh/"})
	})
	t.Run("rest", func(t *testing.T) {
		srv := s3test.StartWeed(t, "warehouse")
		flags := []string{"--data", t.TempDir()}
		for k, v := range srv.RESTProps("warehouse") {
			flags = append(flags, "--catalog-prop", k+"="+v)
		}
		killDuringUpdate(t, bin, flags, bucketObjects{srv, "warehouse", ""})
	})
}

// bucketObjects is where the tables' objects are.
type bucketObjects struct {
	srv            *s3test.Server
	bucket, prefix string
}

func (b bucketObjects) keys(t *testing.T) []string { return b.srv.Keys(t, b.bucket, b.prefix) }

func killDuringUpdate(t *testing.T, bin string, flags []string, objs bucketObjects) {
	const rows = 50_000
	runRepl(t, bin, flags, "CREATE TABLE t (id bigint, v bigint) WITH ('format-version' = '3', "+
		"'write.update.mode' = 'merge-on-read');\n"+
		"INSERT INTO t SELECT g, 0 FROM generate_series(1, "+strconv.Itoa(rows)+") g;\n")
	updates := 0 // UPDATEs the table shows
	for round := 1; round <= 5; round++ {
		before := objs.keys(t)
		p := startServeProcess(t, bin, flags)
		done := make(chan error, 1)
		go func() {
			_, err := p.conn.Exec(context.Background(), "UPDATE t SET v = v + 1", pgx.QueryExecModeSimpleProtocol)
			done <- err
		}()
		objects := round // round 5: no kill before the answer
		if round == 5 {
			objects = math.MaxInt
		}
		answered := waitForObjects(t, objs.keys, before, objects, done)
		p.kill(t)
		n, sum := countSum(t, bin, flags)
		switch {
		case n != rows:
			t.Fatalf("round %d: %d rows after the kill, want %d", round, n, rows)
		case sum == int64(rows)*int64(updates+1):
			updates++
		case sum != int64(rows)*int64(updates):
			t.Fatalf("round %d: sum(v) = %d: neither %d UPDATEs nor one more", round, sum, updates)
		case answered:
			t.Fatalf("round %d: the UPDATE answered but the table does not show it", round)
		}
	}
	if updates == 0 {
		t.Fatal("the UPDATE that answered before its server was killed did not land")
	}
	conn := startServeProcess(t, bin, flags).conn
	// No other process writes the table now: the crashed one is gone.
	if _, err := conn.Exec(context.Background(), "SET magmalake.remove_orphan_files_min_retention = '0s'"); err != nil {
		t.Fatal(err)
	}
	var removed, bytes int64
	if err := conn.QueryRow(context.Background(), "ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '0s')",
		pgx.QueryExecModeSimpleProtocol).Scan(&removed, &bytes); err != nil {
		t.Fatalf("remove_orphan_files: %v", err)
	}
	if n, sum := countSum(t, bin, flags); n != rows || sum != int64(rows)*int64(updates) {
		t.Fatalf("after remove_orphan_files: %d rows, sum %d; want %d and %d", n, sum, rows, rows*updates)
	}
	var again int64
	if err := conn.QueryRow(context.Background(), "ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '0s')",
		pgx.QueryExecModeSimpleProtocol).Scan(&again, &bytes); err != nil || again != 0 {
		t.Fatalf("a second remove_orphan_files removed %d files (%v), want 0", again, err)
	}
	t.Logf("%d of 5 killed UPDATEs had landed (the last answered first); remove_orphan_files removed %d files", updates, removed)
}

// serveProcess is one `magmalake serve` this test may kill.
type serveProcess struct {
	cmd    *exec.Cmd
	conn   *pgx.Conn
	exited chan error
	once   sync.Once
}

func startServeProcess(t *testing.T, bin string, args []string) *serveProcess {
	t.Helper()
	addr := testenv.FreeAddr(t)
	cmd := exec.Command(bin, append([]string{"serve", "--listen", addr}, args...)...)
	cmd.Env = s3test.Env(os.Environ())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { p.kill(t) })
	p.conn = connectRetry(t, "postgres://tester@"+addr+"/db?sslmode=disable", 20*time.Second)
	return p
}

// kill sends SIGKILL (once) and waits for the process to end.
func (p *serveProcess) kill(t *testing.T) {
	t.Helper()
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
}

// waitForObjects returns once the bucket holds n objects that before did
// not, or the statement answered (reported true; an error fails).
func waitForObjects(t *testing.T, list func(*testing.T) []string, before []string, n int, done chan error) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("statement: %v", err)
			}
			return true
		default:
		}
		keys := list(t)
		if len(slices.DeleteFunc(keys, func(k string) bool { return slices.Contains(before, k) })) >= n {
			return false
		}
	}
	t.Fatal("the statement wrote nothing for a minute")
	return false
}

// countSum reads count(*) and sum(v) of t through a fresh repl process.
func countSum(t *testing.T, bin string, flags []string) (int, int64) {
	t.Helper()
	out := runRepl(t, bin, append(slices.Clone(flags), "-c", "SELECT 'n=' || count(*) || ' sum=' || sum(v) FROM t"), "")
	var n int
	var sum int64
	for _, line := range strings.Split(out, "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "n=%d sum=%d", &n, &sum); err == nil {
			return n, sum
		}
	}
	t.Fatalf("count and sum not in the repl's output:\n%s", out)
	return 0, 0
}
