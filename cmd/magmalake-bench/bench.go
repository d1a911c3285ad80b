package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

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

// splitAs is splitList's items as T (a mode, a layout).
func splitAs[T ~string](s string) []T {
	var out []T
	for _, f := range splitList(s) {
		out = append(out, T(f))
	}
	return out
}

// reportLine prints each result as a line of text or of JSON.
func reportLine[R interface {
	Line() string
	JSON() string
}](std cli.Stdio, asJSON bool) func(R) error {
	return func(r R) error {
		line := r.Line()
		if asJSON {
			line = r.JSON()
		}
		_, err := fmt.Fprintln(std.Out, line)
		return err
	}
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

// storageFlags are --warehouse and --catalog-prop, spelled as bench
// contention's and serve's, for the benchmarks that can also run on object
// storage; what names what goes where.
func storageFlags(fs *flag.FlagSet, st *bench.Storage, what string) {
	fs.StringVar(&st.Warehouse, "warehouse", "", "put "+what+" under this location (s3://bucket/prefix, a fresh prefix per run, removed afterwards) instead of --dir; the catalog stays in --dir")
	fs.Func("catalog-prop", "file IO property key=value for --warehouse (s3.endpoint, s3.region, s3.access-key-id, s3.secret-access-key, s3.force-virtual-addressing), repeatable", func(s string) error {
		st.CatalogProps = append(st.CatalogProps, s)
		return nil
	})
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

// startCPUProfile writes a CPU profile to path (none when empty) until
// stop is called.
func startCPUProfile(path, what string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
