package repl

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

func oneQuerySession() *fakeSession {
	cols := []stmt.Column{{Name: "n", Type: sql.Int32}}
	return &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select 1": answer(rowsResult(cols, "SELECT 1", []*string{str("1")})),
	}}
}

// TestWatch: \watch runs the last query every interval under psql's
// title, c=N times; Ctrl-C (the context) ends it without failing; a bad
// interval or an empty query is refused.
func TestWatch(t *testing.T) {
	var out, errOut strings.Builder
	sh := New(oneQuerySession(), &out, &errOut)
	sh.Now = func() time.Time { return time.Date(2026, 12, 3, 14, 5, 6, 0, time.UTC) }
	var waits []time.Duration
	fired := make(chan time.Time)
	close(fired)
	sh.After = func(d time.Duration) <-chan time.Time { waits = append(waits, d); return fired }
	ctx := context.Background()
	if _, err := sh.feedLine(ctx, "select 1;"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := sh.meta(ctx, `\watch 0.5 c=3`); err != nil {
		t.Fatalf("%v %s", err, errOut.String())
	}
	table := "Thu Dec  3 14:05:06 2026 (every 0.5s)\n n \n---\n 1\n(1 row)\n\n"
	if got, want := out.String(), strings.Repeat(table, 3); got != want {
		t.Errorf("\\watch printed\n%q\nwant\n%q", got, want)
	}
	if !slices.Equal(waits, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}) {
		t.Errorf("waited %v, want two half seconds", waits)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sh.After = func(time.Duration) <-chan time.Time { cancel(); return nil }
	out.Reset()
	if _, err := sh.meta(ctx, `\watch`); err != nil || strings.Count(out.String(), "(every 2s)") != 1 {
		t.Errorf("cancelled \\watch: %v, printed %q", err, out.String())
	}
	for _, bad := range []string{`\watch soon`, `\watch x=1`} {
		if _, err := sh.meta(context.Background(), bad); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	if _, err := New(oneQuerySession(), &out, &errOut).meta(context.Background(), `\watch`); err == nil {
		t.Error("\\watch with no query was accepted")
	}
}

// TestEdit: \e hands the last query to $EDITOR and runs what it leaves
// when a ';' ends it.
func TestEdit(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "editor.sh")
	// The "editor" checks it was given the last query, then replaces it.
	body := "#!/bin/sh\ngrep -q 'select 0' \"$1\" || exit 3\nprintf 'select 1;\\n' > \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PSQL_EDITOR", script)
	var out, errOut strings.Builder
	f := oneQuerySession()
	f.answers["select 0"] = f.answers["select 1"]
	sh := New(f, &out, &errOut)
	if _, err := sh.feedLine(context.Background(), "select 0;"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := sh.meta(context.Background(), `\e`); err != nil {
		t.Fatalf("\\e: %v %s", err, errOut.String())
	}
	if out.String() != " n \n---\n 1\n(1 row)\n\n" || f.prepared[len(f.prepared)-1] != "select 1" {
		t.Errorf("\\e ran %q, printed %q", f.prepared, out.String())
	}
}
