package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/wire"
)

// python returns a Python that can import module (Debian's system Python,
// where apt's python3-psycopg2 and python3-sqlalchemy live) or skips.
func python(t *testing.T, module, pkg string) string {
	t.Helper()
	for _, p := range []string{os.Getenv("MAGMALAKE_PYTHON"), "/usr/bin/python3", "python3"} {
		if p == "" {
			continue
		}
		if exec.Command(p, "-c", "import "+module).Run() == nil {
			return p
		}
	}
	t.Skipf("python3 with %s not installed (apt-get install %s)", module, pkg)
	return ""
}

func TestPsycopg2(t *testing.T) {
	py := python(t, "psycopg2", "python3-psycopg2")
	for _, auth := range []struct {
		name     string
		method   wire.AuthMethod
		password string
	}{{"trust", wire.AuthTrust, ""}, {"scram", wire.AuthSCRAM, testPassword}} {
		t.Run(auth.name, func(t *testing.T) {
			s := startServer(t, auth.method)
			sc := newScenario("py_t")
			out, stderr := runSplit(t, sc.env(s, auth.password), py, testdata(t, "client_psycopg2.py"))
			checkTranscript(t, out, sc.transcript(true))
			// COPY (query) TO STDOUT in CSV: the live rows, NULL as an empty field.
			var want strings.Builder
			for _, line := range sc.transcript(true) {
				var id int
				var name string
				if _, err := fmt.Sscanf(line, "row %d %s", &id, &name); err == nil {
					fmt.Fprintf(&want, "%d,%s\n", id, strings.Replace(name, "NULL", "", 1))
				}
			}
			for id := sc.Rows + 1; id <= sc.Rows+sc.CopyRows; id++ {
				fmt.Fprintf(&want, "%d,c%d\n", id, id)
			}
			if stderr != want.String() {
				t.Fatalf("COPY TO STDOUT csv:\n%s\nwant:\n%s", stderr, want.String())
			}
		})
	}
}

func TestSQLAlchemy(t *testing.T) {
	py := python(t, "sqlalchemy, psycopg2", "python3-sqlalchemy python3-psycopg2")
	for _, auth := range []struct {
		name     string
		method   wire.AuthMethod
		password string
	}{{"trust", wire.AuthTrust, ""}, {"scram", wire.AuthSCRAM, testPassword}} {
		t.Run(auth.name, func(t *testing.T) {
			s := startServer(t, auth.method)
			sc := newScenario("sa_t")
			out := runProgram(t, sc.env(s, auth.password), py, testdata(t, "client_sqlalchemy.py"))
			checkTranscript(t, out, sc.transcript(false))
		})
	}
}
