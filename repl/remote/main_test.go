package remote_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/repl"
	"github.com/magmalake/magmalake/repl/remote"
)

// The remote session is what the shell drives.
var _ repl.Session = (*remote.Session)(nil)

// testPG is one throwaway PostgreSQL 15 cluster (C.UTF-8, UTC) for the
// package's tests, started on first use and stopped by TestMain; psql's
// output against it is what the remote shell must print.
var testPG = pgtest.Shared{Options: pgtest.Options{Locale: "C.UTF-8"}}

func TestMain(m *testing.M) {
	code := m.Run()
	testPG.Stop()
	os.Exit(code)
}

// requirePG returns the cluster, skipping (or with MAGMALAKE_REQUIRE_TOOLS=1
// failing) when PostgreSQL 15 or psql is not installed.
func requirePG(t *testing.T) *pgtest.Cluster {
	t.Helper()
	return testPG.Get(t)
}

// psqlPrefix is what psql puts before an error or notice of a script
// (psql:<stdin>:12: ); the shell prints none.
var psqlPrefix = regexp.MustCompile(`(?m)^psql:<stdin>:\d+: `)

// runPsql runs psql -X -f - on script against database db and returns its
// stdout and stderr, the line prefixes dropped.
func runPsql(t *testing.T, c *pgtest.Cluster, script string, args ...string) (string, string) {
	t.Helper()
	base := []string{"-X", "-h", c.Dir, "-p", strconv.Itoa(c.Port), "-U", "postgres", "-d", "postgres", "-P", "pager=off", "-f", "-"}
	cmd := exec.Command(pgtest.PsqlPath(), append(base, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGCLIENTENCODING=UTF8", "PGTZ=UTC", "COLUMNS=", "PSQLRC=/dev/null")
	cmd.Stdin = strings.NewReader(script)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run() // failing statements are part of what is compared
	return out.String(), psqlPrefix.ReplaceAllString(errOut.String(), "")
}

// pgSettings reach the cluster's socket as user postgres.
func pgSettings(c *pgtest.Cluster) remote.Settings {
	return remote.Settings{"host": c.Dir, "port": strconv.Itoa(c.Port), "user": "postgres", "dbname": "postgres", "sslmode": "disable"}
}

// connect opens a remote session, closed when the test ends.
func connect(t *testing.T, st remote.Settings) *remote.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := remote.Connect(ctx, remote.Options{Settings: st})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// shellOutput is a shell's standard output and error.
type shellOutput struct{ out, err strings.Builder }

// remoteShell is the shell on a remote session, printing notices as they
// arrive (as the repl command wires it).
func remoteShell(s *remote.Session) (*repl.Shell, *shellOutput) {
	o := &shellOutput{}
	sh := repl.New(s, &o.out, &o.err)
	s.HandleNotices(sh.PrintNotice)
	sh.ConnInfo = s.ConnInfo()
	return sh, o
}

// compare reports where got differs from want, line by line.
func compare(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s differs at line %d:\n got: %q\nwant: %q\n--- got:\n%s\n--- want:\n%s", what, i+1, gl, wl, got, want)
			return
		}
	}
}
