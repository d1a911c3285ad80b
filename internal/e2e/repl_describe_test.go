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
	run := func(script string) string {
		cmd := exec.Command(bin, "repl", "--data", dir)
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
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
