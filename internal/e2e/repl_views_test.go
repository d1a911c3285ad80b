package e2e

import (
	"strings"
	"testing"
)

// TestReplViews: \dv lists views (psql's "Did not find any relations."
// when there are none), \d of a view titles it View with its columns, \d+
// adds psql's "View definition:", and the view reads in another run of
// the shell on the same catalog.
func TestReplViews(t *testing.T) {
	bin := buildMagmalake(t)
	dir := t.TempDir()
	run := func(script string) string { return runRepl(t, bin, []string{"--data", dir}, script) }
	if out := run(`\dv` + "\n"); !strings.Contains(out, "Did not find any relations.") {
		t.Errorf("\\dv without views:\n%s", out)
	}
	run("CREATE TABLE base (id int, s text);\nINSERT INTO base VALUES (1, 'a'), (2, NULL);\n" +
		"CREATE VIEW named (k, u) AS SELECT id, upper(s) FROM base WHERE s IS NOT NULL;\n")
	out := run(`\dv` + "\n" + `\d named` + "\n" + `\d+ named` + "\n" + "SELECT * FROM named;\n")
	user := osUser(t)
	for _, want := range []string{
		" public | named | view | " + user + "\n(1 row)",
		"View \"public.named\"\n",
		" k      | integer |           |          | \n u      | text    |           |          | \n\n",
		"View definition:\n SELECT id, upper(s) FROM base WHERE s IS NOT NULL;\n",
		" k | u \n---+---\n 1 | A\n(1 row)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Location:") {
		t.Errorf("a view got a table's footer:\n%s", out)
	}
}
