package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplDescribe (issue 16): \d shows under the columns the partition
// spec, format version, delete mode and location; \d+ adds the
// properties, files, rows and current snapshot, each equal to what the
// metadata tables say when asked directly (delete files counted as files
// on disk: a Puffin file holds several deletion vectors); \d "t$files" lists the
// metadata table's own columns.
func TestReplDescribe(t *testing.T) {
	bin := buildMagmalake(t)
	dir := t.TempDir()
	run := func(script string) string { return runRepl(t, bin, []string{"--data", dir}, script) }
	run("CREATE TABLE dt (id int NOT NULL, g int, s text) PARTITIONED BY (g) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read');\n" +
		"INSERT INTO dt SELECT i, i % 2, 'x' FROM generate_series(1, 100) i;\nDELETE FROM dt WHERE id <= 10;\n")
	facts := strings.Fields(run(`\pset tuples_only on` + "\n" + `\pset format unaligned` + "\n" +
		`SELECT (SELECT count(*) FROM "dt$data_files"), (SELECT count(DISTINCT file_path) FROM "dt$delete_files"), (SELECT count(*) FROM dt), ` +
		`(SELECT snapshot_id FROM "dt$snapshots" ORDER BY committed_at DESC LIMIT 1), (SELECT count(*) FROM "dt$snapshots");` + "\n"))
	last := strings.Split(facts[len(facts)-1], "|")
	if len(last) != 5 {
		t.Fatalf("facts %q", facts)
	}
	out := run(`\d dt` + "\n" + `\d+ dt` + "\n" + `\d "dt$files"` + "\n")
	loc := "file://" + filepath.Join(dir, "warehouse", "public.db", "dt")
	for _, want := range []string{
		" id     | integer |           | not null | \n g      | integer |           |          | \n s      | text    |           |          | \nPartition spec: g\nFormat version: 3\nDelete mode: merge-on-read\nLocation: " + loc + "\n\n",
		"Properties:\n    format-version = '3'\n    write.delete.mode = 'merge-on-read'\n",
		fmt.Sprintf("Data: %s data files (", last[0]),
		fmt.Sprintf(", %s delete files; %s live rows, 10 deleted\nCurrent snapshot: %s, committed ", last[1], last[2], last[3]),
		fmt.Sprintf(" (%s snapshots kept)\n\n", last[4]),
		"Table \"dt$files\"\n", " file_path             | text    |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("\\d output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "Location:") != 2 {
		t.Errorf("want the footer under \\d and \\d+ only, not under the metadata table:\n%s", out)
	}
}

// TestReplCatalogCommands: \conninfo names the user and the embedded
// catalog's directory; \dt+ gives each table's files' size and live rows
// as the metadata tables and count(*) give them; \l and \du list the one
// database and the user.
func TestReplCatalogCommands(t *testing.T) {
	bin := buildMagmalake(t)
	dir := t.TempDir()
	run := func(script string) string { return runRepl(t, bin, []string{"--data", dir}, script) }
	run("CREATE TABLE a (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read');\n" +
		"INSERT INTO a SELECT i FROM generate_series(1, 50) i;\nDELETE FROM a WHERE id < 5;\nCREATE TABLE b (x text);\n")
	facts := strings.Split(strings.TrimSpace(run(`\pset tuples_only on`+"\n"+`\pset format unaligned`+"\n"+
		`SELECT (SELECT pg_size_pretty(sum(file_size_in_bytes)::bigint) FROM "a$files") || '|' || (SELECT count(*) FROM a);`+"\n")), "\n")
	want := strings.Split(facts[len(facts)-1], "|")
	out := run(`\conninfo` + "\n" + `\dt+` + "\n" + `\l` + "\n" + `\du` + "\n")
	for _, s := range []string{"on the embedded catalog at " + dir + ".", " magmalake | ", "List of roles"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, "|"); len(f) == 6 && strings.TrimSpace(f[0]) == "public" {
			for i := range f {
				f[i] = strings.TrimSpace(f[i])
			}
			rows[f[1]] = f
		}
	}
	user := osUser(t)
	if w := []string{"public", "a", "table", user, want[0], want[1]}; strings.Join(rows["a"], "|") != strings.Join(w, "|") {
		t.Errorf("\\dt+ row of a %q, want %q:\n%s", rows["a"], w, out)
	}
	if w := []string{"public", "b", "table", user, "0 bytes", "0"}; strings.Join(rows["b"], "|") != strings.Join(w, "|") {
		t.Errorf("\\dt+ row of b %q, want %q", rows["b"], w)
	}
}

func osUser(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
