package bench

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// BenchmarkRun runs a scaled-down bench (MAGMALAKE_BENCH_ROWS rows, default
// 1M, in MAGMALAKE_BENCH_FILES files, default 8; MAGMALAKE_BENCH_RUNS caps
// the repetitions of a case) once per iteration, for
// profiling: go test -bench Run -cpuprofile cpu.out, then
// go tool pprof -tagfocus contender=magmalake cpu.out.
func BenchmarkRun(b *testing.B) {
	rows, files := envInt("MAGMALAKE_BENCH_ROWS", 1_000_000), envInt("MAGMALAKE_BENCH_FILES", 8)
	cfg := Config{Dir: b.TempDir(), Rows: int64(rows), Files: files, MaxRuns: envInt("MAGMALAKE_BENCH_RUNS", 0)}
	if m := os.Getenv("MAGMALAKE_BENCH_MODE"); m != "" {
		cfg.Modes = []Mode{Mode(m)}
	}
	if c := os.Getenv("MAGMALAKE_BENCH_CASE"); c != "" {
		cfg.Cases = []string{c}
	}
	if l := os.Getenv("MAGMALAKE_BENCH_LAYOUT"); l != "" {
		cfg.Layouts = []Layout{Layout(l)}
	}
	for b.Loop() {
		err := Run(context.Background(), cfg, func(r Result) error {
			b.Log(r.Line())
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
