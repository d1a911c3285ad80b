package pgcatalog_test

import (
	"regexp"
	"strings"
	"testing"
)

// psqlSame are psql meta-commands whose output, errors included, is
// PostgreSQL 15's byte for byte on the same tables: magmalake has none of
// the functions, views, indexes, types, domains, conversions, foreign
// servers, event triggers or operators a user could have created, and its
// one role is the connected superuser.
var psqlSame = []string{
	`\df`, `\df+`, `\du`, `\du+`, `\dg`, `\dv`, `\dv+`, `\di`, `\di+`, `\dT`, `\dT+`,
	`\dp`, `\dD`, `\dc`, `\des`, `\dy`, `\do`, `\sf foo`, `\sf foo()`,
}

// psqlEmpty are meta-commands that answer with the same columns and no rows
// where an empty PostgreSQL lists what initdb made and magmalake has not:
// the plpgsql extension and language (\dx, \dL), 29 text search
// configurations (\dF), 230 built-in casts (\dC, see pg_cast in pg_empty.go).
var psqlEmpty = []string{`\dx`, `\dL`, `\dF`, `\dC`}

// checkPsqlMeta runs each meta-command against both servers.
func checkPsqlMeta(t *testing.T, pg, ours string) {
	for _, cmd := range psqlSame {
		want, _ := psql(pg, cmd)
		got, _ := psql(ours, cmd)
		if got != want {
			t.Errorf("%s differs\n--- postgres\n%s\n--- magmalake\n%s", cmd, want, got)
		}
	}
	rows := regexp.MustCompile(`^\((\d+) rows?\)$`)
	for _, cmd := range psqlEmpty {
		want, err := psql(pg, cmd)
		if err != nil {
			t.Fatalf("postgres %s: %v %s", cmd, err, want)
		}
		got, err := psql(ours, cmd)
		if err != nil {
			t.Errorf("magmalake %s: %v %s", cmd, err, got)
			continue
		}
		// title, header, rule, "(0 rows)"; the header names PostgreSQL's
		// columns (widths aside).
		w, g := strings.Split(strings.TrimSpace(want), "\n"), strings.Split(strings.TrimSpace(got), "\n")
		if len(g) != 4 || g[3] != "(0 rows)" || len(w) < 4 || squeeze(g[0]) != squeeze(w[0]) ||
			squeeze(g[1]) != squeeze(w[1]) || !rows.MatchString(w[len(w)-1]) {
			t.Errorf("%s: want PostgreSQL's columns and no rows\n--- postgres\n%s\n--- magmalake\n%s", cmd, want, got)
		}
	}
}
