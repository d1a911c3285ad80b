//go:build linux

package repl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	mexec "github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/sql"
)

// progressFake is a session whose "select long" reports progress the way
// an exec session does (from another goroutine while it runs, a Done
// report before it returns) and runs until it is cancelled.
type progressFake struct {
	*fakeSession
	f func(mexec.ProgressReport)
}

func (p *progressFake) WatchProgress(_ time.Duration, f func(mexec.ProgressReport)) { p.f = f }

func newProgressFake() *progressFake {
	p := &progressFake{}
	p.fakeSession = &fakeSession{answers: map[string]func(context.Context) (*mexec.Result, error){
		"select 1": answer(rowsResult([]mexec.Column{{Name: "n", Type: sql.Int32}}, "SELECT 1", []*string{str("1")})),
		"select long": func(ctx context.Context) (*mexec.Result, error) {
			r := mexec.ProgressReport{Elapsed: 1500 * time.Millisecond}
			r.FilesPlanned, r.FilesDone, r.Rows = 4, 1, 500
			r.BytesPlanned, r.BytesRead = 4000, 1000
			done := make(chan struct{})
			go func() { p.f(r); close(done) }()
			<-done
			<-ctx.Done()
			p.f(mexec.ProgressReport{Done: true})
			return nil, ctx.Err()
		},
	}}
	return p
}

// runProgressPtyChild is the shell on the pseudo-terminal, over progressFake.
func runProgressPtyChild() int {
	sh := New(newProgressFake(), os.Stdout, os.Stdout)
	if err := sh.RunInteractive(context.Background(), ""); err != nil {
		fmt.Fprintln(os.Stdout, "RunInteractive:", err)
		return 1
	}
	return 0
}

// TestProgressLineOnTerminal: on a terminal a running statement's progress
// is one line (bar, percentage, figures, cut to the terminal's 80 columns)
// redrawn in place; Ctrl-C still
// cancels the statement, the line is erased before the error, and the
// shell goes on.
func TestProgressLineOnTerminal(t *testing.T) {
	master, tty := testTerminal(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ptyChildEnv+"=progress", "TERM=vt100")
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
	typeIn("select long;\r")
	out.expect(t, &pos, "\r[=====>              ]  25% 1/4 files, 500 rows, 1000 B of 3.9 kB read\x1b[K")
	typeIn("\x03")
	out.expect(t, &pos, "\r\x1b[KERROR:  canceling statement due to user request")
	out.expect(t, &pos, "magmalake=> ")
	typeIn("select 1;\r")
	out.expect(t, &pos, "(1 row)")
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
