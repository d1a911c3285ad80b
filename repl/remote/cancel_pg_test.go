package remote_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/repl"
)

// Cancelling the context of a running statement (the shell's Ctrl-C) sends
// a CancelRequest: pg_sleep(5) ends at once with PostgreSQL's own message,
// and the session takes the next statement.
func TestCancelRunningStatement(t *testing.T) {
	pg := requirePG(t)
	sh, o := remoteShell(connect(t, pgSettings(pg)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelWhenRunning(t, pg, "select pg_sleep(5)", cancel)
	start := time.Now()
	err := sh.RunCommand(ctx, "select pg_sleep(5)")
	elapsed := time.Since(start)
	if elapsed > 3*time.Second {
		t.Fatalf("the cancelled statement took %v", elapsed)
	}
	t.Logf("pg_sleep(5) cancelled after %v", elapsed.Round(time.Millisecond))
	if !errors.Is(err, repl.ErrFailed) {
		t.Fatalf("RunCommand = %v, want the statement's failure", err)
	}
	compare(t, "stderr", o.err.String(), "ERROR:  canceling statement due to user request\n")
	o.err.Reset()
	if err := sh.RunCommand(context.Background(), "select 'still here' as s"); err != nil {
		t.Fatalf("after the cancel: %v: %s", err, o.err.String())
	}
	want, _ := runPsql(t, pg, "select 'still here' as s;")
	compare(t, "stdout", o.out.String(), want)
}

// A cancel inside a transaction block fails the block, as in psql; the
// prompt shows it and ROLLBACK clears it.
func TestCancelInsideBlock(t *testing.T) {
	pg := requirePG(t)
	sh, o := remoteShell(connect(t, pgSettings(pg)))
	bg := context.Background()
	if err := sh.RunCommand(bg, "begin"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	cancelWhenRunning(t, pg, "select pg_sleep(5)", cancel)
	_ = sh.RunCommand(ctx, "select pg_sleep(5)")
	if got := sh.Prompt(); got != "postgres=!# " {
		t.Errorf("prompt after a cancel in a block = %q", got)
	}
	if err := sh.RunCommand(bg, "rollback"); err != nil {
		t.Fatalf("rollback: %v: %s", err, o.err.String())
	}
	if got := sh.Prompt(); got != "postgres=# " {
		t.Errorf("prompt after rollback = %q", got)
	}
}

// The prompt follows ReadyForQuery's transaction status ('*' in a block,
// '!' in a failed one) and is_superuser's ParameterStatus ('#' or '>'), as
// psql's default %/%R%x%# does.
func TestPromptFollowsTheServer(t *testing.T) {
	pg := requirePG(t)
	sh, o := remoteShell(connect(t, pgSettings(pg)))
	bg := context.Background()
	steps := []struct{ stmt, prompt string }{
		{"", "postgres=# "},
		{"begin", "postgres=*# "},
		{"select 1/0", "postgres=!# "},
		{"rollback", "postgres=# "},
		{"create role remote16_plain", "postgres=# "},
		{"set role remote16_plain", "postgres=> "},
		{"reset role", "postgres=# "},
		{"drop role remote16_plain", "postgres=# "},
	}
	for _, st := range steps {
		if st.stmt != "" {
			_ = sh.RunCommand(bg, st.stmt)
		}
		if got := sh.Prompt(); got != st.prompt {
			t.Errorf("after %q the prompt is %q, want %q (%s)", st.stmt, got, st.prompt, o.err.String())
		}
	}
}

// cancelWhenRunning calls cancel (the shell's Ctrl-C) once PostgreSQL
// shows query running in another session, so that the cancel lands inside
// the statement rather than before it is sent; after 10 s it cancels
// anyway, and the test's checks say what went wrong.
func cancelWhenRunning(t *testing.T, pg *pgtest.Cluster, query string, cancel context.CancelFunc) {
	t.Helper()
	watch := pg.Connect(t, "postgres")
	done := make(chan struct{})
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		defer cancel()
		ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		testenv.Await(ctx, func() bool {
			var n int
			err := watch.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query = $1", query).Scan(&n)
			return err == nil && n > 0
		})
	}()
}
