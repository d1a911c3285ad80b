package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
)

// replScript uses psql's scripting: variables from -v and \set with
// :NAME, :'NAME' and :"NAME" (not inside literals, not a :: cast), \echo,
// \o and \qecho, \g to a file, \gx, \g again, \ir, and the unterminated
// statement an included file ends with.
const replScript = `\set ON_ERROR_STOP on
\set tbl scr_t
\set greeting 'hello, world'
\echo :greeting "quoted" 'it''s' tab'\t'end
CREATE TABLE :tbl (id int, name text);
INSERT INTO :tbl VALUES (1, :'greeting'), (2, :'who'), (3, :'tricky');
SELECT id, name FROM :"tbl" WHERE id >= :one ORDER BY id;
SELECT 1::int AS cast_kept, ':one' AS in_literal, 2 AS ":one";
\o %DIR%/out.txt
SELECT count(*) AS n FROM :tbl;
\qecho to the file
\o
SELECT name FROM :tbl ORDER BY id \g %DIR%/g.txt
SELECT id, name FROM :tbl WHERE id = 2 \gx
SELECT 42 AS again;
\g
\ir sub.sql
\echo -n no newline
\echo
DROP TABLE :tbl;
`

// TestReplScriptMatchesPsql (issue 16): the shell run with -f and -v
// prints what psql 15 prints for the same script against PostgreSQL, and
// writes the same files.
func TestReplScriptMatchesPsql(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	cl := pgtest.Start(t)
	bin := buildMagmalake(t)
	outputs := map[string][]string{}
	for _, name := range []string{"PostgreSQL", "magmalake"} {
		dir := t.TempDir()
		main := filepath.Join(dir, "main.sql")
		writeFile(t, main, strings.ReplaceAll(replScript, "%DIR%", dir))
		writeFile(t, filepath.Join(dir, "sub.sql"), "SELECT 'from include' AS src;\nSELECT 7 AS tail")
		args := []string{"-v", "who=Rogue", "-v", "one=1", "-v", `tricky=back\slash 'q'`, "-f", main}
		var cmd *exec.Cmd
		if name == "PostgreSQL" {
			cmd = exec.Command(psql, append([]string{"-X", "-d", cl.DSN("postgres")}, args...)...)
		} else {
			cmd = exec.Command(bin, append([]string{"repl", "--data", filepath.Join(dir, "wh")}, args...)...)
		}
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		outputs[name] = []string{string(b), testenv.ReadFile(t, filepath.Join(dir, "out.txt")), testenv.ReadFile(t, filepath.Join(dir, "g.txt"))}
	}
	for i, what := range []string{"output", `\o file`, `\g file`} {
		if got, want := outputs["magmalake"][i], outputs["PostgreSQL"][i]; got != want {
			t.Errorf("%s differs from psql's\nmagmalake:\n%s\npsql:\n%s", what, got, want)
		}
	}
}

// TestReplEchoAll: -a prints each input line before its result, as psql.
func TestReplEchoAll(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	cl := pgtest.Start(t)
	bin := buildMagmalake(t)
	script := "SELECT 1 AS a;\n-- a comment\nSELECT 2\n  AS b;\n\\echo done\n"
	want, err := exec.Command("sh", "-c", `printf '%s' "$1" | "$2" -X -a -d "$3"`, "sh", script, psql, cl.DSN("postgres")).CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, want)
	}
	cmd := exec.Command(bin, "repl", "--data", t.TempDir(), "--echo-all")
	cmd.Stdin = strings.NewReader(script)
	got, err := cmd.CombinedOutput()
	if err != nil || string(got) != string(want) {
		t.Errorf("magmalake -a: %v\n%s\npsql -a:\n%s", err, got, want)
	}
}
