// Command magmalake serves SQL on Apache Iceberg tables over the PostgreSQL
// wire protocol (serve) or in a terminal (repl).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/magmalake/magmalake/internal/cli"
)

const usage = `usage: magmalake <command> [flags]

commands:
  repl     interactive SQL shell (or -c SQL, or statements on stdin)
  serve    PostgreSQL wire protocol server
  passwd   set a user's password in a users file (SCRAM-SHA-256 verifier)
  version  print the version

"magmalake <command> -h" lists a command's flags.
`

func main() {
	cli.ApplyGCPolicy(os.Getenv)
	os.Exit(run(context.Background(), os.Args[1:], os.Getenv, cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// run dispatches to a command and turns its outcome into an exit status:
// 0 success, 1 failure, 2 bad usage, 3 a script stopped at an error
// (psql's ON_ERROR_STOP).
func run(ctx context.Context, args []string, env cli.Getenv, std cli.Stdio) int {
	return cli.Program{
		Name:  "magmalake",
		Usage: usage,
		Noun:  "command",
		Commands: map[string]cli.Command{
			"repl":   cli.Parsed(parseRepl, runRepl),
			"serve":  cli.Parsed(parseServe, runServe),
			"passwd": cli.Parsed(parsePasswd, runPasswd),
			"version": func(_ context.Context, _ []string, _ cli.Getenv, std cli.Stdio) (*flag.FlagSet, error) {
				fmt.Fprintln(std.Out, versionString())
				return nil, nil
			},
		},
		Status: scriptStatus,
	}.Run(ctx, args, env, std)
}

// scriptStatus is psql's exit status 3 for a script that stopped at an
// error.
func scriptStatus(err error) (int, bool) {
	return 3, errors.Is(err, errScriptStopped)
}
