package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchOverwriteConfig struct {
	bench.OverwriteConfig
	JSON       bool
	CPUProfile string
}

// parseBenchOverwrite reads the flags of `magmalake-bench overwrite`.
func parseBenchOverwrite(args []string, env cli.Getenv) (benchOverwriteConfig, *flag.FlagSet, error) {
	var cfg benchOverwriteConfig
	fs := cli.NewFlagSet("magmalake-bench overwrite")
	var sizes, modes, cases string
	fs.StringVar(&sizes, "sizes", "1000000,10000000", "comma-separated table sizes in rows")
	fs.IntVar(&cfg.Partitions, "partitions", 100, "identity(grp) partitions of the table, one data file each")
	fs.Int64Var(&cfg.NewRows, "new-rows", 100_000, "rows the dynamic overwrite writes into its partition")
	fs.IntVar(&cfg.Repeat, "repeat", 5, "runs of every contender; median and minimum are reported")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per case instead of text")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the run here (contenders labelled contender=...)")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch warehouse (removed afterwards)")
	fs.StringVar(&modes, "mode", "", "comma-separated UPDATE modes against copy-on-write: mor-v2, mor-v3 (default both)")
	fs.StringVar(&cases, "case", "", "comma-separated cases: dynamic-overwrite, update-1pct (default both)")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	for _, s := range splitList(sizes) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return cfg, fs, cli.Usagef("--sizes: %q is not a positive row count", s)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	if cfg.Partitions <= 0 || cfg.NewRows <= 0 || cfg.Repeat <= 0 {
		return cfg, fs, cli.Usagef("--partitions, --new-rows and --repeat must be positive")
	}
	cfg.Modes = splitAs[bench.Mode](modes)
	cfg.Cases = splitList(cases)
	return cfg, fs, nil
}

func runBenchOverwrite(ctx context.Context, cfg benchOverwriteConfig, std cli.Stdio) error {
	stop, err := startCPUProfile(cfg.CPUProfile, "bench overwrite")
	if err != nil {
		return err
	}
	defer stop()
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	return bench.RunOverwrite(ctx, cfg.OverwriteConfig, reportLine[bench.OverwriteResult](std, cfg.JSON))
}
