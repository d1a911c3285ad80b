package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchMaintenanceConfig struct {
	bench.MaintenanceConfig
	JSON       bool
	CPUProfile string
}

// parseBenchMaintenance reads the flags of `magmalake-bench maintenance`.
func parseBenchMaintenance(args []string, env cli.Getenv) (benchMaintenanceConfig, *flag.FlagSet, error) {
	var cfg benchMaintenanceConfig
	fs := cli.NewFlagSet("magmalake-bench maintenance")
	var cases string
	fs.Int64Var(&cfg.Rows, "rows", 10_000_000, "rows of the generated table of the mor-v2 and mor-v3 cases")
	fs.IntVar(&cfg.Files, "files", 40, "data files of the generated table")
	fs.IntVar(&cfg.Deletes, "deletes", 20, "DELETE statements before the rewrite, each removing 1% of the rows from every file (at most 100)")
	fs.IntVar(&cfg.SmallInserts, "small-inserts", 2000, "one-row autocommit INSERTs of the small-files case")
	fs.IntVar(&cfg.Repeat, "repeat", 5, "timed runs of each query after a warm-up; medians are reported")
	fs.IntVar(&cfg.Rewrites, "rewrites", 3, "rounds in which each contender rewrites its copy, both rolled back between rounds; medians are reported")
	fs.Int64Var(&cfg.SizeThreshold, "file-size-threshold", 128<<20, "OPTIMIZE's file_size_threshold in bytes, and iceberg-go's minimum file size")
	fs.Float64Var(&cfg.RatioThreshold, "delete-ratio-threshold", 0.1, "OPTIMIZE's delete_ratio_threshold, and iceberg-go's")
	fs.Int64Var(&cfg.SplitTargetSize, "split-target-size", 0, "set every table's read.split.target-size to this many bytes (0: iceberg-go's default, 128 MiB; a file larger than it is planned as several tasks, which lose row-group pruning)")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per case instead of text")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the run here (labelled contender=optimize|icebergo, query=scan|selective)")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch warehouse (removed afterwards)")
	fs.StringVar(&cases, "case", "", "comma-separated cases: mor-v2, mor-v3, small-files (default all)")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.Rows <= 0 || cfg.Files <= 0 || cfg.Deletes <= 0 || cfg.SmallInserts <= 0 || cfg.Repeat <= 0 || cfg.Rewrites <= 0 || cfg.SizeThreshold <= 0 || cfg.SplitTargetSize < 0 {
		return cfg, fs, cli.Usagef("--rows, --files, --deletes, --small-inserts, --repeat, --rewrites and --file-size-threshold must be positive, --split-target-size not negative")
	}
	if cfg.Deletes > 100 || cfg.RatioThreshold <= 0 || cfg.RatioThreshold > 1 {
		return cfg, fs, cli.Usagef("--deletes must be at most 100, --delete-ratio-threshold in (0, 1]")
	}
	cfg.Cases = splitList(cases)
	return cfg, fs, nil
}

func runBenchMaintenance(ctx context.Context, cfg benchMaintenanceConfig, std cli.Stdio) error {
	stop, err := startCPUProfile(cfg.CPUProfile, "bench maintenance")
	if err != nil {
		return err
	}
	defer stop()
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	return bench.RunMaintenance(ctx, cfg.MaintenanceConfig, reportLine[bench.MaintenanceResult](std, cfg.JSON))
}
