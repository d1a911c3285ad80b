package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
)

// HistoryFile is where the interactive shell keeps its history, in the
// user's home directory; empty when there is no home.
func HistoryFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".magmalake_history")
}

// IsTerminal reports whether f is a character device, i.e. a user typing.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// RunInteractive is the line-editing loop: prompts, history in historyPath,
// Ctrl-C clears the input line or cancels the running statement, Ctrl-D
// or \q quits. Failed statements do not end it.
func (sh *Shell) RunInteractive(ctx context.Context, historyPath string) error {
	sh.StopOnError, sh.Interactive = false, true
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetMultiLineMode(true)
	ln.SetWordCompleter(sh.Complete)
	ln.SetTabCompletionStyle(liner.TabPrints) // psql lists the choices
	loadHistory(ln, historyPath)
	defer saveHistory(ln, historyPath, sh.pr.errOut)

	// While a statement runs the terminal is in normal mode, so Ctrl-C
	// arrives as SIGINT; it cancels that statement instead of the process.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)

	fmt.Fprintln(sh.pr.out, `magmalake shell. Type \? for help, \q to quit.`)
	var entry []string // lines of the statement being typed, for history
	for {
		line, err := ln.Prompt(sh.Prompt())
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			sh.pending.reset()
			entry = nil
			continue
		case errors.Is(err, io.EOF) && sh.copy != nil:
			_ = sh.endCopy(ctx) // Ctrl-D ends COPY data, as in psql
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(sh.pr.out, `\q`)
			return nil
		case err != nil:
			return fmt.Errorf("read input: %w", err)
		}
		if strings.TrimSpace(line) != "" {
			entry = append(entry, strings.TrimSpace(line))
		}
		quit := sh.feedInterruptible(ctx, line, interrupts)
		if sh.pending.empty() && len(entry) > 0 {
			ln.AppendHistory(strings.Join(entry, " "))
			entry = nil
		}
		if quit {
			return nil
		}
	}
}

// feedInterruptible feeds one line, cancelling it on SIGINT.
func (sh *Shell) feedInterruptible(ctx context.Context, line string, interrupts <-chan os.Signal) bool {
	lineCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Drop a Ctrl-C pressed before this line was entered.
	select {
	case <-interrupts:
	default:
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-interrupts:
			cancel()
		case <-done:
		}
	}()
	quit, _ := sh.feedLine(lineCtx, line)
	return quit
}

func loadHistory(ln *liner.State, path string) {
	if path == "" {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return // no history yet
	}
	defer f.Close()
	ln.ReadHistory(f)
}

func saveHistory(ln *liner.State, path string, errOut io.Writer) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		fmt.Fprintf(errOut, "could not save history to file %q: %v\n", path, err)
		return
	}
	defer f.Close()
	if _, err := ln.WriteHistory(f); err != nil {
		fmt.Fprintf(errOut, "could not save history to file %q: %v\n", path, err)
	}
}

// lineReader yields input lines without their line ends, however long.
type lineReader struct{ r *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReader(r)} }

func (l *lineReader) next() (string, error) {
	line, err := l.r.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
}
