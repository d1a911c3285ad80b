package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/testenv"
)

// TestServeLogFlags: `magmalake serve -c ... --log-format json` writes
// one JSON object per line: the connection's start, login and end with
// its pid, and the statements log_statement = mod selects with the
// snapshot the INSERT made; SHOW reports the server's values.
func TestServeLogFlags(t *testing.T) {
	bin := buildMagmalake(t)
	addr := testenv.FreeAddr(t)
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", addr, "--log-format", "json",
		"-c", "log_connections=on", "-c", "log_disconnections=on", "-c", "log_statement=mod")
	var logs testenv.LogBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ctx := context.Background()
	conn := connectRetry(t, "postgres://tester@"+addr+"/db?sslmode=disable&application_name=etl", 10*time.Second)
	pid := strconv.FormatUint(uint64(conn.PgConn().PID()), 10)
	for _, q := range []string{"CREATE TABLE t (a int)", "INSERT INTO t VALUES (1), (2)", "SELECT * FROM t"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var show string
	if err := conn.QueryRow(ctx, "SHOW log_statement").Scan(&show); err != nil || show != "mod" {
		t.Errorf("SHOW log_statement = %q, %v; want the server's mod", show, err)
	}
	var snap string
	if err := conn.QueryRow(ctx, `SELECT snapshot_id::text FROM "t$snapshots" ORDER BY committed_at DESC LIMIT 1`).Scan(&snap); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	testenv.WaitFor(t, 10*time.Second, "the disconnection logged", func() bool { return strings.Contains(logs.String(), `"msg":"disconnection"`) })

	var statements []string
	seen := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		msg, _ := e["msg"].(string)
		if msg == "statement" {
			statements = append(statements, e["statement"].(string))
			if strings.HasPrefix(e["statement"].(string), "INSERT") {
				seen["insert"] = e
			}
		}
		seen[msg] = e
	}
	if strings.Join(statements, "; ") != "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)" {
		t.Errorf("logged statements %q; want the CREATE TABLE and the INSERT", statements)
	}
	if ins := seen["insert"]; ins == nil || ins["snapshot_id"] != snap || ins["rows"] != float64(2) || ins["application_name"] != "etl" {
		t.Errorf("INSERT line %v; want snapshot_id %s, rows 2, application_name etl", ins, snap)
	}
	for _, msg := range []string{"connection authorized", "disconnection"} {
		if e := seen[msg]; e == nil || e["pid"] != mustFloat(pid) {
			t.Errorf("%s line %v; want pid %s", msg, e, pid)
		}
	}
	if seen["connection received"] == nil {
		t.Error("no connection received line")
	}
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
