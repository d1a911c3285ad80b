package pgcatalog_test

import (
	"github.com/magmalake/magmalake/internal/testenv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testserver"
)

// fixture is created in both servers: every exposed type, NOT NULL,
// partitioned and not, two schemas. PostgreSQL gets plain tables.
var fixture = []struct{ ours, theirs string }{
	{"CREATE TABLE t (id bigint NOT NULL, name text, grp int)", ""},
	{`CREATE TABLE alltypes (b boolean, i integer NOT NULL, l bigint, r real, d double precision,
		n numeric(10,2), s text, by bytea, dt date, tm time, ts timestamp, tz timestamptz, u uuid)`, ""},
	{"CREATE SCHEMA s2", ""},
	{"CREATE TABLE s2.events (id bigint NOT NULL, ts timestamptz NOT NULL, kind text) PARTITIONED BY (day(ts))",
		"CREATE TABLE s2.events (id bigint NOT NULL, ts timestamptz NOT NULL, kind text)"},
	{"CREATE TABLE s2.seen (k text)", ""},
}

// servers starts PostgreSQL 15 and magmalake with the fixture and returns
// their host:port addresses.
func servers(t *testing.T) (pg, ours string) {
	t.Helper()
	pg = startPostgres(t)
	for _, f := range fixture {
		q := f.theirs
		if q == "" {
			q = f.ours
		}
		if out, err := psql(pg, q); err != nil {
			t.Fatalf("postgres fixture %q: %v %s", q, err, out)
		}
	}
	return pg, startMagmalake(t)
}

// startPostgres serves database cat over TCP, for JDBC, in the C.UTF-8
// locale a Debian server reports; public is owned by postgres.
func startPostgres(t *testing.T) string {
	c := pgtest.StartWith(t, pgtest.Options{Locale: "C.UTF-8", TCP: true})
	c.CreateDatabase(t, "cat")
	addr := c.Addr()
	if out, err := psql(addr, "DROP SCHEMA public; CREATE SCHEMA public"); err != nil {
		t.Fatalf("public schema: %v %s", err, out)
	}
	return addr
}

func startMagmalake(t *testing.T) string {
	addr := testserver.ServeEngine(t, testserver.Engine(t, t.TempDir()))
	for _, f := range fixture {
		if out, err := psql(addr, f.ours); err != nil {
			t.Fatalf("magmalake fixture %q: %v %s", f.ours, err, out)
		}
	}
	return addr
}

// psql runs one command on database cat at addr.
func psql(addr, cmd string) (string, error) {
	host, port, _ := net.SplitHostPort(addr)
	c := exec.Command("psql", "-X", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "postgres", "-d", "cat", "-c", cmd)
	c.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PGSSLMODE=disable", "PAGER=")
	out, err := c.CombinedOutput()
	return string(out), err
}

// TestClientsMatchPostgres browses the same tables in PostgreSQL 15 and
// magmalake with psql, pgjdbc and SQLAlchemy and compares the answers.
func TestClientsMatchPostgres(t *testing.T) {
	testenv.Program(t, "", "psql", "postgresql-client-15") // psql below runs it from PATH
	pg, ours := servers(t)
	t.Run("psql", func(t *testing.T) { checkPsql(t, pg, ours) })
	t.Run("psql-meta", func(t *testing.T) { checkPsqlMeta(t, pg, ours) })
	t.Run("pgjdbc", func(t *testing.T) { checkJDBC(t, pg, ours) })
	t.Run("sqlalchemy", func(t *testing.T) { checkSQLAlchemy(t, pg, ours) })
}

// checkPsql compares psql's \d commands.
func checkPsql(t *testing.T, pg, ours string) {
	for _, cmd := range []string{`\dt`, `\dt s2.*`, `\dt *.*e*`, `\d t`, `\d alltypes`, `\d s2.events`, `\dn`, `\l cat`} {
		want, err := psql(pg, cmd)
		if err != nil {
			t.Fatalf("postgres %s: %v %s", cmd, err, want)
		}
		got, err := psql(ours, cmd)
		if err != nil {
			t.Errorf("magmalake %s: %v %s", cmd, err, got)
			continue
		}
		want = strings.ReplaceAll(want, "pg_database_owner", "postgres")
		if cmd == `\dt *.*e*` {
			// PostgreSQL also lists its own tables; compare the rest, ignoring widths.
			want = squeeze(dropLines(want, regexp.MustCompile(`pg_catalog|information_schema|rows\)`)))
			got = squeeze(dropLines(got, regexp.MustCompile(`rows\)`)))
		}
		if got != want {
			t.Errorf("%s differs\n--- postgres\n%s\n--- magmalake\n%s", cmd, want, got)
		}
	}
}

func dropLines(s string, re *regexp.Regexp) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !re.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// checkJDBC compares pgjdbc's DatabaseMetaData.
func checkJDBC(t *testing.T, pg, ours string) {
	jar := testenv.JDBCJar(t)
	javac := testenv.Program(t, "", "javac", "default-jdk-headless")
	java := testenv.Program(t, "", "java", "default-jdk-headless")
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/JdbcBrowse.java")
	if out, err := exec.Command(javac, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v %s", err, out)
	}
	run := func(addr string) string {
		out, err := exec.Command(java, "-cp", jar+":"+dir, "JdbcBrowse", "jdbc:postgresql://"+addr+"/cat").CombinedOutput()
		if err != nil {
			t.Fatalf("java against %s: %v %s", addr, err, out)
		}
		return string(out)
	}
	want, got := jdbcSections(run(pg)), jdbcSections(run(ours))
	for name, w := range want {
		g := got[name]
		if name == "getTypeInfo" {
			w = commonTypes(w, g)
		}
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s differs\n--- postgres\n%s\n--- magmalake\n%s", name, strings.Join(w, "\n"), strings.Join(g, "\n"))
		}
	}
}

// jdbcSections splits JdbcBrowse output by "# title", dropping rows of
// PostgreSQL's own schemas.
func jdbcSections(out string) map[string][]string {
	sections := map[string][]string{}
	cur := ""
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "# ") {
			cur = l[2:]
			sections[cur] = []string{}
			continue
		}
		if strings.HasPrefix(l, "pg_catalog|") || strings.HasPrefix(l, "information_schema|") || strings.HasPrefix(l, "pg_toast|") {
			continue
		}
		sections[cur] = append(sections[cur], l)
	}
	return sections
}

// commonTypes keeps PostgreSQL's getTypeInfo rows for the types magmalake
// lists, in PostgreSQL's order; a type we list that PostgreSQL lacks stays
// missing and fails the comparison.
func commonTypes(want, got []string) []string {
	ours := map[string]bool{}
	for _, g := range got {
		ours[strings.SplitN(g, "|", 2)[0]] = true
	}
	var out []string
	for _, w := range want {
		if ours[strings.SplitN(w, "|", 2)[0]] {
			out = append(out, w)
		}
	}
	return out
}

// checkSQLAlchemy compares SQLAlchemy's inspector.
func checkSQLAlchemy(t *testing.T, pg, ours string) {
	py := testenv.Python(t, "psycopg2, sqlalchemy", "python3-psycopg2 python3-sqlalchemy")
	run := func(addr string) string {
		out, err := exec.Command(py, "testdata/sa_browse.py", "postgresql+psycopg2://postgres@"+addr+"/cat").CombinedOutput()
		if err != nil {
			t.Fatalf("sqlalchemy against %s: %v %s", addr, err, out)
		}
		return string(out)
	}
	want, got := run(pg), run(ours)
	if got != want {
		t.Errorf("inspector differs\n--- postgres\n%s\n--- magmalake\n%s", want, got)
	}
}

// squeeze collapses runs of spaces and dashes, so column widths do not matter.
func squeeze(s string) string {
	s = regexp.MustCompile(`[ -]+`).ReplaceAllString(s, " ")
	return strings.TrimSpace(s)
}
