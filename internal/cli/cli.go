// Package cli is what magmalake's commands (cmd/magmalake and
// cmd/magmalake-bench) share: their streams, one-line usage errors, flag
// sets that report to the caller, the exit status, and the collector's
// policy.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Getenv looks up an environment variable; tests pass a map.
type Getenv func(string) string

// Stdio are the streams a command talks to.
type Stdio struct {
	In       *os.File
	Out, Err io.Writer
}

// ErrReported is a failure already shown to the user (a failed statement,
// a benchmark's failed check): exit status 1 without another message.
var ErrReported = errors.New("failure already reported")

// ExitStatus turns a command's outcome into an exit status: 0 success
// (after -h, the flags of fs on Out), 2 bad usage, 1 any other failure,
// reported on Err after prog's name unless already shown.
func ExitStatus(prog string, err error, fs *flag.FlagSet, std Stdio) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(std.Out, "usage of %s:\n", fs.Name())
		fs.SetOutput(std.Out)
		fs.PrintDefaults()
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(std.Err, "%s: %s\n", prog, ue.msg)
		return 2
	case errors.Is(err, ErrReported):
		return 1
	default:
		fmt.Fprintf(std.Err, "%s: %v\n", prog, err)
		return 1
	}
}
