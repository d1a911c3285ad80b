package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// TestDiffStartupOptionsClients sets parameters at connect the way each
// client does — psql's PGOPTIONS, psycopg2's options=, pgjdbc's options and
// currentSchema — on magmalake and on PostgreSQL 15 (issue 48: the options
// were dropped, so PGOPTIONS='-c statement_timeout=30s' showed 0).
func TestDiffStartupOptionsClients(t *testing.T) {
	t.Run("psql", func(t *testing.T) {
		psql := testenv.Program(t, "", "psql", "postgresql-client")
		differential(t, func(t *testing.T, d diffTarget) string { return psqlOptions(t, psql, d) })
	})
	t.Run("psycopg2", func(t *testing.T) {
		py := testenv.Python(t, "psycopg2", "python3-psycopg2")
		differential(t, func(t *testing.T, d diffTarget) string {
			return runProgram(t, d.env("unused"), py, testdata(t, "startup_psycopg2.py"))
		})
	})
	t.Run("pgjdbc", func(t *testing.T) {
		jar := testenv.JDBCJar(t)
		javac := testenv.Program(t, "", "javac", "default-jdk-headless")
		java := testenv.Program(t, "", "java", "default-jdk-headless")
		classes := t.TempDir()
		runProgram(t, nil, javac, "-cp", jar, "-d", classes, testdata(t, "StartupJdbc.java"))
		cp := jar + string(filepath.ListSeparator) + classes
		differential(t, func(t *testing.T, d diffTarget) string {
			env := append(d.env("unused"), "E2E_URL=jdbc:postgresql://"+d.Addr()+"/e2e?sslmode=disable")
			return runProgram(t, env, java, "-Duser.timezone=UTC", "-cp", cp, "StartupJdbc")
		})
	})
}

// libpqServer is how libpq names the server in a connection error.
var libpqServer = regexp.MustCompile(`connection to server at "[^"]*", port \d+ failed: `)

// psqlOptions runs psql with each PGOPTIONS and prints what it shows, or
// its error. README's example, -c magmalake.progress=on, is among them
// (PostgreSQL takes any dotted name). psql sends application_name itself,
// after the options, so that one stays psql on both.
func psqlOptions(t *testing.T, psql string, d diffTarget) string {
	var out strings.Builder
	for _, c := range []struct {
		opts string
		show []string
	}{
		{"-c statement_timeout=30s", []string{"statement_timeout"}},
		{"-c magmalake.progress=on", []string{"magmalake.progress"}},
		{`-c search_path=a,\ b -c application_name=x\ y`, []string{"search_path", "application_name"}},
		{"-e -c lock_timeout=1min", []string{"DateStyle", "lock_timeout"}},
		{"-c statement_timeout=abc", nil},
		{"-c no_such_parameter=1", nil},
		{"-c", nil},
	} {
		env := []string{"PGHOST=" + d.Host, "PGPORT=" + d.Port, "PGUSER=" + d.User, "PGDATABASE=e2e",
			"PGSSLMODE=disable", "PSQLRC=/dev/null", "PGOPTIONS=" + c.opts}
		args := []string{"-X", "-A", "-t", "-c", "SELECT 1"}
		for _, name := range c.show {
			args = append(args, "-c", "SHOW "+name)
		}
		got, err := runProgramErr(env, psql, args...)
		fmt.Fprintf(&out, "## PGOPTIONS=%q exit %v\n%s", c.opts, err, libpqServer.ReplaceAllString(got, ""))
	}
	return out.String()
}
