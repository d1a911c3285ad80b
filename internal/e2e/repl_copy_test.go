package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
)

// replCopyScript loads a table with \copy from a CSV file, with COPY FROM
// STDIN data inline in the script (text and CSV, ended by \.), and writes
// it back with \copy ... TO a file and to stdout. %DIR% is the test's
// directory.
const replCopyScript = `CREATE TABLE repl_cp (id int, name text, score float8);
\copy repl_cp FROM '%DIR%/in.csv' WITH (FORMAT csv, HEADER)
COPY repl_cp FROM STDIN;
10	ten	1.5
11	\N	2
12	tab\there	-0.25
\.
COPY repl_cp (id, name) FROM STDIN WITH (FORMAT csv); SELECT count(*) AS after_csv FROM repl_cp;
20,"twenty, quoted"
21,""
\.
SELECT id, name, score FROM repl_cp ORDER BY id;
\copy (SELECT id, name, score FROM repl_cp ORDER BY id) TO '%DIR%/out-csv' WITH (FORMAT csv, HEADER, NULL 'NA')
\copy (SELECT id, name FROM repl_cp WHERE id >= 10 ORDER BY id) TO stdout
\copy repl_cp (id, name) from '%DIR%/in.txt'
COPY (SELECT id FROM repl_cp WHERE id > 20 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER);
SELECT count(*) AS total, count(name) AS named, sum(score) AS scores FROM repl_cp;
`

// TestReplCopyMatchesPsql (issue 16): the shell's \copy and inline COPY
// FROM STDIN data print what psql prints for the same script against
// PostgreSQL 15, and the files \copy writes are byte for byte psql's.
func TestReplCopyMatchesPsql(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	cl := pgtest.Start(t)
	bin := buildMagmalake(t)
	out := map[string]string{}
	files := map[string]string{}
	for _, name := range []string{"PostgreSQL", "magmalake"} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "in.csv"), "id,name,score\n1,one,0.5\n2,\"comma, inside\",\n3,,3\n4,\"say \"\"hi\"\"\",4e2\n")
		writeFile(t, filepath.Join(dir, "in.txt"), "30\tthirty\n31\t\\N\n")
		script := strings.ReplaceAll(replCopyScript, "%DIR%", dir)
		var cmd *exec.Cmd
		if name == "PostgreSQL" {
			cmd = exec.Command(psql, "-X", "-v", "ON_ERROR_STOP=1", "-d", cl.DSN("postgres"), "-f", "-")
		} else {
			cmd = exec.Command(bin, "repl", "--data", filepath.Join(dir, "wh"))
		}
		cmd.Stdin = strings.NewReader(script)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		out[name] = string(b)
		csv, err := os.ReadFile(filepath.Join(dir, "out-csv"))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(csv)
	}
	if out["magmalake"] != out["PostgreSQL"] {
		t.Errorf("shell output differs from psql\nmagmalake:\n%s\npsql:\n%s", out["magmalake"], out["PostgreSQL"])
	}
	if files["magmalake"] != files["PostgreSQL"] || !strings.Contains(files["magmalake"], `"comma, inside"`) {
		t.Errorf("\\copy TO file differs\nmagmalake:\n%s\npsql:\n%s", files["magmalake"], files["PostgreSQL"])
	}
}

// TestReplCopyErrors: a bad row in inline COPY data fails the statement
// with PostgreSQL's message and line, the rest of the data is not run as
// SQL, and the table is as it was; \copy of a missing file is 58P01 and
// PROGRAM is refused.
func TestReplCopyErrors(t *testing.T) {
	bin := buildMagmalake(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	run := func(script string) (string, error) {
		cmd := exec.Command(bin, "repl", "--data", wh)
		cmd.Stdin = strings.NewReader(script)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if out, err := run("CREATE TABLE e (id int, v float8);\nINSERT INTO e VALUES (1, 1);\n"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := run("COPY e FROM STDIN;\n2\t2\n3\tnotanumber\nDROP TABLE e;\n\\.\nSELECT 'after';\n")
	if err == nil || !strings.Contains(out, `invalid input syntax for type double precision: "notanumber"`) || !strings.Contains(out, "line 2") ||
		strings.Contains(out, "after") || strings.Contains(out, "DROP TABLE") {
		t.Fatalf("bad COPY data: %v\n%s", err, out)
	}
	out, err = run(`\copy e from '` + filepath.Join(dir, "nope.csv") + "'\n" + `\copy e to program 'cat'` + "\nSELECT count(*) FROM e;\n")
	if err == nil || !strings.Contains(out, "could not open file") || !strings.Contains(out, "nope.csv") {
		t.Fatalf("missing file: %v\n%s", err, out)
	}
	out, err = run(`\set VERBOSITY verbose` + "\n" + `\copy e to program 'cat'` + "\n")
	if err == nil || !strings.Contains(out, string(pgerr.FeatureNotSupported)) || !strings.Contains(out, "PROGRAM is not supported") {
		t.Fatalf("PROGRAM: %v\n%s", err, out)
	}
	if out, err := run("SELECT count(*) FROM e;\n"); err != nil || !strings.Contains(out, "\n     1\n") {
		t.Fatalf("the table changed: %v\n%s", err, out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
