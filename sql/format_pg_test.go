package sql

import (
	"github.com/magmalake/magmalake/internal/testenv"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// formatPG is a throwaway PostgreSQL 15 cluster queried through psql, so
// values are printed by the type output functions, as the wire sends them.
type formatPG struct {
	*pgtest.Cluster
	psql string
}

// startFormatPostgres starts the cluster; it skips when PostgreSQL or psql
// is not installed.
func startFormatPostgres(t *testing.T) *formatPG {
	t.Helper()
	psql := testenv.Program(t, "", "psql", "postgresql-client-15")
	return &formatPG{Cluster: pgtest.StartWith(t, pgtest.Options{Locale: "C.UTF-8"}), psql: psql}
}

// texts runs query, which returns one text column, and returns its values.
func (p *formatPG) texts(t *testing.T, query string) []string {
	t.Helper()
	cmd := exec.Command(p.psql, "-X", "-q", "-A", "-t", "-0", "-v", "ON_ERROR_STOP=1",
		"-h", p.Dir, "-p", strconv.Itoa(p.Port), "-U", "postgres", "-d", "postgres", "-c", query)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=1", "PGCLIENTENCODING=UTF8")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("psql: %v: %s\nquery: %.300s", err, stderr.String(), query)
	}
	s := strings.TrimSuffix(string(out), "\n")
	s = strings.TrimSuffix(s, "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// unnestQuery selects expr (over x.v) for each of the SQL literals in order;
// psql prints the type output function's text, which is what the wire sends.
func unnestQuery(expr, elemType string, literals []string) string {
	return "SELECT (" + expr + ") FROM unnest(ARRAY[" + strings.Join(literals, ",") + "]::" + elemType +
		"[]) WITH ORDINALITY AS x(v, n) ORDER BY n"
}

func itoa(v int) string { return strconv.Itoa(v) }
