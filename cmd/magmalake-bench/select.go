package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchSelectConfig struct {
	bench.SelectConfig
	JSON       bool
	CPUProfile string
	queries    string
}

// parseBenchSelect reads the flags of `magmalake-bench select`.
func parseBenchSelect(args []string, env cli.Getenv) (benchSelectConfig, *flag.FlagSet, error) {
	var cfg benchSelectConfig
	fs := cli.NewFlagSet("magmalake-bench select")
	fs.Int64Var(&cfg.Rows, "rows", 10_000_000, "rows of the fact table")
	fs.IntVar(&cfg.Files, "files", 40, "data files of each fact table")
	fs.Int64Var(&cfg.LookupRows, "lookup-rows", 1_000_000, "rows of the second table the point lookup also runs on")
	fs.IntVar(&cfg.Repeat, "repeat", 5, "timed runs of each query after a warm-up; medians are reported")
	fs.StringVar(&cfg.PGBin, "pg-bin", "/usr/lib/postgresql/15/bin", "PostgreSQL 15's bin directory (initdb, pg_ctl)")
	fs.StringVar(&cfg.DuckDBModules, "duckdb-modules", "", "directory whose node_modules holds @duckdb/node-api (bench/select.sh installs one)")
	fs.BoolVar(&cfg.NoPostgres, "no-postgres", false, "leave PostgreSQL out")
	fs.BoolVar(&cfg.NoDuckDB, "no-duckdb", false, "leave DuckDB out (required with an s3:// --warehouse: DuckDB reads magmalake's data files from disk)")
	fs.BoolVar(&cfg.JSON, "json", false, "the report as one JSON object instead of text")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the run here (magmalake's queries labelled query=...)")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch warehouse and PostgreSQL cluster (removed afterwards)")
	storageFlags(fs, &cfg.Storage, "magmalake's tables")
	fs.StringVar(&cfg.queries, "queries", "", "comma-separated query names to run (count, point-lookup, group-low-card, group-high-card, join-dim, window, top-n); default all")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.queries != "" {
		cfg.Queries = strings.Split(cfg.queries, ",")
	}
	if cfg.Rows <= 0 || cfg.Files <= 0 || cfg.LookupRows <= 0 || cfg.Repeat <= 0 {
		return cfg, fs, cli.Usagef("--rows, --files, --lookup-rows and --repeat must be positive")
	}
	if err := cfg.Storage.Check(); err != nil {
		return cfg, fs, cli.Usagef("%v", err)
	}
	return cfg, fs, nil
}

func runBenchSelect(ctx context.Context, cfg benchSelectConfig, std cli.Stdio) error {
	stop, err := startCPUProfile(cfg.CPUProfile, "bench select")
	if err != nil {
		return err
	}
	defer stop()
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	rep, err := bench.RunSelect(ctx, cfg.SelectConfig)
	if rep != nil { // printed even when answers differ: the figures show where
		if cfg.JSON {
			fmt.Fprintln(std.Out, rep.JSON())
		} else {
			for _, l := range rep.Lines() {
				fmt.Fprintln(std.Out, l)
			}
		}
	}
	return err
}
