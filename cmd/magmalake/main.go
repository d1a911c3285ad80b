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
  bench    benchmarks: "bench delete" compares DELETE with iceberg-go's,
           "bench overwrite" times dynamic overwrite and UPDATE modes,
           "bench select" times queries beside PostgreSQL and DuckDB,
           "bench merge" times MERGE beside its floor and DuckDB,
           "bench contention" races writers on several servers of one lake
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
	if len(args) == 0 {
		fmt.Fprint(std.Err, usage)
		return 2
	}
	var (
		fs  *flag.FlagSet
		err error
	)
	switch args[0] {
	case "repl":
		var cfg replConfig
		if cfg, fs, err = parseRepl(args[1:], env); err == nil {
			err = runRepl(ctx, cfg, std)
		}
	case "serve":
		var cfg serveConfig
		if cfg, fs, err = parseServe(args[1:], env); err == nil {
			err = runServe(ctx, cfg, std)
		}
	case "passwd":
		var cfg passwdConfig
		if cfg, fs, err = parsePasswd(args[1:], env); err == nil {
			err = runPasswd(cfg, std)
		}
	case "bench":
		fs, err = benchCommand(ctx, args[1:], env, std)
	case "version":
		fmt.Fprintln(std.Out, versionString())
	case "help", "-h", "-help", "--help":
		fmt.Fprint(std.Out, usage)
	default:
		fmt.Fprintf(std.Err, "magmalake: unknown command %q\n%s", args[0], usage)
		return 2
	}
	return exitStatus(err, fs, std)
}

// exitStatus is cli.ExitStatus, and 3 for a script that stopped at an
// error (psql's ON_ERROR_STOP).
func exitStatus(err error, fs *flag.FlagSet, std cli.Stdio) int {
	if errors.Is(err, errScriptStopped) {
		return 3
	}
	return cli.ExitStatus("magmalake", err, fs, std)
}
