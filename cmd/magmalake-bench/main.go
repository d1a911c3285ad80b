// Command magmalake-bench runs magmalake's benchmarks (package bench): the
// engine in this process beside iceberg-go, PostgreSQL or DuckDB, or
// several `magmalake serve` processes on one lake. The server binary,
// cmd/magmalake, does not carry them.
package main

import (
	"context"
	"os"

	"github.com/magmalake/magmalake/internal/cli"
)

const usage = `usage: magmalake-bench <benchmark> [flags]

benchmarks:
  delete       compares DELETE with iceberg-go's
  overwrite    times dynamic overwrite and UPDATE modes
  select       times queries beside PostgreSQL and DuckDB
  merge        times MERGE beside its floor and DuckDB
  maintenance  times OPTIMIZE beside iceberg-go's RewriteDataFiles
  contention   races writers on several magmalake servers of one lake
  tpch         runs the 22 TPC-H queries beside PostgreSQL and DuckDB
  cancel       times how fast running statements end on a CancelRequest

"magmalake-bench <benchmark> -h" lists a benchmark's flags.
`

func main() {
	// The engine runs in this process: under the server's collector policy.
	cli.ApplyGCPolicy(os.Getenv)
	os.Exit(run(context.Background(), os.Args[1:], os.Getenv, cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// run dispatches to a benchmark and turns its outcome into an exit status:
// 0 success, 1 failure, 2 bad usage.
func run(ctx context.Context, args []string, env cli.Getenv, std cli.Stdio) int {
	return cli.Program{
		Name:  "magmalake-bench",
		Usage: usage,
		Noun:  "benchmark",
		Commands: map[string]cli.Command{
			"delete":      cli.Parsed(parseBenchDelete, runBenchDelete),
			"overwrite":   cli.Parsed(parseBenchOverwrite, runBenchOverwrite),
			"select":      cli.Parsed(parseBenchSelect, runBenchSelect),
			"merge":       cli.Parsed(parseBenchMerge, runBenchMerge),
			"maintenance": cli.Parsed(parseBenchMaintenance, runBenchMaintenance),
			"contention":  cli.Parsed(parseBenchContention, runBenchContention),
			"tpch":        cli.Parsed(parseBenchTPCH, runBenchTPCH),
			"cancel":      cli.Parsed(parseBenchCancel, runBenchCancel),
		},
	}.Run(ctx, args, env, std)
}
