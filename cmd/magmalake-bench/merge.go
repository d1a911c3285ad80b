package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchMergeConfig struct {
	bench.MergeConfig
	JSON       bool
	CPUProfile string
}

// parseBenchMerge reads the flags of `magmalake-bench merge`.
func parseBenchMerge(args []string, env cli.Getenv) (benchMergeConfig, *flag.FlagSet, error) {
	var cfg benchMergeConfig
	fs := cli.NewFlagSet("magmalake-bench merge")
	var layouts, modes, cases string
	fs.Int64Var(&cfg.Rows, "rows", 10_000_000, "rows of the target table")
	fs.IntVar(&cfg.Partitions, "partitions", 100, "identity(grp) partitions of the target, one data file each (the unpartitioned target has as many files)")
	fs.IntVar(&cfg.FlatPartitions, "flat-partitions", 10, "partitions of the second, smaller target the one-partition case also runs on (same partition size); 0: none")
	fs.Int64Var(&cfg.SourceRows, "source-rows", 100_000, "rows of the source: half update existing rows, half are new")
	fs.IntVar(&cfg.MaxRuns, "runs", 5, "most runs of a case on fresh copies (none started once the timed MERGEs and floors took 10 s); medians are reported")
	fs.StringVar(&cfg.DuckDBModules, "duckdb-modules", "", "directory whose node_modules holds @duckdb/node-api (bench/merge.sh installs one); empty: no DuckDB")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per case instead of text")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the run here (labelled contender=, case=, mode=, rows=)")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch warehouse (removed afterwards)")
	fs.StringVar(&layouts, "layout", "", "comma-separated layouts: unpartitioned, partitioned (default both)")
	fs.StringVar(&modes, "mode", "", "comma-separated modes: cow, mor-v2, mor-v3 (default all)")
	fs.StringVar(&cases, "case", "", "comma-separated cases: scattered, one-partition (default both)")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.Rows <= 0 || cfg.Partitions <= 0 || cfg.SourceRows <= 0 || cfg.MaxRuns <= 0 || cfg.FlatPartitions < 0 {
		return cfg, fs, cli.Usagef("--rows, --partitions, --source-rows and --runs must be positive, --flat-partitions not negative")
	}
	if cfg.FlatPartitions == 0 {
		cfg.FlatPartitions = -1 // the library's "none"
	}
	cfg.Layouts = splitAs[bench.Layout](layouts)
	cfg.Modes = splitAs[bench.Mode](modes)
	cfg.Cases = splitList(cases)
	return cfg, fs, nil
}

func runBenchMerge(ctx context.Context, cfg benchMergeConfig, std cli.Stdio) error {
	stop, err := startCPUProfile(cfg.CPUProfile, "bench merge")
	if err != nil {
		return err
	}
	defer stop()
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	return bench.RunMerge(ctx, cfg.MergeConfig, reportLine[bench.MergeResult](std, cfg.JSON))
}
