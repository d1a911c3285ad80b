package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/cli"
)

type benchContentionConfig struct {
	bench.ContentionConfig
	JSON bool
}

// parseBenchContention reads the flags of `magmalake-bench contention`.
func parseBenchContention(args []string, env cli.Getenv) (benchContentionConfig, *flag.FlagSet, error) {
	var cfg benchContentionConfig
	fs := cli.NewFlagSet("magmalake-bench contention")
	var scenarios, modes, soakModes string
	fs.StringVar(&cfg.Binary, "binary", "", "magmalake executable the servers run (default: the magmalake beside this executable, else on PATH)")
	fs.IntVar(&cfg.Servers, "servers", 3, "magmalake serve processes on the one catalog and warehouse")
	fs.StringVar(&cfg.DataDir, "data", "", "every server's --data (default: a scratch directory under --dir, removed afterwards)")
	fs.StringVar(&cfg.Dir, "dir", env("TMPDIR"), "directory for the scratch data directory")
	fs.Func("catalog-prop", "catalog property key=value passed to every server and to the iceberg-go read-back, repeatable", func(s string) error {
		cfg.CatalogProps = append(cfg.CatalogProps, s)
		return nil
	})
	fs.StringVar(&cfg.Warehouse, "warehouse", "", "warehouse location passed to every server")
	fs.DurationVar(&cfg.AutoVacuum, "auto-vacuum", 0, "every server's --auto-vacuum: background maintenance this often (0: none)")
	fs.DurationVar(&cfg.SnapshotRetention, "snapshot-retention", 0, "the tables' history.expire.max-snapshot-age-ms, how long maintenance keeps their snapshots (0: Iceberg's 5 days)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the tables and the scratch data directory")
	fs.StringVar(&scenarios, "scenario", "", "comma-separated scenarios: deletes, soak (default both)")
	fs.IntVar(&cfg.Rows, "rows", 4000, "rows of each generated table")
	fs.IntVar(&cfg.Files, "files", 8, "data files each generated table is written in")
	fs.StringVar(&modes, "mode", "", "comma-separated table modes of the deletes scenario: v2-cow, v2-mor, v3-cow, v3-mor (default all)")
	fs.IntVar(&cfg.DeleteSessions, "sessions", 4, "sessions of the deletes scenario: one erasure job, the rest retention jobs")
	fs.IntVar(&cfg.DeletesPerSession, "deletes", 50, "DELETE statements per session of the deletes scenario")
	fs.BoolVar(&cfg.ParallelModes, "parallel-modes", false, "run a scenario's table modes at once instead of one after the other")
	fs.StringVar(&soakModes, "soak-mode", "v3-mor", "comma-separated table modes of the soak")
	fs.IntVar(&cfg.SoakSessions, "soak-sessions", 8, "sessions of the soak")
	fs.DurationVar(&cfg.SoakDuration, "soak-duration", 60*time.Second, "how long the soak issues statements")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the soak's statement choices")
	fs.DurationVar(&cfg.StatementTimeout, "statement-timeout", 2*time.Minute, "client-side bound on one statement")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per scenario and mode instead of text")
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	if cfg.Servers <= 0 || cfg.Rows <= 0 || cfg.Files <= 0 || cfg.DeleteSessions < 2 || cfg.DeletesPerSession <= 0 ||
		cfg.SoakSessions <= 0 || cfg.SoakDuration <= 0 || cfg.StatementTimeout <= 0 {
		return cfg, fs, cli.Usagef("--servers, --rows, --files, --deletes, --soak-sessions and the durations must be positive, --sessions at least 2")
	}
	cfg.Scenarios = splitList(scenarios)
	cfg.DeleteModes = splitAs[bench.TableMode](modes)
	cfg.SoakModes = splitAs[bench.TableMode](soakModes)
	return cfg, fs, nil
}

// runBenchContention prints every result, then a summary line per
// scenario; a wrong result or a failed statement of the deletes scenario
// makes the exit status 1, after everything is printed.
func runBenchContention(ctx context.Context, cfg benchContentionConfig, std cli.Stdio) error {
	cfg.Progress = func(msg string) { fmt.Fprintln(std.Err, msg) }
	results, err := bench.RunContention(ctx, cfg.ContentionConfig, reportLine[bench.ContentionResult](std, cfg.JSON))
	if !cfg.JSON {
		for _, l := range bench.ContentionSummary(results) {
			fmt.Fprintln(std.Out, l)
		}
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if len(r.Failures()) > 0 {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("bench contention: %d of %d scenario runs failed their checks", failed, len(results))
	}
	return nil
}
