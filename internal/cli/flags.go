package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// UsageError is a bad command line or environment: reported in one line,
// exit status 2.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// NewFlagSet returns a flag set, named as its command line starts
// ("magmalake serve"), that reports errors to the caller only, so that main
// prints one line instead of flag's usage dump.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Parse parses args and rejects positional arguments beyond want.
func Parse(fs *flag.FlagSet, args []string, want int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return Usagef("%v", err)
	}
	if fs.NArg() > want {
		return Usagef("unexpected argument %q", fs.Arg(want))
	}
	return nil
}
