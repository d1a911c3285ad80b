// Command magmalake serves SQL on Apache Iceberg tables over the PostgreSQL
// wire protocol (serve) or in a terminal (repl).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
	applyGCPolicy(os.Getenv)
	os.Exit(run(context.Background(), os.Args[1:], os.Getenv, stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// stdio are the streams a command talks to.
type stdio struct {
	in       *os.File
	out, err io.Writer
}

// run dispatches to a command and turns its outcome into an exit status:
// 0 success, 1 failure, 2 bad usage, 3 a script stopped at an error
// (psql's ON_ERROR_STOP).
func run(ctx context.Context, args []string, env Getenv, std stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.err, usage)
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
		fmt.Fprintln(std.out, versionString())
	case "help", "-h", "-help", "--help":
		fmt.Fprint(std.out, usage)
	default:
		fmt.Fprintf(std.err, "magmalake: unknown command %q\n%s", args[0], usage)
		return 2
	}
	return exitStatus(err, fs, std)
}

func exitStatus(err error, fs *flag.FlagSet, std stdio) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(std.out, "usage of %s:\n", fs.Name())
		fs.SetOutput(std.out)
		fs.PrintDefaults()
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(std.err, "magmalake: %s\n", ue.msg)
		return 2
	case errors.Is(err, errScriptStopped):
		return 3
	case errors.Is(err, errReported):
		return 1
	default:
		fmt.Fprintf(std.err, "magmalake: %v\n", err)
		return 1
	}
}
