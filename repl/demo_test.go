package repl

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake"
)

// The demo script is valid PostgreSQL once the Iceberg-only PARTITIONED BY
// clause is removed, and loads 17 distinct characters in both partitions.
func TestDemoSQLRunsOnPostgres(t *testing.T) {
	pg := requirePG(t)
	const clause = " PARTITIONED BY (active)"
	if !strings.Contains(magmalake.DemoSQL, clause) {
		t.Fatalf("demo.sql lost its %q clause", clause)
	}
	script := strings.Replace(magmalake.DemoSQL, clause, "", 1) +
		"\nselect count(*), count(distinct id), count(distinct name), count(*) filter (where active), count(birth_year), count(*) filter (where alias is null or powers is null) from xmen.characters;" +
		"\nset client_min_messages = warning; drop schema xmen cascade;\n"
	out, errOut := pg.psql(t, script, "-v", "ON_ERROR_STOP=1", "-A", "-t", "-q", "-f", "-")
	if errOut != "" {
		t.Fatalf("psql: %s", errOut)
	}
	if got := strings.TrimSpace(out); got != "17|17|17|12|1|0" {
		t.Errorf("rows|ids|names|active|known birth years|missing alias or powers = %s, want 17|17|17|12|1|0", got)
	}
}
