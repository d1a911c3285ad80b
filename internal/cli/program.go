package cli

import (
	"context"
	"flag"
	"fmt"
)

// Command is one subcommand: it reads its flags from args and runs,
// returning its flag set (for -h) with the outcome.
type Command func(ctx context.Context, args []string, env Getenv, std Stdio) (*flag.FlagSet, error)

// Parsed is the Command that parses its flags into a config, then runs
// that config.
func Parsed[C any](parse func([]string, Getenv) (C, *flag.FlagSet, error), run func(context.Context, C, Stdio) error) Command {
	return func(ctx context.Context, args []string, env Getenv, std Stdio) (*flag.FlagSet, error) {
		cfg, fs, err := parse(args, env)
		if err != nil {
			return fs, err
		}
		return fs, run(ctx, cfg, std)
	}
}

// Program is a command line of subcommands: `Name <command> [flags]`.
type Program struct {
	Name     string // "magmalake"
	Usage    string // printed for help, and with no or an unknown command
	Noun     string // what a command is called in "unknown command"
	Commands map[string]Command
	// Status, when set, gives an outcome an exit status of the program's
	// own before ExitStatus does (ok false: none).
	Status func(error) (status int, ok bool)
}

// Run dispatches args to a command and turns its outcome into an exit
// status (ExitStatus's, or Status's).
func (p Program) Run(ctx context.Context, args []string, env Getenv, std Stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.Err, p.Usage)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(std.Out, p.Usage)
		return 0
	}
	cmd, ok := p.Commands[args[0]]
	if !ok {
		fmt.Fprintf(std.Err, "%s: unknown %s %q\n%s", p.Name, p.Noun, args[0], p.Usage)
		return 2
	}
	fs, err := cmd(ctx, args[1:], env, std)
	if p.Status != nil && err != nil {
		if status, ok := p.Status(err); ok {
			return status
		}
	}
	return ExitStatus(p.Name, err, fs, std)
}
