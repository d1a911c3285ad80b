package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/magmalake/magmalake/repl"
)

// replAction is one -c or -f of the repl's command line.
type replAction struct {
	file bool   // -f: text names a script, "-" standard input
	text string // -c: the command
}

// runActions runs the -c commands and -f scripts in order, as psql 15
// does: with ON_ERROR_STOP (on unless -v ON_ERROR_STOP=0) the first
// failure ends the run; without it every action runs, a failure is
// reported where it happens, and the exit status is the last action's.
func runActions(ctx context.Context, sh *repl.Shell, actions []replAction, stdin io.Reader, errOut io.Writer) error {
	var err error
	for _, a := range actions {
		if err = a.run(ctx, sh, stdin); err == nil {
			continue
		}
		if sh.StopOnError || ctx.Err() != nil { // Ctrl-C ends the run
			if a.file && errors.Is(err, repl.ErrFailed) {
				return errScriptStopped
			}
			return err
		}
		// A failed statement has printed itself; a script that cannot be
		// opened has not.
		if !errors.Is(err, repl.ErrFailed) {
			fmt.Fprintf(errOut, "magmalake: %v\n", err)
			err = repl.ErrFailed
		}
	}
	return err
}

func (a replAction) run(ctx context.Context, sh *repl.Shell, stdin io.Reader) error {
	switch {
	case !a.file:
		return sh.RunCommand(ctx, a.text)
	case a.text == "-":
		return sh.RunScript(ctx, stdin)
	default:
		return sh.RunFile(ctx, a.text)
	}
}
