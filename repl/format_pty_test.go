//go:build linux

package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// On a terminal, \x auto expands a result wider than the terminal (80
// columns here) or than $COLUMNS, and leaves a narrower one aligned; off a
// terminal it never expands, as psql.
func TestExpandedAutoOnTerminal(t *testing.T) {
	master, tty := testTerminal(t)
	if cols, rows := terminalSize(tty); cols != 80 || rows != 24 {
		t.Fatalf("terminalSize = %d x %d, want 80 x 24", cols, rows)
	}
	out := &ptyOutput{changed: make(chan struct{}, 1)}
	go out.pump(master)

	cols := []stmt.Column{{Name: "a", Type: sql.Int32}, {Name: "b", Type: sql.Text}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select wide":   answer(rowsResult(cols, "SELECT 1", []*string{str("1"), str(strings.Repeat("w", 80))})),
		"select narrow": answer(rowsResult(cols, "SELECT 1", []*string{str("2"), str(strings.Repeat("n", 40))})),
	}}
	t.Setenv("COLUMNS", "")
	sh := New(f, tty, tty)
	run := func(script string) {
		if err := sh.RunScript(context.Background(), strings.NewReader(script)); err != nil {
			t.Fatal(err)
		}
	}
	pos := 0
	run("\\x auto\nselect wide;\n")
	out.expect(t, &pos, "-[ RECORD 1 ]")
	run("select narrow;\n")
	out.expect(t, &pos, " a |                    b")
	t.Setenv("COLUMNS", "30")
	run("select narrow;\n")
	out.expect(t, &pos, "-[ RECORD 1 ]")
	// A pipe is no terminal: aligned whatever the width.
	var piped strings.Builder
	sh = New(f, &piped, &piped)
	if err := sh.RunScript(context.Background(), strings.NewReader("\\x auto\nselect wide;\n")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(piped.String(), " a | ") {
		t.Errorf("piped output expanded:\n%s", piped.String())
	}
}
