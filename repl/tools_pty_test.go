//go:build linux

package repl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	mexec "github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/sql"
)

// runToolsPtyChild is the shell on the pseudo-terminal over a fake with a
// catalog to complete from.
func runToolsPtyChild() int {
	tables := []mexec.Column{{Name: "Schema", Type: sql.Text}, {Name: "Name", Type: sql.Text}}
	one := []mexec.Column{{Name: "n", Type: sql.Int32}}
	f := &fakeSession{answers: map[string]func(context.Context) (*mexec.Result, error){
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
	master, tty := testTerminal(t)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	// The editor checks it got the last query, then replaces it.
	body := "#!/bin/sh\ngrep -q 'select \\* from events' \"$1\" || exit 3\nprintf 'select 1;\\n' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ptyChildEnv+"=tools", "TERM=vt100", "PSQL_EDITOR="+editor)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := &ptyOutput{changed: make(chan struct{}, 1)}
	go out.pump(master)
	defer cmd.Process.Kill()
	pos := 0
	typeIn := func(s string) {
		if _, err := master.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	out.expect(t, &pos, "magmalake=> ")
	waitLineEditing(t, tty)
	typeIn("select * from ev\t")
	out.expect(t, &pos, "select * from events")
	typeIn(";\r")
	out.expect(t, &pos, " 41\r\n(1 row)")
	out.expect(t, &pos, "magmalake=> ")
	typeIn("\\e\r")
	out.expect(t, &pos, " 1\r\n(1 row)")
	out.expect(t, &pos, "magmalake=> ")
	typeIn("\\q\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shell exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("shell did not quit")
	}
}
