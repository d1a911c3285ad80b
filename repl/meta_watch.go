package repl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// watch is \watch [SECONDS] [c=N]: the query buffer (or the last query)
// runs every interval, its result titled with the time as psql titles it,
// until Ctrl-C, a failure, or N runs (psql 16's count).
func (sh *Shell) watch(ctx context.Context, args []string) error {
	interval, count := 2*time.Second, 0
	for _, a := range args {
		key, val, named := strings.Cut(a, "=")
		if !named {
			key, val = "i", a
		}
		f, err := strconv.ParseFloat(val, 64)
		switch {
		case err != nil || f < 0:
			fmt.Fprintf(sh.pr.errOut, "\\watch: incorrect interval value \"%s\"\n", a)
			return ErrFailed
		case key == "i" || key == "interval":
			interval = time.Duration(f * float64(time.Second))
		case key == "c" || key == "count":
			count = int(f)
		default:
			fmt.Fprintf(sh.pr.errOut, "\\watch: unrecognized parameter \"%s\"\n", key)
			return ErrFailed
		}
	}
	stmt := strings.TrimSpace(sh.pending.String())
	if !sh.pending.hasToken() {
		stmt = sh.lastQuery
	}
	sh.pending.reset()
	if stmt == "" {
		fmt.Fprintln(sh.pr.errOut, `\watch cannot be used with an empty query`)
		return ErrFailed
	}
	sh.lastQuery = stmt
	for n := 1; ; n++ {
		// psql's title: the time as strftime's %c in the C locale.
		title := fmt.Sprintf("%s (every %gs)", sh.Now().Format("Mon Jan _2 15:04:05 2006"), interval.Seconds())
		if err := sh.execute(ctx, sh.vars.interpolate(stmt), resultStyle{title: title}); err != nil {
			sh.pr.printError(err, stmt)
			return ErrFailed
		}
		if count > 0 && n >= count {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil // Ctrl-C ends the watch, not the shell
		case <-sh.after(interval):
		}
	}
}

// after is time.After, or the test's clock.
func (sh *Shell) after(d time.Duration) <-chan time.Time {
	if sh.After != nil {
		return sh.After(d)
	}
	return time.After(d)
}

// edit is \e: the query buffer (or the last query) in $PSQL_EDITOR,
// $EDITOR or $VISUAL (vi if none); what the editor leaves is input, run
// at once if a ';' ends it, as psql does.
func (sh *Shell) edit(ctx context.Context) error {
	text := sh.pending.String()
	if !sh.pending.hasToken() {
		text = sh.lastQuery
	}
	dir, err := os.MkdirTemp("", "magmalake-edit")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "query.sql")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	editor := "vi"
	for _, v := range []string{"PSQL_EDITOR", "EDITOR", "VISUAL"} {
		if e := os.Getenv(v); e != "" {
			editor = e
			break
		}
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(sh.pr.errOut, "\\e: the editor failed: %v\n", err)
		return ErrFailed
	}
	edited, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sh.pending.reset()
	_, err = sh.feedText(ctx, strings.TrimRight(string(edited), "\n")+"\n")
	return err
}
