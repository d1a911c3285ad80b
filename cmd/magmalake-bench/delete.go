package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchDeleteConfig struct {
	bench.Config
	JSON       bool
	CPUProfile string
}

// parseBenchDelete reads the flags of `magmalake-bench delete`.
func parseBenchDelete(args []string, env cli.Getenv) (benchDeleteConfig, *flag.FlagSet, error) {
	var cfg benchDeleteConfig
	fs := cli.NewFlagSet("magmalake-bench delete")
	var layouts, modes, cases string
	fs.Int64Var(&cfg.Rows, "rows", 10_000_000, "rows of the generated table")
	fs.IntVar(&cfg.Files, "files", 40, "data files of the generated table")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per case instead of text")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch warehouse (removed afterwards)")
	fs.StringVar(&layouts, "layout", "", "comma-separated layouts: unpartitioned, partitioned (default both)")
	fs.StringVar(&modes, "mode", "", "comma-separated modes: cow, mor-v2, mor-v3 (default all)")
	fs.StringVar(&cases, "case", "", "comma-separated cases: scattered-1pct, range-10pct, partition (default all)")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the run here (contenders labelled contender=...)")
	storageFlags(fs, &cfg.Storage, "the tables' files")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.Rows <= 0 || cfg.Files <= 0 || int64(cfg.Files) > cfg.Rows {
		return cfg, fs, cli.Usagef("--rows and --files must be positive, with at least one row per file")
	}
	if err := cfg.Storage.Check(); err != nil {
		return cfg, fs, cli.Usagef("%v", err)
	}
	cfg.Layouts = splitAs[bench.Layout](layouts)
	cfg.Modes = splitAs[bench.Mode](modes)
	cfg.Cases = splitList(cases)
	return cfg, fs, nil
}

func runBenchDelete(ctx context.Context, cfg benchDeleteConfig, std cli.Stdio) error {
	stop, err := startCPUProfile(cfg.CPUProfile, "bench delete")
	if err != nil {
		return err
	}
	defer stop()
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	return bench.Run(ctx, cfg.Config, reportLine[bench.Result](std, cfg.JSON))
}
