// Package repl is magmalake's interactive SQL shell: psql's look and feel
// (prompts, aligned tables, error carets, backslash commands) over a
// session in the same process, or over a server (repl/remote).
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/magmalake/magmalake/stmt"
)

// Session is what the shell needs of a session: the server's own, in this
// process, or a remote one (repl/remote).
type Session interface {
	Prepare(ctx context.Context, query string, paramTypes []uint32) (*stmt.Prepared, error)
	Execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error)
	TxStatus() byte
}

// ErrFailed reports that a statement or backslash command failed; the
// failure itself has already been printed.
var ErrFailed = errors.New("statement failed")

// Shell reads SQL and backslash commands and prints results as psql does.
// It holds the input side (the query buffer, COPY data, \i's directory),
// runs statements and dispatches backslash commands; its parts do the
// rest: pr prints, cat answers the informational commands, copier runs
// \copy, vars are \set's variables.
type Shell struct {
	sess   Session
	pr     *printer // where output goes and how results are laid out
	cat    *catalog // the informational commands and completion
	copier *copier  // \copy
	// StopOnError makes feeding stop at the first failed statement
	// (psql's ON_ERROR_STOP); the interactive loop turns it off.
	StopOnError bool
	Timing      bool // \timing
	// Now is the clock \timing measures with.
	Now func() time.Time
	// After is \watch's timer; nil: time.After.
	After func(time.Duration) <-chan time.Time

	// Interactive is set for a terminal: COPY FROM STDIN then says how to
	// end its data.
	Interactive bool

	// ConnInfo is \conninfo's answer: the user and the catalog.
	ConnInfo string
	// MetadataKinds are the metadata tables a table has ("t$files" ...),
	// which completion offers after "t$; the shell's creator names them.
	MetadataKinds []string

	pending   inputBuffer // input read but not yet terminated by ';'
	copy      *copyFeed   // a COPY FROM STDIN reading the next input lines
	vars      variables   // \set's
	scriptDir string      // the directory \ir is relative to
	lastQuery string      // what \g sends again when the buffer is empty
}

// New returns a shell printing to out (results) and errOut (errors,
// notices), stopping at the first error.
func New(s Session, out, errOut io.Writer) *Shell {
	pr := &printer{out: out, stdout: out, errOut: errOut}
	sh := &Shell{sess: s, pr: pr, StopOnError: true, Now: time.Now, scriptDir: "."}
	sh.cat = &catalog{sess: s, pr: pr, execute: sh.execute, metaKinds: func() []string { return sh.MetadataKinds }}
	sh.copier = &copier{sess: s, pr: pr, startCopyIn: sh.startCopyIn}
	sh.watchProgress()
	return sh
}

// RunCommand runs text as psql -c does: one backslash command, or any number
// of ';'-separated statements, the last one needing no ';'.
func (sh *Shell) RunCommand(ctx context.Context, text string) error {
	if strings.HasPrefix(strings.TrimSpace(text), `\`) {
		_, err := sh.meta(ctx, text)
		return err
	}
	if _, err := sh.feedText(ctx, text+"\n"); err != nil {
		return err
	}
	return sh.flush(ctx)
}

// RunScript reads statements from r until EOF or \q, without prompts.
// With ON_ERROR_STOP (the default) it ends at the first failure, which it
// returns; with it off it goes on, as psql.
func (sh *Shell) RunScript(ctx context.Context, r io.Reader) error {
	defer sh.pr.setQueryOut(nil)
	_, err := sh.runLines(ctx, r)
	if errors.Is(err, ErrFailed) && !sh.StopOnError {
		// psql: without ON_ERROR_STOP a script's failed statements do
		// not fail it, the last one included.
		return nil
	}
	return err
}

// RunFile is RunScript on a file (psql -f): \ir is relative to its
// directory.
func (sh *Shell) RunFile(ctx context.Context, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, pathErr(err))
	}
	defer f.Close()
	sh.scriptDir = filepath.Dir(name)
	return sh.RunScript(ctx, f)
}

// SetVariable is psql -v NAME=value.
func (sh *Shell) SetVariable(name, value string) error {
	if !validVarName(name) {
		return fmt.Errorf("invalid variable name: %q", name)
	}
	if err := sh.setVar(name, value); err != nil {
		return fmt.Errorf("invalid value %q for variable %s", value, name)
	}
	return nil
}

// runLines feeds r's lines until EOF (then what is unterminated runs) or
// \q; quit reports the \q.
func (sh *Shell) runLines(ctx context.Context, r io.Reader) (quit bool, err error) {
	lines := newLineReader(r)
	for {
		line, err := lines.next()
		if errors.Is(err, io.EOF) {
			return false, sh.flush(ctx)
		}
		if err != nil {
			return false, fmt.Errorf("read input: %w", err)
		}
		if sh.vars[varEcho] == "all" { // psql -a sets it
			fmt.Fprintln(sh.pr.stdout, line)
		}
		quit, ferr := sh.feedLine(ctx, line)
		if quit || (ferr != nil && sh.StopOnError) {
			return quit, ferr
		}
	}
}

// feedLine takes one input line (without its newline). A line starting with a
// backslash outside any literal is a command; anything else is SQL, run as
// soon as a ';' completes a statement.
func (sh *Shell) feedLine(ctx context.Context, line string) (quit bool, err error) {
	if sh.copy != nil {
		return false, sh.feedCopy(ctx, line)
	}
	if st := sh.state(); st == lexNormal || st == lexParen {
		if i := metaStart(line); i >= 0 {
			// SQL before a command on one line joins the buffer first
			// (SELECT 1 \gx).
			if sql := line[:i]; strings.TrimSpace(sql) != "" {
				if _, err := sh.feedText(ctx, sql+"\n"); err != nil && sh.StopOnError {
					return false, err
				}
			}
			return sh.meta(ctx, line[i:])
		}
	}
	return sh.feedText(ctx, line+"\n")
}

func (sh *Shell) feedText(ctx context.Context, text string) (bool, error) {
	var failed error
	stmts := sh.pending.add(text)
	for i, stmt := range stmts {
		if err := sh.runStatement(ctx, stmt); err != nil {
			failed = err
			if sh.StopOnError {
				sh.pending.reset()
				return false, err
			}
		}
		if sh.copy != nil { // its data is on the next lines
			sh.copy.queued = stmts[i+1:]
			break
		}
	}
	return false, failed
}

// flush runs an unterminated last statement at end of input, as psql does;
// the end of input also ends a COPY's data.
func (sh *Shell) flush(ctx context.Context) error {
	if sh.copy != nil {
		if err := sh.endCopy(ctx); err != nil {
			return err
		}
	}
	rest, token := sh.pending.String(), sh.pending.hasToken()
	sh.pending.reset()
	if !token {
		return nil
	}
	return sh.runStatement(ctx, strings.TrimLeft(rest, " \t\r\n\f"))
}

// state is the lexical state of the pending input.
func (sh *Shell) state() lexState { return sh.pending.lexState() }

// Prompt is psql's PROMPT1/PROMPT2 for database "magmalake" (or a
// server's database, '#' for its superuser): '=' at the
// start of a statement, '-' (or the open quote, comment or parenthesis) in a
// continued one, then '*' inside a transaction block or '!' in a failed one.
func (sh *Shell) Prompt() string {
	if sh.copy != nil {
		return ">> "
	}
	mark := "="
	if !sh.pending.empty() {
		mark = string(rune(sh.state()))
	}
	tx := ""
	switch sh.sess.TxStatus() {
	case stmt.TxActive:
		tx = "*"
	case stmt.TxFailed:
		tx = "!"
	}
	name, end := "magmalake", ">"
	if srv, ok := sh.sess.(serverSession); ok { // psql's %/ and %#
		name = srv.Database()
		if srv.Superuser() {
			end = "#"
		}
	}
	return name + mark + tx + end + " "
}

// serverSession is a session to a server (repl/remote): the prompt names
// its database as psql's does, and statements go out as typed.
type serverSession interface {
	Database() string
	Superuser() bool
	Verbatim()
}

// runStatement executes one statement and prints its outcome; a failure is
// printed and returned as ErrFailed.
func (sh *Shell) runStatement(ctx context.Context, stmt string) error {
	start := sh.Now()
	sh.lastQuery = stmt
	stmt = sh.vars.interpolate(stmt)
	sh.pr.out = sh.pr.queryOut()
	defer func() { sh.pr.out = sh.pr.stdout }()
	if err := sh.execute(ctx, stmt, resultStyle{}); err != nil {
		sh.pr.printError(err, stmt)
		return ErrFailed
	}
	if sh.Timing {
		fmt.Fprintln(sh.pr.out, formatTiming(sh.Now().Sub(start)))
	}
	return nil
}

// resultStyle is how a backslash command dresses up a query result.
type resultStyle struct {
	title    string
	noFooter bool
}

// execute prepares and runs stmt and prints what it returns.
func (sh *Shell) execute(ctx context.Context, stmt string, style resultStyle) error {
	query := strings.TrimSuffix(strings.TrimRight(stmt, " \t\r\n\f"), ";")
	if _, ok := sh.sess.(serverSession); ok {
		// psql sends the ';': the server's "at or near" and positions follow.
		query = strings.TrimRight(stmt, " \t\r\n\f")
	}
	p, err := sh.sess.Prepare(ctx, query, nil)
	if err != nil {
		return err
	}
	sh.pr.printNotices(p.Notices)
	res, err := sh.sess.Execute(ctx, p, nil)
	if err != nil {
		return err
	}
	sh.pr.printNotices(res.Notices)
	if res.CopyIn != nil {
		sh.startCopyIn(ctx, res.CopyIn, stmt)
		return nil
	}
	if res.Rows == nil {
		if res.Tag != "" {
			fmt.Fprintln(sh.pr.out, res.Tag)
		}
		return nil
	}
	defer res.Rows.Close()
	if res.CopyOut {
		// psql prints the rows and no tag: they are the output.
		_, err := writeCopyOut(ctx, sh.pr.out, res)
		return err
	}
	return sh.pr.printRows(ctx, res, style)
}

func hasTagPrefix(tag string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(tag, p) {
			return true
		}
	}
	return false
}

// formatTiming is psql's PrintTiming.
func formatTiming(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 1000 {
		return fmt.Sprintf("Time: %.3f ms", ms)
	}
	secs := ms / 1000
	mins := float64(int64(secs / 60))
	secs -= 60 * mins
	if mins < 60 {
		return fmt.Sprintf("Time: %.3f ms (%02d:%06.3f)", ms, int(mins), secs)
	}
	hours := float64(int64(mins / 60))
	mins -= 60 * hours
	if hours < 24 {
		return fmt.Sprintf("Time: %.3f ms (%02d:%02d:%06.3f)", ms, int(hours), int(mins), secs)
	}
	days := float64(int64(hours / 24))
	hours -= 24 * days
	return fmt.Sprintf("Time: %.3f ms (%.0f d %02d:%02d:%06.3f)", ms, days, int(hours), int(mins), secs)
}
