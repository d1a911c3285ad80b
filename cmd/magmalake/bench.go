package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/exec/bench"
)

type benchConfig struct {
	bench.Config
	JSON bool
}

// benchCommand is `magmalake bench ...`.
func benchCommand(ctx context.Context, args []string, env Getenv, std stdio) (*flag.FlagSet, error) {
	cfg, fs, err := parseBench(args, env)
	if err != nil {
		return fs, err
	}
	return fs, runBench(ctx, cfg, std)
}

// parseBench reads `magmalake bench delete [flags]`.
func parseBench(args []string, env Getenv) (benchConfig, *flag.FlagSet, error) {
	var cfg benchConfig
	if len(args) == 0 || args[0] != "delete" {
		return cfg, nil, usagef("bench: want a benchmark name: magmalake bench delete [flags]")
	}
	fs := newFlagSet("bench delete")
	var layouts, modes, cases string
	fs.Int64Var(&cfg.Rows, "rows", 10_000_000, "rows of the generated table")
	fs.IntVar(&cfg.Files, "files", 40, "data files of the generated table")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per case instead of text")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch warehouse (removed afterwards)")
	fs.StringVar(&layouts, "layout", "", "comma-separated layouts: unpartitioned, partitioned (default both)")
	fs.StringVar(&modes, "mode", "", "comma-separated modes: cow, mor-v2, mor-v3 (default all)")
	fs.StringVar(&cases, "case", "", "comma-separated cases: scattered-1pct, range-10pct, partition (default all)")
	if err := parse(fs, args[1:], 0); err != nil {
		return cfg, fs, err
	}
	if cfg.Rows <= 0 || cfg.Files <= 0 || int64(cfg.Files) > cfg.Rows {
		return cfg, fs, usagef("--rows and --files must be positive, with at least one row per file")
	}
	for _, s := range splitList(layouts) {
		cfg.Layouts = append(cfg.Layouts, bench.Layout(s))
	}
	for _, s := range splitList(modes) {
		cfg.Modes = append(cfg.Modes, bench.Mode(s))
	}
	cfg.Cases = splitList(cases)
	return cfg, fs, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func runBench(ctx context.Context, cfg benchConfig, std stdio) error {
	cfg.Progress = func(msg string) { fmt.Fprintln(std.err, msg) }
	return bench.Run(ctx, cfg.Config, func(r bench.Result) error {
		if cfg.JSON {
			_, err := fmt.Fprintln(std.out, r.JSON())
			return err
		}
		_, err := fmt.Fprintln(std.out, r.Line())
		return err
	})
}
