package repl

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// terminal returns the file output goes to when it is a terminal.
func (sh *Shell) terminal() (*os.File, bool) {
	f, ok := sh.out.(*os.File)
	return f, ok && IsTerminal(f)
}

// outputColumns is the screen width expanded auto compares with, as psql
// finds it: $COLUMNS, else the terminal's width, and 0 (unknown) when the
// output is not a terminal.
func (sh *Shell) outputColumns() int {
	f, ok := sh.terminal()
	if !ok {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	cols, _ := terminalSize(f)
	return cols
}

// emit writes printed output, through the pager when psql would use one:
// pager on, standard input and output terminals, and at least as many
// lines as the screen has (and pager_min_lines), or pager always.
func (sh *Shell) emit(out []byte) error {
	if cmd := sh.pagerFor(out); cmd != nil {
		cmd.Stdin = bytes.NewReader(out)
		if err := cmd.Run(); err == nil {
			return nil
		}
		// Like psql, a pager that cannot start leaves the output as it is.
	}
	_, err := sh.out.Write(out)
	return err
}

// pagerFor returns the pager command for out, or nil. A terminal that
// does not know its height (0 rows) gets no pager.
func (sh *Shell) pagerFor(out []byte) *exec.Cmd {
	ps := sh.settings()
	f, ok := sh.terminal()
	if ps.pager == 0 || !ok || !IsTerminal(os.Stdin) {
		return nil
	}
	lines := bytes.Count(out, []byte{'\n'})
	if _, rows := terminalSize(f); ps.pager < 2 && (rows == 0 || lines < rows || lines < ps.pagerMinLines) {
		return nil
	}
	prog := pagerProgram()
	if prog == "" {
		return nil
	}
	cmd := exec.Command("/bin/sh", "-c", prog)
	cmd.Stdout, cmd.Stderr = f, sh.errOut
	return cmd
}

// pagerProgram is $PSQL_PAGER, else $PAGER, else less; a blank setting
// means no pager.
func pagerProgram() string {
	for _, env := range []string{"PSQL_PAGER", "PAGER"} {
		if v, ok := os.LookupEnv(env); ok {
			return strings.TrimSpace(v)
		}
	}
	return "less"
}
