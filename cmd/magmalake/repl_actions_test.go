package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// TestReplActionsMatchPsql: several -c and -f, mixed, run in order as psql
// 15 runs them, against the same PostgreSQL: the same stdout, the same
// errors and the same exit status, with ON_ERROR_STOP on and off.
func TestReplActionsMatchPsql(t *testing.T) {
	psql := pgtest.Psql(t)
	pg := pgtest.StartWith(t, pgtest.Options{Locale: "C.UTF-8"})
	conn := []string{"-h", pg.Dir, "-p", strconv.Itoa(pg.Port), "-U", "postgres", "-d", "postgres"}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	failing := script("failing.sql", "select sum(a) as total from td;\nselect 1/0;\nselect 'after' as x;\n")
	quits := script("quits.sql", "select 7 as h;\n\\q\nselect 8 as i;\n")
	lastFails := script("last_fails.sql", "select 5 as e;\nselect 1/0")
	missing := filepath.Join(dir, "missing.sql")
	cases := []struct {
		name  string
		stdin string
		args  []string
	}{
		{name: "commands and scripts in order", args: []string{"-c", "create temp table td (a int)", "-c", "insert into td values (1), (2)",
			"-f", quits, "-c", "select count(*) from td; select max(a) from td", "-f", failing, "-c", "select 1/0", "-c", "select 3 as last"}},
		{name: "the last command fails", args: []string{"-c", "select 1 as a", "-c", "select 1/0"}},
		{name: "a script fails last", args: []string{"-c", "select 1 as a", "-f", lastFails}},
		{name: "standard input between commands", stdin: "select 5 as e;\n\\q\nselect 6;\n", args: []string{"-c", "select 4 as d", "-f", "-", "-c", "select 7 as g"}},
		{name: "a missing script", args: []string{"-f", missing, "-c", "select 2 as b"}},
		{name: "a backslash command among them", args: []string{"-c", `\set v 42`, "-c", `\echo :v`, "-c", `\nosuch`, "-c", "select 9 as n"}},
	}
	for _, tc := range cases {
		for _, stop := range []string{"0", "1"} {
			t.Run(tc.name+"/ON_ERROR_STOP="+stop, func(t *testing.T) {
				args := append([]string{"-v", "ON_ERROR_STOP=" + stop}, tc.args...)
				cmd := exec.Command(psql, append(append([]string{"-X"}, args...), conn...)...)
				cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGTZ=UTC", "PSQLRC=/dev/null")
				cmd.Stdin = strings.NewReader(tc.stdin)
				var wantOut, wantErr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
				_ = cmd.Run() // failures are part of the comparison
				wantCode := cmd.ProcessState.ExitCode()
				code, out, errOut := runReplCommand(t, nil, tc.stdin, append(args, conn...)...)
				if out != wantOut.String() {
					t.Errorf("stdout differs from psql's\n got:\n%s\nwant:\n%s", out, wantOut.String())
				}
				if w := psqlErrors(wantErr.String()); errOut != w {
					t.Errorf("stderr differs from psql's\n got:\n%s\nwant:\n%s", errOut, w)
				}
				if code != wantCode {
					t.Errorf("exit %d, psql's %d", code, wantCode)
				}
			})
		}
	}
}

// psqlErrors is psql's stderr as magmalake words it: without psql's
// "psql:FILE:N: " and with "magmalake: " for "psql: error: ".
func psqlErrors(s string) string {
	s = psqlFilePrefix.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "psql: error: ", "magmalake: ")
}
