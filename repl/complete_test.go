package repl

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/metatable"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// TestComplete: Tab offers what fits where the word stands, in the case
// it is typed in, and leaves the rest of the line alone.
func TestComplete(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"data.csv", "data2.csv", "other.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dump"), 0o755); err != nil {
		t.Fatal(err)
	}
	tables := []stmt.Column{{Name: "Schema", Type: sql.Text}, {Name: "Name", Type: sql.Text}}
	one := []stmt.Column{{Name: "name", Type: sql.Text}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"SHOW TABLES":           answer(rowsResult(tables, "SHOW", []*string{str("public"), str("events")}, []*string{str("public"), str("users")})),
		"SHOW TABLES FROM lake": answer(rowsResult(tables, "SHOW", []*string{str("lake"), str("events_raw")})),
		"SHOW SCHEMAS":          answer(rowsResult(one, "SHOW", []*string{str("public")}, []*string{str("lake")})),
		"SELECT name FROM pg_settings": answer(rowsResult(one, "SELECT 3", []*string{str("search_path")},
			[]*string{str("statement_timeout")}, []*string{str("work_mem")})),
		"DESCRIBE events": answer(rowsResult(one, "SHOW", []*string{str("event_id")}, []*string{str("user_id")})),
	}}
	sh := New(f, &strings.Builder{}, &strings.Builder{})
	sh.MetadataKinds = session.MetadataTableKinds()
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"SELECT * FROM ev", []string{"events"}},
		{"select * from lake.ev", []string{"lake.events_raw"}},
		{"SELECT * FROM l", []string{"lake."}},
		{`SELECT * FROM "events$sn`, []string{`"events$snapshots"`}},
		{"SET st", []string{"statement_timeout"}},
		{"SELECT user_ FROM events", []string{"user_id"}},
		{"sel", []string{"select"}},
		{"SEL", []string{"SELECT"}},
		{`\d us`, []string{"users"}},
		{`\copy events FROM '` + dir + "/da", []string{dir + "/data.csv", dir + "/data2.csv"}},
		{`\i ` + dir + "/du", []string{dir + "/dump/"}},
	} {
		pos := len(tc.line)
		if strings.HasPrefix(tc.line, "SELECT user_") {
			pos = len("SELECT user_")
		}
		head, got, tail := sh.Complete(tc.line, pos)
		if !slices.Equal(got, tc.want) || head+strings.TrimSpace(lastWord(tc.line[:pos]))+tail != tc.line {
			t.Errorf("%q: head %q, completions %q, tail %q; want %q", tc.line, head, got, tail, tc.want)
		}
	}
	f.tx = stmt.TxActive
	if _, got, _ := sh.Complete("SELECT * FROM ev", 16); len(got) != 0 {
		t.Errorf("inside a block completion queried the catalog: %q", got)
	}
}

// TestCompleteMetadataTables: after "t$ Tab offers every metadata table
// the registry has (as the commands starting the shell name them), and
// nothing else.
func TestCompleteMetadataTables(t *testing.T) {
	sh := New(&fakeSession{}, &strings.Builder{}, &strings.Builder{})
	sh.MetadataKinds = session.MetadataTableKinds()
	_, got, _ := sh.Complete(`SELECT * FROM "events$`, len(`SELECT * FROM "events$`))
	var want []string
	for _, kind := range metatable.Names() {
		want = append(want, `"events$`+kind+`"`)
	}
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("completions %q, want %q", got, want)
	}
}

func lastWord(s string) string {
	i := strings.LastIndexAny(s, " \t(,=<>'")
	return s[i+1:]
}
