package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/internal/testenv"
)

// lakeFlags are the --catalog-prop flags for props.
func lakeFlags(props map[string]string) []string {
	var out []string
	for k, v := range props {
		out = append(out, "--catalog-prop", k+"="+v)
	}
	return out
}

// runRepl runs `magmalake repl` with args and script on standard input,
// in the S3 test environment, and returns its output.
func runRepl(t *testing.T, bin string, args []string, script string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"repl"}, args...)...)
	cmd.Env = s3test.Env(os.Environ())
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("repl %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// startServe starts `magmalake serve` with args in the S3 test environment
// and returns a logged-in connection.
func startServe(t *testing.T, bin string, args []string) *pgx.Conn {
	t.Helper()
	conn, _ := startServeLogged(t, bin, args)
	return conn
}

// startServeLogged is startServe that also hands over the server's output
// (its log).
func startServeLogged(t *testing.T, bin string, args []string) (*pgx.Conn, *testenv.LogBuffer) {
	t.Helper()
	addr := testenv.FreeAddr(t)
	cmd := exec.Command(bin, append([]string{"serve", "--listen", addr}, args...)...)
	cmd.Env = s3test.Env(os.Environ())
	logs := &testenv.LogBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("serve %s log:\n%s", addr, logs.String())
		}
	})
	return connectRetry(t, "postgres://tester@"+addr+"/db?sslmode=disable", 20*time.Second), logs
}

// idText reads an (int, text) query as "id|s" lines.
func idText(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id int32
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d|%s\n", id, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return b.String()
}

func lakeExec(t *testing.T, conn *pgx.Conn, q string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), q, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// Two `magmalake serve` processes and a `repl` on SeaweedFS's REST catalog
// and S3 (weed mini): a table created by the repl, written by both servers
// (merge-on-read DELETE and UPDATE on v2 and v3), reads the same through
// each of them and through a second repl.
func TestLakeProcessesOnRESTCatalog(t *testing.T) {
	bin := buildMagmalake(t)
	srv := s3test.StartWeed(t, "warehouse")
	flags := append([]string{"--catalog", "lake"}, lakeFlags(srv.RESTProps("warehouse"))...)
	for _, v := range []string{"2", "3"} {
		name := "mor_v" + v
		runRepl(t, bin, flags, "CREATE TABLE "+name+" (id int, s text) WITH ('format-version' = '"+v+"', "+
			"'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read');\n"+
			"INSERT INTO "+name+" VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd');\n")
	}
	a := startServe(t, bin, flags)
	b := startServe(t, bin, flags)
	for _, v := range []string{"2", "3"} {
		name := "mor_v" + v
		lakeExec(t, a, "DELETE FROM "+name+" WHERE id = 2")
		lakeExec(t, b, "UPDATE "+name+" SET s = 'x' WHERE id = 3")
		lakeExec(t, a, "INSERT INTO "+name+" VALUES (5, 'e')")
		want := "1|a\n3|x\n4|d\n5|e\n"
		for i, c := range []*pgx.Conn{a, b} {
			if got := idText(t, c, "SELECT id, s FROM "+name+" ORDER BY id"); got != want {
				t.Fatalf("%s through server %d:\n%s\nwant\n%s", name, i, got, want)
			}
		}
		out := runRepl(t, bin, flags, "SELECT id, s FROM "+name+" ORDER BY id;\n")
		for _, line := range []string{"  1 | a", "  3 | x", "  4 | d", "  5 | e", "(4 rows)"} {
			if !strings.Contains(out, line) {
				t.Fatalf("%s through the repl lacks %q:\n%s", name, line, out)
			}
		}
	}
}

// The command of issue 18 that used to fail with "io scheme not
// registered": a repl on an s3:// warehouse with the embedded SQLite
// catalog, credentials and region from the usual AWS_ environment and only
// the endpoint as a catalog property; a serve on the same --data directory
// reads and writes the same table.
func TestLakeReplOnS3Warehouse(t *testing.T) {
	bin := buildMagmalake(t)
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "bucket")
	flags := []string{"--data", t.TempDir(), "--warehouse", "s3://bucket/wh",
		"--catalog-prop", "s3.endpoint=" + srv.Endpoint}
	runRepl(t, bin, flags, "CREATE TABLE t (a int);\nINSERT INTO t VALUES (1), (2);\n")
	if keys := srv.Keys(t, "bucket", "wh/"); len(keys) == 0 {
		t.Fatal("the table wrote nothing to the bucket")
	}
	conn := startServe(t, bin, flags)
	lakeExec(t, conn, "DELETE FROM t WHERE a = 1")
	lakeExec(t, conn, "INSERT INTO t VALUES (3)")
	out := runRepl(t, bin, flags, "SELECT a FROM t ORDER BY a;\n")
	if !strings.Contains(out, " 2\n 3\n(2 rows)") {
		t.Fatalf("the repl reads:\n%s", out)
	}
}
