package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchTPCHConfig struct {
	bench.TPCHConfig
	JSON    bool
	queries string
}

// parseBenchTPCH reads the flags of `magmalake-bench tpch`.
func parseBenchTPCH(args []string, env cli.Getenv) (benchTPCHConfig, *flag.FlagSet, error) {
	var cfg benchTPCHConfig
	fs := cli.NewFlagSet("magmalake-bench tpch")
	fs.Float64Var(&cfg.SF, "sf", 1, "TPC-H scale factor (fractions allowed: 0.01 is 60,000 lineitems)")
	fs.StringVar(&cfg.Binary, "binary", "", "magmalake executable to serve with (default: the magmalake beside this executable, else on PATH)")
	fs.StringVar(&cfg.WorkMem, "work-mem", "", "magmalake's work_mem (e.g. 256MB; default: the server's)")
	fs.DurationVar(&cfg.Timeout, "timeout", 300*time.Second, "bound on each query in each system")
	fs.IntVar(&cfg.Repeat, "repeat", 1, "timed runs of each query; medians are reported")
	fs.StringVar(&cfg.PGBin, "pg-bin", "/usr/lib/postgresql/15/bin", "PostgreSQL 15's bin directory (initdb, pg_ctl)")
	fs.StringVar(&cfg.DuckDBModules, "duckdb-modules", "", "directory whose node_modules holds @duckdb/node-api (bench/select.sh installs one)")
	fs.BoolVar(&cfg.NoPostgres, "no-postgres", false, "leave PostgreSQL out (magmalake's answers are then unchecked)")
	fs.BoolVar(&cfg.NoDuckDB, "no-duckdb", false, "leave DuckDB out")
	fs.BoolVar(&cfg.JSON, "json", false, "the report as one JSON object instead of text")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the generated data, the warehouse and the PostgreSQL cluster (removed afterwards)")
	fs.StringVar(&cfg.queries, "queries", "", "comma-separated queries to run (Q1,...,Q22); default all")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.queries != "" {
		cfg.Queries = strings.Split(cfg.queries, ",")
	}
	if cfg.SF <= 0 || cfg.Repeat <= 0 || cfg.Timeout <= 0 {
		return cfg, fs, cli.Usagef("--sf, --repeat and --timeout must be positive")
	}
	return cfg, fs, nil
}

func runBenchTPCH(ctx context.Context, cfg benchTPCHConfig, std cli.Stdio) error {
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	rep, err := bench.RunTPCH(ctx, cfg.TPCHConfig)
	if rep != nil && len(rep.Results) > 0 { // printed even when answers differ: the figures show where
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
