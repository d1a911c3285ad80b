package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitCommand cuts a backslash command line into the command and the rest.
func splitCommand(line string) (cmd, rest string) {
	line = strings.TrimLeft(line, " \t")
	end := 1
	for end < len(line) && !strings.ContainsRune(" \t\\", rune(line[end])) {
		end++
	}
	return line[:end], line[end:]
}

// metaRaw runs the commands that take the rest of the line as it is.
func (sh *Shell) metaRaw(ctx context.Context, cmd, rest string) (handled, quit bool, err error) {
	switch cmd {
	case `\copy`:
		return true, false, sh.copier.metaCopy(ctx, strings.TrimSuffix(strings.TrimSpace(rest), ";"))
	}
	return false, false, nil
}

// metaScript runs the scripting commands: \echo, \qecho, \o, \i, \ir, \g,
// \gx.
func (sh *Shell) metaScript(ctx context.Context, cmd string, args []string) (handled, quit bool, err error) {
	switch cmd {
	case `\echo`, `\qecho`:
		w := sh.pr.stdout
		if cmd == `\qecho` {
			w = sh.pr.queryOut()
		}
		nl := "\n"
		if len(args) > 0 && args[0] == "-n" {
			args, nl = args[1:], ""
		}
		fmt.Fprint(w, strings.Join(args, " ")+nl)
	case `\o`:
		return true, false, sh.pr.setQueryOut(args)
	case `\i`, `\include`, `\ir`, `\include_relative`:
		if len(args) != 1 {
			fmt.Fprintf(sh.pr.errOut, "%s: missing required argument\n", cmd)
			return true, false, ErrFailed
		}
		name := args[0]
		if (cmd == `\ir` || cmd == `\include_relative`) && !filepath.IsAbs(name) {
			name = filepath.Join(sh.scriptDir, name)
		}
		quit, err = sh.include(ctx, name)
		return true, quit, err
	case `\g`, `\gx`:
		return true, false, sh.sendBuffer(ctx, args, cmd == `\gx`)
	case `\watch`:
		return true, false, sh.watch(ctx, args)
	case `\e`, `\edit`:
		return true, false, sh.edit(ctx)
	default:
		return false, false, nil
	}
	return true, false, nil
}

// pathErr is why a file could not be opened, worded as psql words it:
// the system's message without the path, capitalised as strerror's
// ("No such file or directory").
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return strerror{err}
}

type strerror struct{ err error }

func (e strerror) Error() string {
	msg := e.err.Error()
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}

func (e strerror) Unwrap() error { return e.err }

// include is \i: the file's lines are input, as if typed here; what is
// left unterminated at its end is sent, as psql does.
func (sh *Shell) include(ctx context.Context, name string) (bool, error) {
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(sh.pr.errOut, "%s: %v\n", name, pathErr(err))
		return false, ErrFailed
	}
	defer f.Close()
	dir := sh.scriptDir
	sh.scriptDir = filepath.Dir(name)
	defer func() { sh.scriptDir = dir }()
	return sh.runLines(ctx, bufio.NewReader(f))
}

// sendBuffer is \g [file] and \gx: the query buffer (or, empty, the last
// statement sent) runs now, its result to file if given, expanded for \gx.
func (sh *Shell) sendBuffer(ctx context.Context, args []string, expanded bool) error {
	stmt := strings.TrimLeft(sh.pending.String(), " \t\r\n\f")
	if !sh.pending.hasToken() {
		stmt = sh.lastQuery
	}
	sh.pending.reset()
	if stmt == "" {
		return nil
	}
	if len(args) > 0 {
		f, err := os.Create(args[0])
		if err != nil {
			fmt.Fprintf(sh.pr.errOut, "%s: %v\n", args[0], pathErr(err))
			return ErrFailed
		}
		defer f.Close()
		saved := sh.pr.qfile
		sh.pr.qfile = f
		defer func() { sh.pr.qfile = saved }()
	}
	if expanded && !sh.pr.expanded {
		sh.pr.expanded = true
		defer func() { sh.pr.expanded = false }()
	}
	return sh.runStatement(ctx, stmt)
}
