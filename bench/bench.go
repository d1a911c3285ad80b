// Package bench is `magmalake-bench delete`: it measures magmalake's DELETE
// (through a real session.Session) against iceberg-go's Transaction.Delete for
// the same predicate on identical copies of a generated table, and against
// the physical floor done by hand with arrow-go's Parquet reader.
package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
)

// Config sizes and selects the benchmark. The zero value is the full run.
type Config struct {
	Dir string // working directory (its warehouse is removed afterwards); empty: a temp dir
	// Storage puts the tables' files on object storage instead of Dir.
	Storage
	Rows    int64    // rows of the generated table; default 10,000,000
	Files   int      // data files; default 40
	Layouts []Layout // default both
	Modes   []Mode   // default all three
	Cases   []string // predicate names (scattered-1pct, range-10pct, partition); default all
	// MaxRuns caps how often a cheap case repeats; default caseRuns.
	MaxRuns int
	// CaseBudget: no further run of a case starts once its runs took this
	// long; default caseBudget.
	CaseBudget time.Duration
	// Progress, when set, is told what is being prepared (generation takes a while).
	Progress func(msg string)
}

// Result is one case: the same delete done by both engines and by the floor.
type Result struct {
	Case          string  `json:"case"` // layout/predicate
	Mode          Mode    `json:"mode"`
	Storage       string  `json:"storage"` // where the warehouse is: local, s3
	Rows          int64   `json:"rows"`
	RowsDeleted   int64   `json:"rows_deleted"`
	MagmalakeMs   float64 `json:"magmalake_ms"`
	IcebergoMs    float64 `json:"icebergo_ms"`
	FloorMs       float64 `json:"floor_ms"`
	PeakHeapBytes uint64  `json:"peak_heap_bytes"` // magmalake's DELETE
	// IcebergoPeakHeapBytes is iceberg-go's, for comparison.
	IcebergoPeakHeapBytes uint64 `json:"icebergo_peak_heap_bytes"`
	// CPU time of the process while each ran (all cores, GC included).
	MagmalakeCPUMs float64 `json:"magmalake_cpu_ms"`
	IcebergoCPUMs  float64 `json:"icebergo_cpu_ms"`
	FloorCPUMs     float64 `json:"floor_cpu_ms"`
	// Runs is how many times the case ran; times are medians over them.
	Runs int `json:"runs"`
}

// Speedup is iceberg-go's time over ours.
func (r Result) Speedup() float64 { return r.IcebergoMs / r.MagmalakeMs }

// OverFloor is our time over the floor's (0 when the floor did no I/O).
func (r Result) OverFloor() float64 {
	if r.FloorMs <= 0 {
		return 0
	}
	return r.MagmalakeMs / r.FloorMs
}

func (c Config) withDefaults() Config {
	if c.Rows <= 0 {
		c.Rows = 10_000_000
	}
	if c.Files <= 0 {
		c.Files = 40
	}
	if len(c.Layouts) == 0 {
		c.Layouts = []Layout{Unpartitioned, Partitioned}
	}
	if len(c.Modes) == 0 {
		c.Modes = allModes
	}
	if c.MaxRuns <= 0 {
		c.MaxRuns = caseRuns
	}
	if c.CaseBudget <= 0 {
		c.CaseBudget = caseBudget
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c
}

// Run generates each layout once and runs every selected case on fresh
// copies, calling report after each. Counts that disagree between magmalake,
// iceberg-go and the floor fail the run: a fast wrong answer is no result.
func Run(ctx context.Context, cfg Config, report func(Result) error) (err error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	ws, err := openWorkspace(ctx, cfg.Dir, cfg.Storage)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer func() {
		if cerr := ws.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("bench: clean up: %w", cerr))
		}
	}()
	if ws.remote != "" {
		cfg.Progress("warehouse: " + ws.remote)
	}
	r := &runner{cfg: cfg, wh: ws.wh, eng: ws.eng, tmp: ws.dir, storage: ws.storage}
	for _, l := range cfg.Layouts {
		if err := r.layout(ctx, l, report); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) check() error {
	if int64(c.Files) > c.Rows {
		return fmt.Errorf("%d files need at least as many rows (have %d)", c.Files, c.Rows)
	}
	for _, l := range c.Layouts {
		if l != Unpartitioned && l != Partitioned {
			return fmt.Errorf("unknown layout %q (unpartitioned, partitioned)", l)
		}
	}
	for _, m := range c.Modes {
		if !slices.Contains(allModes, m) {
			return fmt.Errorf("unknown mode %q (cow, mor-v2, mor-v3)", m)
		}
	}
	known := []string{caseScattered, caseRange, casePartition}
	for _, n := range c.Cases {
		if !slices.Contains(known, n) {
			return fmt.Errorf("unknown case %q (%s, %s, %s)", n, caseScattered, caseRange, casePartition)
		}
	}
	return nil
}

// workspace is a run's scratch directory with a warehouse and an engine on it.
type workspace struct {
	dir     string
	wh      *lake.Warehouse
	eng     *session.Engine
	storage string            // Storage.Kind of the warehouse
	remote  string            // the run's own warehouse prefix when not in dir
	props   map[string]string // the file IO's properties, to remove remote
}

// openWorkspace makes a fresh directory (under dir, or the system's temp
// directory) holding the run's catalog and, unless st names another
// location, its warehouse; close removes both.
func openWorkspace(ctx context.Context, dir string, st Storage) (*workspace, error) {
	if err := st.Check(); err != nil {
		return nil, err
	}
	d, err := os.MkdirTemp(dir, "magmalake-bench-")
	if err != nil {
		return nil, err
	}
	cfg, remote, err := st.config(d)
	if err != nil {
		os.RemoveAll(d)
		return nil, err
	}
	ws := &workspace{dir: d, storage: st.Kind(), remote: remote, props: cfg.CatalogProps}
	if ws.wh, err = lake.Open(ctx, cfg); err != nil {
		os.RemoveAll(d)
		return nil, err
	}
	if ws.eng, err = session.NewEngine(ctx, ws.wh, session.EngineOptions{}); err != nil {
		ws.close()
		return nil, err
	}
	return ws, nil
}

// close removes the scratch directory and the run's files elsewhere; an
// error says what could not be removed.
func (ws *workspace) close() error {
	if ws.wh != nil {
		ws.wh.Close()
	}
	err := os.RemoveAll(ws.dir)
	if ws.remote != "" {
		err = errors.Join(err, removeWarehouse(ws.props, ws.remote))
	}
	return err
}

// runner holds what all cases of a run share.
type runner struct {
	cfg     Config
	wh      *lake.Warehouse
	eng     *session.Engine
	tmp     string
	storage string // Storage.Kind, for the results
	n       int    // tables created, for unique names
}

func (r *runner) layout(ctx context.Context, l Layout, report func(Result) error) error {
	sh := newShape(r.cfg.Rows, r.cfg.Files)
	r.cfg.Progress(fmt.Sprintf("generating %s table: %d rows in %d files", l, sh.rows, sh.files))
	src, err := generate(ctx, r.wh, l, sh)
	if err != nil {
		return err
	}
	for _, p := range predicates(l, sh) {
		if len(r.cfg.Cases) > 0 && !slices.Contains(r.cfg.Cases, p.name) {
			continue
		}
		for _, m := range r.cfg.Modes {
			res, err := r.runCase(ctx, src, p, m)
			if err != nil {
				return fmt.Errorf("bench %s/%s %s: %w", l, p.name, m, err)
			}
			if err := report(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// A case repeats (on fresh copies) while it is cheap, so one noisy moment
// on a shared machine does not decide a short case: at most caseRuns runs
// (Config.MaxRuns), none started once the runs so far took caseBudget
// (Config.CaseBudget).
// Medians are reported.
const (
	caseRuns   = 5
	caseBudget = 3 * time.Second
)

// runCase runs one predicate in one mode: floor, magmalake and iceberg-go,
// each on its own fresh copy of the source table, repeated while cheap.
func (r *runner) runCase(ctx context.Context, src *source, p predicate, m Mode) (Result, error) {
	res := Result{Case: string(src.layout) + "/" + p.name, Mode: m, Storage: r.storage, Rows: src.shape.rows}
	var runs []Result
	var spent time.Duration
	for len(runs) < r.cfg.MaxRuns && (len(runs) == 0 || spent < r.cfg.CaseBudget) {
		start := time.Now()
		one, err := r.runOnce(ctx, src, p, m)
		if err != nil {
			return res, err
		}
		spent += time.Since(start)
		runs = append(runs, one)
	}
	return medianResult(res, runs), nil
}

// runOnce is one run of a case: every contender once.
func (r *runner) runOnce(ctx context.Context, src *source, p predicate, m Mode) (Result, error) {
	var res Result
	r.n++
	ours, ourIdent, err := src.clone(ctx, r.wh, fmt.Sprintf("c%d_magmalake", r.n), m)
	if err != nil {
		return res, err
	}
	theirs, _, err := src.clone(ctx, r.wh, fmt.Sprintf("c%d_icebergo", r.n), m)
	if err != nil {
		return res, err
	}
	var floorTime time.Duration
	var floorCount int64
	cpu := labelled(ctx, "floor", func(ctx context.Context) {
		floorTime, floorCount, err = measureFloor(ctx, ours, p, m, r.tmp)
	})
	if err != nil {
		return res, err
	}
	res.FloorMs, res.FloorCPUMs = ms(floorTime), ms(cpu)
	var ourTime time.Duration
	var ourCount int64
	var heap uint64
	cpu = labelled(ctx, "magmalake", func(ctx context.Context) {
		ourTime, ourCount, heap, err = r.runOurs(ctx, ourIdent, p)
	})
	if err != nil {
		return res, err
	}
	res.MagmalakeMs, res.PeakHeapBytes, res.MagmalakeCPUMs = ms(ourTime), heap, ms(cpu)
	var theirTime time.Duration
	var theirHeap uint64
	var committed *table.Table
	cpu = labelled(ctx, "icebergo", func(ctx context.Context) {
		theirTime, theirHeap, committed, err = runIcebergGo(ctx, theirs, p)
	})
	if err != nil {
		return res, err
	}
	res.IcebergoMs, res.IcebergoPeakHeapBytes, res.IcebergoCPUMs = ms(theirTime), theirHeap, ms(cpu)
	if err := r.checkCounts(ctx, ourIdent, committed, ourCount, floorCount); err != nil {
		return res, err
	}
	res.RowsDeleted = ourCount
	return res, nil
}

// medianResult fills res with the median time of each contender over runs
// (each figure's own median) and the highest peak heaps.
func medianResult(res Result, runs []Result) Result {
	med := func(f func(Result) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	res.Runs = len(runs)
	res.RowsDeleted = runs[0].RowsDeleted
	res.MagmalakeMs = med(func(r Result) float64 { return r.MagmalakeMs })
	res.IcebergoMs = med(func(r Result) float64 { return r.IcebergoMs })
	res.FloorMs = med(func(r Result) float64 { return r.FloorMs })
	res.MagmalakeCPUMs = med(func(r Result) float64 { return r.MagmalakeCPUMs })
	res.IcebergoCPUMs = med(func(r Result) float64 { return r.IcebergoCPUMs })
	res.FloorCPUMs = med(func(r Result) float64 { return r.FloorCPUMs })
	for _, r := range runs {
		res.PeakHeapBytes = max(res.PeakHeapBytes, r.PeakHeapBytes)
		res.IcebergoPeakHeapBytes = max(res.IcebergoPeakHeapBytes, r.IcebergoPeakHeapBytes)
	}
	return res
}

// runOurs runs DELETE through a session, as a client's statement runs.
func (r *runner) runOurs(ctx context.Context, ident table.Identifier, p predicate) (time.Duration, int64, uint64, error) {
	s := r.eng.NewSession(stmt.SessionInfo{User: "bench", Database: "bench"})
	defer s.Close()
	q := fmt.Sprintf("DELETE FROM %s.%s WHERE %s", ident[0], ident[1], p.sql)
	hp := startHeapPeak()
	start := time.Now()
	prep, err := s.Prepare(ctx, q, nil)
	if err != nil {
		hp.Stop()
		return 0, 0, 0, fmt.Errorf("%s: %w", q, err)
	}
	res, err := s.Execute(ctx, prep, nil)
	took := time.Since(start)
	heap := hp.Stop()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", q, err)
	}
	n, err := deleteCount(res.Tag)
	return took, n, heap, err
}

func deleteCount(tag string) (int64, error) {
	n, ok := strings.CutPrefix(tag, "DELETE ")
	if !ok {
		return 0, fmt.Errorf("unexpected command tag %q", tag)
	}
	return strconv.ParseInt(n, 10, 64)
}

// runIcebergGo is the baseline: iceberg-go's own delete and commit.
func runIcebergGo(ctx context.Context, tbl *table.Table, p predicate) (time.Duration, uint64, *table.Table, error) {
	hp := startHeapPeak()
	start := time.Now()
	tx := tbl.NewTransaction()
	err := tx.Delete(ctx, p.filter, nil)
	var committed *table.Table
	if err == nil {
		committed, err = tx.Commit(ctx)
	}
	took := time.Since(start)
	heap := hp.Stop()
	if err != nil {
		return 0, 0, nil, fmt.Errorf("iceberg-go delete %s: %w", p.name, err)
	}
	return took, heap, committed, nil
}

// checkCounts requires both engines' snapshots and the floor to agree on how
// many rows went.
func (r *runner) checkCounts(ctx context.Context, ourIdent table.Identifier, theirs *table.Table, tag, floor int64) error {
	ours, err := r.wh.LoadTable(ctx, ourIdent)
	if err != nil {
		return err
	}
	ourSnap, err := snapshotDeleted(ours)
	if err != nil {
		return fmt.Errorf("magmalake snapshot: %w", err)
	}
	theirSnap, err := snapshotDeleted(theirs)
	if err != nil {
		return fmt.Errorf("iceberg-go snapshot: %w", err)
	}
	if tag != floor || ourSnap != floor || theirSnap != floor {
		return fmt.Errorf("deleted rows disagree: magmalake tag %d, magmalake snapshot %d, iceberg-go snapshot %d, floor %d",
			tag, ourSnap, theirSnap, floor)
	}
	return nil
}

// snapshotDeleted reads the rows a delete removed from the summaries of the
// snapshots it committed (one, or two when a merge-on-read delete also drops
// whole files), back to the clone's append: rows of removed data files minus
// rows rewritten, plus position deletes added.
func snapshotDeleted(tbl *table.Table) (int64, error) {
	var total int64
	for s := tbl.CurrentSnapshot(); ; {
		if s == nil || s.Summary == nil {
			return 0, errors.New("no delete snapshot after the clone's append")
		}
		if s.Summary.Operation == table.OpAppend {
			return total, nil
		}
		n, err := summaryDeleted(s.Summary.Properties)
		if err != nil {
			return 0, err
		}
		total += n
		if s.ParentSnapshotID == nil {
			s = nil
			continue
		}
		s = tbl.SnapshotByID(*s.ParentSnapshotID)
	}
}

func summaryDeleted(props map[string]string) (int64, error) {
	var total int64
	for key, sign := range map[string]int64{"deleted-records": 1, "added-records": -1,
		"added-position-deletes": 1, "removed-position-deletes": -1} {
		v, ok := props[key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("summary %s=%q: %w", key, v, err)
		}
		total += sign * n
	}
	return total, nil
}

// labelled runs fn under a pprof label naming the contender, so a CPU
// profile of a run can be split with -tagfocus=contender=magmalake, and
// returns the process CPU time it took.
func labelled(ctx context.Context, contender string, fn func(ctx context.Context)) time.Duration {
	start := processCPU()
	pprof.Do(ctx, pprof.Labels("contender", contender), fn)
	return processCPU() - start
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
