package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

// parseBenchCancel reads the flags of `magmalake-bench cancel`.
func parseBenchCancel(args []string, env cli.Getenv) (bench.CancelConfig, *flag.FlagSet, error) {
	var cfg bench.CancelConfig
	fs := cli.NewFlagSet("magmalake-bench cancel")
	fs.StringVar(&cfg.Binary, "binary", "", "magmalake executable to serve with (default: the magmalake beside this executable, else on PATH)")
	fs.IntVar(&cfg.Rows, "rows", 2_000_000, "rows of the generated table")
	fs.IntVar(&cfg.Tries, "tries", 20, "cancels per statement shape")
	fs.StringVar(&cfg.WorkMem, "work-mem", "", "the server's work_mem (e.g. 1MB to cancel spilling operators; default: the server's)")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "scratch directory for the server's data (removed afterwards)")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.Rows <= 0 || cfg.Tries <= 0 {
		return cfg, fs, cli.Usagef("--rows and --tries must be positive")
	}
	return cfg, fs, nil
}

func runBenchCancel(ctx context.Context, cfg bench.CancelConfig, std cli.Stdio) error {
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	rep, err := bench.RunCancel(ctx, cfg)
	if rep != nil {
		for _, l := range rep.Lines() {
			fmt.Fprintln(std.Out, l)
		}
	}
	return err
}
