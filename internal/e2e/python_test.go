package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

func TestPsycopg2(t *testing.T) {
	py := testenv.Python(t, "psycopg2", "python3-psycopg2")
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("py_t")
		out, stderr := runSplit(t, sc.env(s, password), py, testdata(t, "client_psycopg2.py"))
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

func TestSQLAlchemy(t *testing.T) {
	py := testenv.Python(t, "sqlalchemy, psycopg2", "python3-sqlalchemy python3-psycopg2")
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("sa_t")
		out := runProgram(t, sc.env(s, password), py, testdata(t, "client_sqlalchemy.py"))
		checkTranscript(t, out, sc.transcript(false))
	})
}
