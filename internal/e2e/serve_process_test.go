package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
)

// The real `magmalake serve` process under a 64-file limit (issue 19): 150
// sockets that never log in exhaust its descriptors, yet the process lives
// on, closes them at authentication_timeout, and serves a login afterwards;
// hostile queries answer their SQLSTATE (a message past 64 MiB ends its
// connection) with the process's RSS (read from /proc) bounded.
func TestServeProcessUnderFDLimitAndHostileQueries(t *testing.T) {
	bin := buildMagmalake(t)
	addr := testenv.FreeAddr(t)
	cmd := exec.Command("bash", "-c", `ulimit -n 64 && exec "$0" "$@"`, bin, "serve",
		"--data", t.TempDir(), "--listen", addr, "--max-connections", "20", "--authentication-timeout", "2s")
	var logs testenv.LogBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	dsn := "postgres://tester@" + addr + "/db?sslmode=disable"
	conn := connectRetry(t, dsn, 10*time.Second)
	baseRSS := rssKB(t, cmd.Process.Pid)

	// 150 silent sockets: past 64 descriptors, accept fails with EMFILE.
	var silent []net.Conn
	for range 150 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the listen backlog is full: enough pressure
		}
		silent = append(silent, c)
	}
	t.Logf("%d silent sockets open", len(silent))
	testenv.WaitFor(t, 5*time.Second, "fd exhaustion logged", func() bool { return strings.Contains(logs.String(), "too many open files") })
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the logged-in session during fd exhaustion: %v", err)
	}
	// authentication_timeout closes them; a new login then succeeds.
	late := connectRetry(t, dsn, 15*time.Second)
	for _, c := range silent {
		c.Close()
	}
	select {
	case err := <-exited:
		t.Fatalf("serve exited: %v", err)
	default:
	}

	for _, q := range []struct {
		sql  string
		code pgerr.Code // or "lost": the connection ends
	}{
		{"SELECT " + strings.Repeat("1+", 1000000) + "1", pgerr.StatementTooComplex},
		{"SELECT " + strings.Repeat("NOT ", 3000000) + "true", pgerr.StatementTooComplex},
		{"SELECT length('" + strings.Repeat("x", 48<<20) + "')", ""},
		// Past the 64 MiB message bound: FATAL 08P01 and the connection
		// ends (the client may only see the reset), the process goes on.
		{"SELECT length('" + strings.Repeat("x", 100<<20) + "')", "lost"},
	} {
		var peak atomic.Int64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				if kb := rssKBQuiet(cmd.Process.Pid); kb > peak.Load() {
					peak.Store(kb)
				}
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		_, err := late.Exec(context.Background(), q.sql)
		close(stop)
		<-done
		switch {
		case q.code == "lost":
			if err == nil {
				t.Fatalf("a 100 MB message was accepted")
			}
			late = connectRetry(t, dsn, 5*time.Second)
		case sqlState(err) != q.code || (q.code == "" && err != nil):
			t.Fatalf("%.40s...: %v, want SQLSTATE %q", q.sql, err, q.code)
		}
		grow := peak.Load() - baseRSS
		t.Logf("%.30s... (%d MB): RSS %d MB at start, peak +%d MB", q.sql, len(q.sql)>>20, baseRSS>>10, grow>>10)
		if grow > 1<<20 { // KB: 1 GB
			t.Fatalf("RSS grew by %d MB", grow>>10)
		}
	}
	if err := late.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	t.Logf("RSS after: %d MB", rssKB(t, cmd.Process.Pid)>>10)
}

// buildMagmalake builds the command into the test's temporary directory.
func buildMagmalake(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(t.TempDir(), "magmalake")
	build := exec.Command("go", "build", "-o", bin, "./cmd/magmalake")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// connectRetry logs in, retrying until within.
func connectRetry(t *testing.T, dsn string, within time.Duration) *pgx.Conn {
	t.Helper()
	var c *pgx.Conn
	testenv.Retry(t, within, "a login", func() (err error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		c, err = pgx.Connect(ctx, dsn)
		return err
	})
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func rssKB(t *testing.T, pid int) int64 {
	t.Helper()
	kb := rssKBQuiet(pid)
	if kb == 0 {
		t.Fatalf("no VmRSS for process %d", pid)
	}
	return kb
}

// rssKBQuiet reads VmRSS from /proc/PID/status (0 when it cannot).
func rssKBQuiet(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
