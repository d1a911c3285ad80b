//go:build linux

package repl

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// pagerScript is a pager that shows nothing: it keeps what it is given in
// a new file of $PAGER_DIR, and beside it whether its input and output are
// terminals, its argument count and $PAGER_MARK, which it inherits.
const pagerScript = `#!/bin/sh
f=$(mktemp "$PAGER_DIR/page.XXXXXX")
in=pipe; [ -t 0 ] && in=tty
out=pipe; [ -t 1 ] && out=tty
cat > "$f"
printf 'stdin %s\nstdout %s\nargs %s\nmark %s\n' "$in" "$out" "$#" "$PAGER_MARK" > "$f.info"
`

// pagerSteps are the statements and settings of the pager test, on a
// 24x80 terminal, around psql 15's thresholds: it pages an aligned result
// when its rows, plus two for the header (it counts it twice) and one for
// each extra line a line break makes, reach the screen's height (and
// pager_min_lines), or when it is wider than the screen; an expanded one
// at a line per column and one per record; another format at its rows
// and one.
var pagerSteps = []string{
	`select generate_series(1, 3) as n;`,
	`select generate_series(1, 21) as n;`, // 21 + 2 = 23: no
	`select generate_series(1, 22) as n;`, // 24: yes
	`select generate_series(1, 60) as n;`,
	`select E'a\nb\nc' as t from generate_series(1, 7);`,      // 7 + 2 + 14 = 23
	`select E'a\nb\nc' as t from generate_series(1, 8);`,      // 26
	"select 1 as \"two\nlines\" from generate_series(1, 20);", // a two-line header: 20 + 1 + 2 = 23
	"select 1 as \"two\nlines\" from generate_series(1, 21);",
	`select repeat('w', 78) as w;`, // 80 wide: fits
	`select repeat('w', 79) as w;`, // 81: wider than the screen
	`select 1 as a, repeat('w', 90) as w;`,
	`\x auto`,
	`select 1 as a, repeat('w', 90) as w;`, // expanded: 3 lines, no pager
	`\x on`,
	`select n, n as m from generate_series(1, 7) n;`, // (2+1)*7 = 21
	`select n, n as m from generate_series(1, 8) n;`, // 24
	`\x off`,
	`\pset pager_min_lines 40`,
	`select generate_series(1, 37) as n;`, // 39 lines
	`select generate_series(1, 38) as n;`, // 40
	`select repeat('w', 100) as w;`,       // wide pages whatever the count
	`\pset pager_min_lines 0`,
	`\a`,
	`select generate_series(1, 22) as n;`, // 22 + 1: no
	`select generate_series(1, 23) as n;`,
	`select repeat('w', 100) as w;`, // unaligned: never too wide
	`\a`,
	`\pset pager off`,
	`select generate_series(1, 60) as n;`,
	`select repeat('w', 100) as w;`,
	`\pset pager always`,
	`select 1 as n;`,
	`\pset pager on`,
	`\pset columns 40`,
	`select repeat('w', 50) as w;`, // wider than \pset columns
	`\pset columns 0`,
	`select 1 as n;`,
}

// pagerUse is what the scripted pager saw for one step: nothing, or the
// text it was given and its notes.
type pagerUse struct{ text, info string }

// TestPagerOnTerminal runs pagerSteps in psql 15 (against PostgreSQL 15)
// and in the shell (against the same server), each on a pseudo-terminal
// with the scripted pager, and wants the pager used for the same steps,
// given the same text: byte for byte what the shell prints without a
// pager, with the terminal as its output and its input a pipe.
func TestPagerOnTerminal(t *testing.T) {
	pg := requirePG(t)
	script := filepath.Join(t.TempDir(), "pager")
	if err := os.WriteFile(script, []byte(pagerScript), 0o755); err != nil {
		t.Fatal(err)
	}
	want := psqlPagerUses(t, pg, script, pagerSteps)
	got := shellPagerUses(t, &pgSession{c: pg.connect(t)}, script, pagerSteps)
	paged := 0
	for i, step := range pagerSteps {
		if got[i] != want[i] {
			t.Errorf("%s: shell's pager got %q (%q), psql's %q (%q)", step, got[i].text, got[i].info, want[i].text, want[i].info)
		}
		if want[i].text != "" {
			paged++
		}
	}
	if paged < 8 || paged > len(pagerSteps)-10 {
		t.Errorf("psql paged %d of %d steps: the cases do not straddle the thresholds", paged, len(pagerSteps))
	}
	// Without a pager the same statements print the same text.
	var plain strings.Builder
	sh := New(&pgSession{c: pg.connect(t)}, &plain, &plain)
	for i, step := range pagerSteps {
		plain.Reset()
		if err := sh.RunScript(context.Background(), strings.NewReader(step+"\n")); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got[i].text != "" && got[i].text != plain.String() {
			t.Errorf("%s: paged text differs from the unpaged\n paged:\n%s\nunpaged:\n%s", step, got[i].text, plain.String())
		}
	}
}

// shellPagerUses runs steps in a shell whose standard input and output are
// a pseudo-terminal and returns what the pager was given at each.
func shellPagerUses(t *testing.T, sess Session, script string, steps []string) []pagerUse {
	t.Helper()
	master, tty := testTerminal(t)
	out := &ptyOutput{changed: make(chan struct{}, 1)}
	go out.pump(master)
	dir := t.TempDir()
	t.Setenv("PSQL_PAGER", script)
	t.Setenv("PAGER_DIR", dir)
	t.Setenv("PAGER_MARK", "inherited")
	t.Setenv("COLUMNS", "")
	setStdin(t, tty)
	sh := New(sess, tty, tty)
	var uses []pagerUse
	for _, step := range steps {
		if err := sh.RunScript(context.Background(), strings.NewReader(step+"\n")); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		uses = append(uses, takePages(t, dir))
	}
	return uses
}

// psqlPagerUses types steps into psql 15 on a pseudo-terminal.
func psqlPagerUses(t *testing.T, pg *pgHarness, script string, steps []string) []pagerUse {
	t.Helper()
	master, tty := testTerminal(t)
	dir := t.TempDir()
	cmd := exec.Command(pgtest.PsqlPath(), "-X", "-h", pg.c.Dir, "-p", strconv.Itoa(pg.c.Port), "-U", "postgres", "-d", "postgres")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=dumb", "LC_ALL=C.UTF-8", "PGTZ=UTC",
		"PSQLRC=/dev/null", "PSQL_HISTORY=/dev/null", "PSQL_PAGER=" + script, "PAGER_DIR=" + dir, "PAGER_MARK=inherited"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	out := &ptyOutput{changed: make(chan struct{}, 1)}
	go out.pump(master)
	pos := 0
	out.expect(t, &pos, "postgres=# ")
	var uses []pagerUse
	for _, step := range steps {
		if _, err := master.WriteString(step + "\r"); err != nil {
			t.Fatal(err)
		}
		out.expect(t, &pos, "postgres=# ")
		uses = append(uses, takePages(t, dir))
	}
	return uses
}

// takePages reads and removes what the pager left in dir: at most one
// page per step.
func takePages(t *testing.T, dir string) pagerUse {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "page.??????"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if len(names) > 1 {
		t.Fatalf("pager ran %d times for one statement", len(names))
	}
	var u pagerUse
	for _, n := range names {
		text, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.ReadFile(n + ".info")
		if err != nil {
			t.Fatal(err)
		}
		u = pagerUse{text: string(text), info: string(info)}
		os.Remove(n)
		os.Remove(n + ".info")
	}
	return u
}

// setStdin makes f the process's standard input until the test ends: the
// shell, as psql, pages only when the user is at a terminal.
func setStdin(t *testing.T, f *os.File) {
	t.Helper()
	old := os.Stdin
	os.Stdin = f
	t.Cleanup(func() { os.Stdin = old })
}

// TestPagerFallbacks: a pager that cannot start leaves the output as it
// would be without one, on the terminal; $PAGER stands in for an unset
// $PSQL_PAGER and a blank one means none; a standard input or output that
// is no terminal gets no pager.
func TestPagerFallbacks(t *testing.T) {
	pg := requirePG(t)
	script := filepath.Join(t.TempDir(), "pager")
	if err := os.WriteFile(script, []byte(pagerScript), 0o755); err != nil {
		t.Fatal(err)
	}
	const tall = "select generate_series(1, 40) as n;\n"
	var plain strings.Builder
	if err := New(&pgSession{c: pg.connect(t)}, &plain, &plain).RunScript(context.Background(), strings.NewReader(tall)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv("PAGER_DIR", dir)
	t.Setenv("COLUMNS", "")

	master, tty := testTerminal(t)
	out := &ptyOutput{changed: make(chan struct{}, 1)}
	go out.pump(master)
	setStdin(t, tty)
	sh := New(&pgSession{c: pg.connect(t)}, tty, tty)
	run := func(env, value string) pagerUse {
		t.Helper()
		t.Setenv(env, value)
		if err := sh.RunScript(context.Background(), strings.NewReader(tall)); err != nil {
			t.Fatal(err)
		}
		return takePages(t, dir)
	}
	pos := 0
	os.Unsetenv("PAGER")
	if u := run("PSQL_PAGER", "/nonexistent/pager"); u.text != "" {
		t.Fatalf("a missing pager ran")
	}
	// The terminal shows the rows (its line discipline ends lines with \r\n).
	out.expect(t, &pos, strings.ReplaceAll(plain.String(), "\n", "\r\n"))
	os.Unsetenv("PSQL_PAGER")
	if u := run("PAGER", script); u.text != plain.String() {
		t.Errorf("$PAGER got %q", u.text)
	}
	if u := run("PSQL_PAGER", "  "); u.text != "" {
		t.Errorf("a blank $PSQL_PAGER paged")
	}
	t.Setenv("PSQL_PAGER", script)
	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pipeR.Close(); pipeW.Close() })
	os.Stdin = pipeR
	if err := sh.RunScript(context.Background(), strings.NewReader(tall)); err != nil {
		t.Fatal(err)
	}
	if u := takePages(t, dir); u.text != "" {
		t.Error("standard input not a terminal, yet paged")
	}
	os.Stdin = tty
	var piped strings.Builder
	if err := New(&pgSession{c: pg.connect(t)}, &piped, &piped).RunScript(context.Background(), strings.NewReader(tall)); err != nil {
		t.Fatal(err)
	}
	if u := takePages(t, dir); u.text != "" || piped.String() != plain.String() {
		t.Errorf("standard output not a terminal: paged %q, printed %q", u.text, piped.String())
	}
}
