package repl

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// terminal returns the file output goes to when it is a terminal.
func (pr *printer) terminal() (*os.File, bool) {
	f, ok := pr.out.(*os.File)
	return f, ok && IsTerminal(f)
}

// outputColumns is the screen width expanded auto compares with, as psql
// finds it: $COLUMNS, else the terminal's width, and 0 (unknown) when the
// output is not a terminal.
func (pr *printer) outputColumns() int {
	f, ok := pr.terminal()
	if !ok {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	cols, _ := terminalSize(f)
	return cols
}

// emit writes the printed table t, through the pager when psql would use
// one: pager on, standard input and output terminals, and the table not
// fitting the screen (psql's IsPagerNeeded and print_aligned_text), or
// pager always.
func (pr *printer) emit(out []byte, t *table) error {
	if cmd := pr.pagerFor(t); cmd != nil {
		cmd.Stdin = bytes.NewReader(out)
		if err := cmd.Run(); err == nil {
			return nil
		}
		// A pager that cannot start leaves the output as it is (psql's
		// popen failing); one that fails later gets it again.
	}
	_, err := pr.out.Write(out)
	return err
}

// pagerFor returns the pager command for t, or nil. A terminal that does
// not know its height (0 rows) gets no pager.
func (pr *printer) pagerFor(t *table) *exec.Cmd {
	ps := pr.settings()
	f, ok := pr.terminal()
	if ps.pager == 0 || !ok || !IsTerminal(os.Stdin) {
		return nil
	}
	if _, rows := terminalSize(f); ps.pager < 2 && (rows == 0 || !pr.tooBig(t, rows)) {
		return nil
	}
	prog := pagerProgram()
	if prog == "" {
		return nil
	}
	cmd := exec.Command("/bin/sh", "-c", prog)
	cmd.Stdout, cmd.Stderr = f, pr.errOut
	return cmd
}

// tooBig reports whether t does not fit a screen of that many rows as psql
// 15 decides it: an aligned table wider than the screen always pages (not
// one printed expanded); otherwise psql counts a line for each row and one
// for the header, and pages at the screen's height and pager_min_lines.
// Printing aligned it adds each row's extra lines from line breaks and
// the header's lines once more (psql's print_aligned_text counts the
// header twice, so 22 rows page on a 24-line screen); expanded it counts
// a line for each column and one for each record.
func (pr *printer) tooBig(t *table, rows int) bool {
	ps := pr.settings()
	if ps.format != "json" {
		t = t.withNullDisplay(ps.null)
	}
	mode, columns := pr.expandedMode(), pr.outputColumns()
	if ps.columns > 0 {
		columns = ps.columns
	}
	aligned := ps.format == "aligned"
	width := 0
	if aligned {
		width = measure(t).totalWidth(min(max(ps.border, 0), 2))
	}
	expanded := mode == "on" || aligned && mode == "auto" && columns > 0 && len(t.headers) > 1 && width > columns
	if aligned && !expanded && columns > 0 && width > columns {
		return true
	}
	lines := len(t.rows) + 1
	switch {
	case expanded:
		lines = (len(t.headers) + 1) * len(t.rows)
	case aligned:
		lines += headerLines(t) + extraLines(t)
	}
	return lines >= rows && lines >= ps.pagerMinLines
}

// headerLines is the height of the tallest header.
func headerLines(t *table) int {
	n := 0
	for _, h := range t.headers {
		n = max(n, len(newCellText(h).lines))
	}
	return n
}

// extraLines are the lines an aligned table's line breaks add: each row's
// tallest cell beyond its first line.
func extraLines(t *table) int {
	n := 0
	for _, row := range t.rows {
		tallest := 0
		for _, v := range row {
			if c := newCellText(v); c.width() > 0 {
				tallest = max(tallest, len(c.lines)-1)
			}
		}
		n += tallest
	}
	return n
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
