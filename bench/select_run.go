package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
)

// System names, in reports and pprof labels.
const (
	sysMagmalake = "magmalake"
	sysPostgres  = "postgres"
	sysDuckDB    = "duckdb"
)

var sessionInfo = stmt.SessionInfo{User: "bench", Database: "bench"}

// SelectResult is one query on one table in the three systems: median wall
// times over the timed runs (each after one untimed warm-up).
type SelectResult struct {
	Query   string `json:"query"`
	Table   string `json:"table"`
	Storage string `json:"storage"` // where magmalake's warehouse is: local, s3
	Rows    int64  `json:"rows"`    // the fact table's
	SQL     string `json:"sql"`
	// Error is magmalake's, when it could not run the query; the other
	// systems still ran it.
	Error       string  `json:"error,omitempty"`
	MagmalakeMs float64 `json:"magmalake_ms"`
	// MagmalakeCPUMs is the process's CPU time (user + system, all
	// threads) per run: the engine's work, less disturbed by other load.
	MagmalakeCPUMs float64 `json:"magmalake_cpu_ms"`
	PostgresMs     float64 `json:"postgres_ms"`
	PostgresError  string  `json:"postgres_error,omitempty"`
	DuckDBMs       float64 `json:"duckdb_ms"`
	DuckDBCPUMs    float64 `json:"duckdb_cpu_ms"` // the node process's, DuckDB's threads included
	DuckDBError    string  `json:"duckdb_error,omitempty"`
	// PeakHeapBytes is magmalake's Go heap at its highest during the timed runs.
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
	// ReadBytes is what magmalake read from files per run (rchar).
	ReadBytes  int64    `json:"read_bytes"`
	Runs       int      `json:"runs"`
	ResultRows int      `json:"result_rows"`
	Agree      []string `json:"agree"` // systems whose answer matched the reference
}

// VsPostgres is magmalake's time over PostgreSQL's (below 1: magmalake is faster).
func (r SelectResult) VsPostgres() float64 { return ratio(r.MagmalakeMs, r.PostgresMs) }

// VsDuckDB is magmalake's time over DuckDB's.
func (r SelectResult) VsDuckDB() float64 { return ratio(r.MagmalakeMs, r.DuckDBMs) }

func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// timeMagmalake runs the query once untimed, then Repeat times under the
// heap sampler and pprof labels; it returns the last run's answer, or nil
// with res.Error set.
func (r *selectRunner) timeMagmalake(ctx context.Context, s *session.Session, res *SelectResult) [][]cell {
	var rows [][]cell
	var err error
	labels := pprof.Labels("contender", sysMagmalake, "query", res.Query, "rows", fmt.Sprint(res.Rows))
	pprof.Do(ctx, labels, func(ctx context.Context) {
		if rows, err = mlRun(ctx, s, res.SQL); err != nil {
			return
		}
		var wall, cpu, read []float64
		hp := startHeapPeak()
		for !enoughRuns(wall, r.cfg.Repeat) {
			c0, b0, t0 := processCPU(), readBytes(), time.Now()
			if rows, err = mlRun(ctx, s, res.SQL); err != nil {
				break
			}
			wall = append(wall, ms(time.Since(t0)))
			cpu = append(cpu, ms(processCPU()-c0))
			read = append(read, float64(readBytes()-b0))
		}
		res.PeakHeapBytes = hp.Stop()
		res.Runs = len(wall)
		res.MagmalakeMs, res.MagmalakeCPUMs, res.ReadBytes = median(wall), median(cpu), int64(median(read))
	})
	if err != nil {
		res.Error = err.Error()
		return nil
	}
	return rows
}

// timePostgres is timeMagmalake for PostgreSQL: the time a client waits
// for the whole answer over a Unix socket.
func (r *selectRunner) timePostgres(ctx context.Context, res *SelectResult) [][]cell {
	rows, err := r.pg.run(ctx, res.SQL)
	var wall []float64
	for err == nil && !enoughRuns(wall, r.cfg.Repeat) {
		t0 := time.Now()
		rows, err = r.pg.run(ctx, res.SQL)
		wall = append(wall, ms(time.Since(t0)))
	}
	if err != nil {
		res.PostgresError = err.Error()
		return nil
	}
	res.PostgresMs = median(wall)
	return rows
}

// timeDuckDB runs every query in one DuckDB process, timed inside it.
func (r *selectRunner) timeDuckDB(ctx context.Context, results []SelectResult, answers []map[string][][]cell) error {
	req := duckdbRequest{Setup: duckdbViews(r.files), Warmup: 1, Repeat: r.cfg.Repeat}
	for _, res := range results {
		req.Queries = append(req.Queries, duckdbQuery{Name: res.Query, SQL: res.SQL})
	}
	reply, err := runDuckDB(ctx, r.cfg.DuckDBModules, r.ws.dir, req)
	if err != nil {
		return err
	}
	if len(reply.Results) != len(results) {
		return fmt.Errorf("duckdb: %d results for %d queries", len(reply.Results), len(results))
	}
	r.report.DuckDBVersion = reply.Version
	for i, d := range reply.Results {
		if d.Error != "" {
			results[i].DuckDBError = d.Error
			continue
		}
		results[i].DuckDBMs, results[i].DuckDBCPUMs = median(d.Ms), median(d.CPUMs)
		answers[i][sysDuckDB] = d.cells()
	}
	return nil
}

// probeCount finds out whether count(*) reads data files: it moves the fact
// table's data directory away and asks again. An answer without the files
// can only have come from metadata. Object storage has no directory to
// move, so there only EXPLAIN ANALYZE is reported.
func (r *selectRunner) probeCount(ctx context.Context, s *session.Session) error {
	q := selectQueries(r.cfg.Rows)[0].text(factTable)
	explain, err := mlExplain(ctx, s, q)
	if err != nil {
		r.report.CountProbe = err.Error()
		return nil
	}
	r.report.CountExplain = explain
	if r.ws.remote != "" {
		r.report.CountProbe = "not probed: the data files are on " + r.ws.storage
		return nil
	}
	dir := filepath.Dir(r.files[factTable][0])
	for _, p := range r.files[factTable] {
		if filepath.Dir(p) != dir {
			return fmt.Errorf("count probe: data files in more than one directory (%s, %s)", dir, p)
		}
	}
	moved := dir + ".moved"
	if err := os.Rename(dir, moved); err != nil {
		return fmt.Errorf("count probe: %w", err)
	}
	_, err = mlRun(ctx, s, q)
	if rerr := os.Rename(moved, dir); rerr != nil {
		return fmt.Errorf("count probe: restoring the data files: %w", rerr)
	}
	r.report.CountMetadataOnly = err == nil
	r.report.CountProbe = "answered without the data files"
	if err != nil {
		r.report.CountProbe = "needs the data files: " + err.Error()
	}
	return nil
}

// A slow query stops repeating after minRuns once its timed runs took
// runBudget: three runs still give a median, and a full-size run of every
// query stays within minutes. A fast one repeats past --repeat until its
// runs took shortBudget (at most maxRuns): a median of five runs of a few
// milliseconds moves with whatever else the machine did in those
// milliseconds. bench/select_duckdb.cjs repeats by the same rule.
const (
	minRuns     = 3
	runBudget   = 30 * time.Second
	shortBudget = time.Second
	maxRuns     = 200
)

// enoughRuns says whether the runs so far (ms each) suffice.
func enoughRuns(runs []float64, repeat int) bool {
	var spent float64
	for _, v := range runs {
		spent += v
	}
	if len(runs) >= repeat {
		return spent >= ms(shortBudget) || len(runs) >= max(repeat, maxRuns)
	}
	return len(runs) >= min(minRuns, repeat) && spent >= ms(runBudget)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
