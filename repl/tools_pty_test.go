//go:build linux

package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// runToolsPtyChild is the shell on the pseudo-terminal over a fake with a
// catalog to complete from.
func runToolsPtyChild() int {
	tables := []stmt.Column{{Name: "Schema", Type: sql.Text}, {Name: "Name", Type: sql.Text}}
	one := []stmt.Column{{Name: "n", Type: sql.Int32}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"SHOW TABLES":          answer(rowsResult(tables, "SHOW", []*string{str("public"), str("events")}, []*string{str("public"), str("users")})),
		"select * from events": answer(rowsResult(one, "SELECT 1", []*string{str("41")})),
		"select 1":             answer(rowsResult(one, "SELECT 1", []*string{str("1")})),
	}}
	sh := New(f, os.Stdout, os.Stdout)
	if err := sh.RunInteractive(context.Background(), ""); err != nil {
		fmt.Fprintln(os.Stdout, "RunInteractive:", err)
		return 1
	}
	return 0
}

// TestTypingToolsOnTerminal: typed on a terminal, Tab completes a table
// name from the catalog into the line, and \e opens $PSQL_EDITOR on the
// query buffer and runs what the editor leaves.
func TestTypingToolsOnTerminal(t *testing.T) {
	editor := filepath.Join(t.TempDir(), "editor.sh")
	// The editor checks it got the last query, then replaces it.
	body := "#!/bin/sh\ngrep -q 'select \\* from events' \"$1\" || exit 3\nprintf 'select 1;\\n' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := startPtyShell(t, "tools", "PSQL_EDITOR="+editor)
	sh.expect("magmalake=> ")
	waitLineEditing(t, sh.tty)
	sh.typeIn("select * from ev\t")
	sh.expect("select * from events")
	sh.typeIn(";\r")
	sh.expect(" 41\r\n(1 row)")
	sh.expect("magmalake=> ")
	sh.typeIn("\\e\r")
	sh.expect(" 1\r\n(1 row)")
	sh.expect("magmalake=> ")
	sh.quitWith("\\q\r")
}
