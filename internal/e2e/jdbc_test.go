package e2e

import (
	"path/filepath"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/wire"
)

func TestPgjdbc(t *testing.T) {
	jar := testenv.JDBCJar(t)
	javac := testenv.Program(t, "", "javac", "default-jdk-headless")
	java := testenv.Program(t, "", "java", "default-jdk-headless")
	classes := t.TempDir()
	runProgram(t, nil, javac, "-cp", jar, "-d", classes, testdata(t, "E2E.java"))
	cp := jar + string(filepath.ListSeparator) + classes
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("jdbc_t")
		out := runProgram(t, sc.env(s, password), java, "-cp", cp, "E2E")
		checkTranscript(t, out, sc.transcript(true))
	})
}

// TestPgjdbcDates runs pgjdbc's setDate/setTimestamp in a batch INSERT and a
// DELETE parameterised by a date (issue 11: the date arrived as
// '2024-04-11 +00' and was refused), then the same program on PostgreSQL 15.
func TestPgjdbcDates(t *testing.T) {
	jar := testenv.JDBCJar(t)
	javac := testenv.Program(t, "", "javac", "default-jdk-headless")
	java := testenv.Program(t, "", "java", "default-jdk-headless")
	classes := t.TempDir()
	runProgram(t, nil, javac, "-cp", jar, "-d", classes, testdata(t, "E2EDates.java"))
	cp := jar + string(filepath.ListSeparator) + classes
	run := func(url, user, password string) string {
		env := []string{"E2E_URL=" + url, "E2E_USER=" + user, "E2E_PASSWORD=" + password, "E2E_TABLE=jdbc_dates"}
		return runProgram(t, env, java, "-Duser.timezone=UTC", "-cp", cp, "E2EDates")
	}
	s := startServer(t, wire.AuthTrust)
	got := run("jdbc:postgresql://"+s.addr+"/e2e?sslmode=disable", testUser, "")
	want := `batch 6
delete 1999-12-31 1
delete 1999-12-31 0
delete 2000-01-01 0
delete 2038-01-19 1
delete 1970-01-01 1
delete 1970-01-01 0
row 1 2024-04-11 2024-04-11 10:11:12.5 2024-04-11 23:59:59.123456 | 2024-04-11 2024-04-11 10:11:12.5 2024-04-11 23:59:59.123456+00
row 2 2024-02-29 2024-02-29 10:11:12.5 2024-02-29 23:59:59.123456 | 2024-02-29 2024-02-29 10:11:12.5 2024-02-29 23:59:59.123456+00
row 6 null null null | null null null
`
	if got != want {
		t.Fatalf("pgjdbc dates on magmalake:\n%s\nwant:\n%s", got, want)
	}
	t.Run("postgres", func(t *testing.T) {
		pg := pgtest.StartWith(t, pgtest.Options{TCP: true})
		if pgOut := run("jdbc:postgresql://"+pg.Addr()+"/postgres?sslmode=disable", "postgres", ""); pgOut != want {
			t.Fatalf("the same program on PostgreSQL:\n%s\nwant:\n%s", pgOut, want)
		}
	})
}
