//go:build linux

package repl

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// progressFake is a session whose "select long" reports progress the way
// a session does (from another goroutine while it runs, a Done
// report before it returns) and runs until it is cancelled.
type progressFake struct {
	*fakeSession
	f func(stmt.ProgressReport)
}

func (p *progressFake) WatchProgress(_ time.Duration, f func(stmt.ProgressReport)) { p.f = f }

func newProgressFake() *progressFake {
	p := &progressFake{}
	p.fakeSession = &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select 1": answer(rowsResult([]stmt.Column{{Name: "n", Type: sql.Int32}}, "SELECT 1", []*string{str("1")})),
		"select long": func(ctx context.Context) (*stmt.Result, error) {
			r := stmt.ProgressReport{Elapsed: 1500 * time.Millisecond}
			r.FilesPlanned, r.FilesDone, r.Rows = 4, 1, 500
			r.BytesPlanned, r.BytesRead = 4000, 1000
			done := make(chan struct{})
			go func() { p.f(r); close(done) }()
			<-done
			<-ctx.Done()
			p.f(stmt.ProgressReport{Done: true})
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
	sh := startPtyShell(t, "progress")
	sh.expect("magmalake=> ")
	sh.typeIn("select long;\r")
	sh.expect("\r[=====>              ]  25% 1/4 files, 500 rows, 1000 B of 3.9 kB read\x1b[K")
	sh.typeIn("\x03")
	sh.expect("\r\x1b[KERROR:  canceling statement due to user request")
	sh.expect("magmalake=> ")
	sh.typeIn("select 1;\r")
	sh.expect("(1 row)")
	sh.quitWith("\\q\r")
}
