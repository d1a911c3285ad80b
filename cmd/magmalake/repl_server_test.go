package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testserver"
	"github.com/magmalake/magmalake/wire"
)

// serveForRepl runs a magmalake server (wire over the session, as serve does) on
// 127.0.0.1:0 and returns its port; with scram, user tester's password is
// s3cret.
func serveForRepl(t *testing.T, scram bool) string {
	t.Helper()
	cfg := wire.Config{NewSession: wire.Sessions(testserver.Engine(t, t.TempDir()).StartSession)}
	if scram {
		cfg.Auth, cfg.Users = wire.AuthSCRAM, map[string]string{"tester": wire.ScramVerifier("s3cret")}
	}
	_, port, _ := net.SplitHostPort(testserver.Serve(t, cfg))
	return port
}

// runReplCommand runs `magmalake repl args` with stdin from a file holding
// input, and returns the exit status, stdout and stderr.
func runReplCommand(t *testing.T, env map[string]string, input string, args ...string) (int, string, string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(name, []byte(input), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errOut strings.Builder
	code := run(context.Background(), append([]string{"repl"}, args...), envMap(env), cli.Stdio{In: in, Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// TestReplConnectsToServe: repl -h/-p/-U/-d runs the shell on a magmalake
// server: -c, \conninfo, a script on stdin with its failure, and URL form.
func TestReplConnectsToServe(t *testing.T) {
	port := serveForRepl(t, false)
	conn := []string{"-h", "127.0.0.1", "-p", port, "-U", "tester", "-d", "magmalake"}
	code, out, errOut := runReplCommand(t, nil, "", append(conn, "-c", "select 1 as one")...)
	if code != 0 || out != " one \n-----\n   1\n(1 row)\n\n" || errOut != "" {
		t.Errorf("-c: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runReplCommand(t, nil, "", append(conn, "-c", `\conninfo`)...)
	if want := `You are connected to database "magmalake" as user "tester" on host "127.0.0.1" at port "` + port + "\".\n"; code != 0 || out != want {
		t.Errorf("\\conninfo: exit %d, %q, want %q", code, out, want)
	}
	code, out, errOut = runReplCommand(t, nil, "create table t (a int);\ninsert into t values (1), (2);\nselect nosuch from t;\nselect 2;\n", conn...)
	if code != 3 || out != "CREATE TABLE\nINSERT 0 2\n" || !strings.HasPrefix(errOut, "ERROR:  column \"nosuch\" does not exist\nLINE 1: select nosuch from t;\n") {
		t.Errorf("script: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runReplCommand(t, nil, "", "postgres://tester@127.0.0.1:"+port+"/magmalake", "-A", "-t", "-c", "select count(*) from t")
	if code != 0 || out != "2\n" {
		t.Errorf("URL: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runReplCommand(t, nil, "", "-h", "127.0.0.1", "-p", "1", "-c", "select 1")
	if code != 1 || !strings.HasPrefix(errOut, `magmalake: connection to server at "127.0.0.1", port 1 failed: `) {
		t.Errorf("refused: exit %d, stderr %q", code, errOut)
	}
}

// A server that wants a password: none given is a clear failure off a
// terminal; PGPASSWORD and -W (reading standard input's first line) log in.
func TestReplServerPassword(t *testing.T) {
	port := serveForRepl(t, true)
	conn := []string{"-h", "127.0.0.1", "-p", port, "-U", "tester", "-c", "select 'in' as s"}
	want := `magmalake: connection to server at "127.0.0.1", port ` + port + ` failed: the server asks for a password and none was given (-W asks for it; or set PGPASSWORD, or a ~/.pgpass line)` + "\n"
	for _, extra := range [][]string{nil, {"-w"}} {
		code, _, errOut := runReplCommand(t, map[string]string{"HOME": t.TempDir()}, "", append(conn, extra...)...)
		if code != 1 || errOut != want {
			t.Errorf("%q without a password: exit %d, stderr %q, want %q", extra, code, errOut, want)
		}
	}
	if code, out, errOut := runReplCommand(t, map[string]string{"PGPASSWORD": "s3cret"}, "", conn...); code != 0 || !strings.Contains(out, " in\n") {
		t.Errorf("PGPASSWORD: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := runReplCommand(t, nil, "s3cret\n", append(conn, "-W")...); code != 0 || !strings.Contains(out, " in\n") {
		t.Errorf("-W: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut := runReplCommand(t, nil, "wrong\n", append(conn, "-W")...)
	if code != 1 || !strings.Contains(errOut, `failed: FATAL:  password authentication failed for user "tester"`) {
		t.Errorf("wrong -W: exit %d, stderr %q", code, errOut)
	}
}

var psqlFilePrefix = regexp.MustCompile(`(?m)^psql:[^\n]*?:\d+: `)

// TestReplFileMatchesPsql: `magmalake repl -h DIR -p PORT -U postgres -d
// postgres -f script` prints what `psql -X -f script` prints against the
// same PostgreSQL 15, stdout and stderr (psql's "psql:FILE:N: " aside).
func TestReplFileMatchesPsql(t *testing.T) {
	psql := pgtest.Psql(t)
	pg := pgtest.StartWith(t, pgtest.Options{Locale: "C.UTF-8"})
	conn := []string{"-h", pg.Dir, "-p", strconv.Itoa(pg.Port), "-U", "postgres", "-d", "postgres"}
	script := filepath.Join(t.TempDir(), "script.sql")
	data := filepath.Join(t.TempDir(), "t.txt")
	body := "create temp table t (id int, name text, at timestamptz, n numeric);\n" +
		"insert into t values (1, 'one', '2024-01-01 10:00:00+00', 1.50), (2, null, null, 'NaN');\n" +
		"select * from t order by id;\n" +
		"\\copy t to '" + data + "'\n" +
		"\\copy t from '" + data + "'\n" +
		"select count(*) from t;\n" +
		"do $$ begin raise notice 'note %', 1; end $$;\n" +
		"\\x\nselect * from t order by id limit 1;\n\\conninfo\n" +
		"select id,\n  nosuch from t;\n" +
		"select 'not reached';\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// The shell stops at the first error, as psql with ON_ERROR_STOP.
	cmd := exec.Command(psql, append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-f", script}, conn...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGTZ=UTC", "PSQLRC=/dev/null")
	var wantOut, wantErr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
	_ = cmd.Run() // the script's failure is part of the comparison
	wantCode := cmd.ProcessState.ExitCode()
	code, out, errOut := runReplCommand(t, nil, "", append(conn, "-f", script)...)
	if out != wantOut.String() {
		t.Errorf("stdout differs from psql's\n got:\n%s\nwant:\n%s", out, wantOut.String())
	}
	if w := psqlFilePrefix.ReplaceAllString(wantErr.String(), ""); errOut != w {
		t.Errorf("stderr differs from psql's\n got:\n%s\nwant:\n%s", errOut, w)
	}
	if code != wantCode || !strings.Contains(out, "via socket in") {
		t.Errorf("exit %d, psql's %d (the script stops at its failure), stdout %q", code, wantCode, out)
	}
}
