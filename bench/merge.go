package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// `magmalake-bench merge` (issue 13) measures MERGE through a real
// session.Session: an upsert of a source of SourceRows rows, half of them updating
// existing rows and half inserting new ones, into a copy of a generated
// table (the delete bench's 8 columns, one data file per identity(grp)
// partition, or the same files unpartitioned) in copy-on-write and
// merge-on-read v2 and v3, beside its physical floor (merge_floor.go) and
// DuckDB doing the same join over the same Parquet files (merge_duckdb.go).
// Cases:
//
//   - scattered: the updated ids are spread over the whole table, the new
//     ones past its end, their grp over every partition; ON t.id = s.id.
//   - one-partition (partitioned layout only): every source row falls in
//     one partition of Partitions; ON t.id = s.id AND t.grp = s.grp, so
//     the source's keys prune the target to that partition. It also runs on
//     a table of FlatPartitions partitions of the same size: equal times
//     show the other partitions cost nothing.

// Merge case names.
const (
	caseScatteredMerge = "scattered"
	caseOnePartition   = "one-partition"
)

// MergeConfig sizes and selects `bench merge`. The zero value is the full
// run without DuckDB.
type MergeConfig struct {
	Dir        string // working directory (its warehouse is removed afterwards); empty: a temp dir
	Rows       int64  // rows of the target; default 10,000,000
	Partitions int    // identity(grp) partitions, one data file each (the unpartitioned table has as many files); default 100
	// FlatPartitions is the partition count of the second, smaller table the
	// one-partition case also runs on (partitions of the same size);
	// default 10, negative: none.
	FlatPartitions int
	SourceRows     int64    // rows of the source, half updates, half inserts; default 100,000
	Layouts        []Layout // default both
	Modes          []Mode   // default all three
	Cases          []string // scattered, one-partition; default both
	// MaxRuns caps how often a case repeats on fresh copies; default 5.
	MaxRuns int
	// DuckDBModules is a directory whose node_modules holds
	// @duckdb/node-api; empty leaves DuckDB out.
	DuckDBModules string
	Progress      func(msg string)
}

// MergeResult is one case in one mode on one table: medians over the runs.
type MergeResult struct {
	Case       string `json:"case"` // layout/case
	Mode       Mode   `json:"mode"`
	Rows       int64  `json:"rows"` // target rows before the MERGE
	Partitions int    `json:"partitions"`
	SourceRows int64  `json:"source_rows"`
	Updated    int64  `json:"updated"`
	Inserted   int64  `json:"inserted"`
	// Wall and process CPU time (user + system, every thread, GC included).
	MagmalakeMs    float64 `json:"magmalake_ms"`
	MagmalakeCPUMs float64 `json:"magmalake_cpu_ms"`
	FloorMs        float64 `json:"floor_ms"`
	FloorCPUMs     float64 `json:"floor_cpu_ms"`
	// DuckDB's join and writes (mode-independent: the same figure in every
	// mode of a case); 0 when DuckDB did not run.
	DuckDBMs    float64 `json:"duckdb_ms"`
	DuckDBCPUMs float64 `json:"duckdb_cpu_ms"`
	// PeakHeapBytes is magmalake's Go heap at its highest during the MERGE.
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
	// ReadBytes is what the MERGE read from files (rchar); TableBytes the
	// target's data files' size.
	ReadBytes  int64 `json:"read_bytes"`
	TableBytes int64 `json:"table_bytes"`
	TableFiles int   `json:"table_files"`
	// HiddenFiles are the target files moved away while the floor and the
	// MERGE ran (one-partition: every other partition's), so neither could
	// have opened them.
	HiddenFiles int `json:"hidden_files"`
	// FloorCandidates are the files the floor's planning kept.
	FloorCandidates int `json:"floor_candidates"`
	// TargetFilter is what EXPLAIN says the source's keys put on the target
	// (one-partition only).
	TargetFilter string `json:"target_filter,omitempty"`
	// ChangedPartitions is the snapshot summary's changed-partition-count.
	ChangedPartitions int64 `json:"changed_partitions"`
	Runs              int   `json:"runs"`
}

// OverFloor is our time over the floor's.
func (r MergeResult) OverFloor() float64 { return ratio(r.MagmalakeMs, r.FloorMs) }

// CPUOverFloor is our CPU time over the floor's.
func (r MergeResult) CPUOverFloor() float64 { return ratio(r.MagmalakeCPUMs, r.FloorCPUMs) }

// VsDuckDB is our time over DuckDB's (0 without DuckDB).
func (r MergeResult) VsDuckDB() float64 { return ratio(r.MagmalakeMs, r.DuckDBMs) }

// Line is the human-readable report of one case.
func (r MergeResult) Line() string {
	duck := "duckdb n/a"
	if r.DuckDBMs > 0 {
		duck = fmt.Sprintf("duckdb %8.1f ms (cpu %6.0f; %5.2fx duckdb)", r.DuckDBMs, r.DuckDBCPUMs, r.VsDuckDB())
	}
	return fmt.Sprintf("%-28s %-6s rows %-8d parts %-3d updated %d inserted %d  magmalake %8.1f ms (cpu %6.0f)  floor %8.1f ms (cpu %6.0f; %5.2fx floor, cpu %5.2fx)  %s  heap %d MiB  read %.1f of %.1f MiB  files: %d, %d hidden, floor read %d  partitions changed %d  runs %d",
		r.Case, r.Mode, r.Rows, r.Partitions, r.Updated, r.Inserted, r.MagmalakeMs, r.MagmalakeCPUMs,
		r.FloorMs, r.FloorCPUMs, r.OverFloor(), r.CPUOverFloor(), duck, r.PeakHeapBytes>>20,
		float64(r.ReadBytes)/(1<<20), float64(r.TableBytes)/(1<<20), r.TableFiles, r.HiddenFiles, r.FloorCandidates,
		r.ChangedPartitions, r.Runs)
}

// JSON is the one-line JSON report of one case, with its ratios.
func (r MergeResult) JSON() string {
	type withRatios struct {
		MergeResult
		OverFloor    float64 `json:"over_floor"`
		CPUOverFloor float64 `json:"cpu_over_floor"`
		VsDuckDB     float64 `json:"vs_duckdb"`
	}
	b, err := json.Marshal(withRatios{r, r.OverFloor(), r.CPUOverFloor(), r.VsDuckDB()})
	if err != nil { // numbers and strings always marshal
		panic(err)
	}
	return string(b)
}

func (c MergeConfig) withDefaults() MergeConfig {
	if c.Rows <= 0 {
		c.Rows = 10_000_000
	}
	if c.Partitions <= 0 {
		c.Partitions = 100
	}
	if c.FlatPartitions == 0 {
		c.FlatPartitions = 10
	}
	if c.SourceRows <= 0 {
		c.SourceRows = 100_000
	}
	if len(c.Layouts) == 0 {
		c.Layouts = []Layout{Unpartitioned, Partitioned}
	}
	if len(c.Modes) == 0 {
		c.Modes = allModes
	}
	if len(c.Cases) == 0 {
		c.Cases = []string{caseScatteredMerge, caseOnePartition}
	}
	if c.MaxRuns <= 0 {
		c.MaxRuns = 5
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c
}

func (c MergeConfig) check() error {
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
	for _, n := range c.Cases {
		if n != caseScatteredMerge && n != caseOnePartition {
			return fmt.Errorf("unknown case %q (%s, %s)", n, caseScatteredMerge, caseOnePartition)
		}
	}
	if c.FlatPartitions > c.Partitions {
		return fmt.Errorf("--flat-partitions %d must not exceed --partitions %d", c.FlatPartitions, c.Partitions)
	}
	// Every partition must hold an updated row per stratum (updateID).
	if perPart := c.Rows / int64(c.Partitions); perPart < c.SourceRows/2 || c.SourceRows < 2 {
		return fmt.Errorf("%d source rows (half updates) need partitions of at least %d rows (have %d): raise --rows or lower --partitions",
			c.SourceRows, c.SourceRows/2, perPart)
	}
	return nil
}

// RunMerge generates each layout once and runs every selected case in
// every mode on fresh copies, calling report after each. A MERGE whose tag,
// snapshot or read-back disagrees with the model of the generated data, a
// floor or DuckDB that finds other matches, or a one-partition MERGE that
// plans to read another partition's file fails the run.
func RunMerge(ctx context.Context, cfg MergeConfig, report func(MergeResult) error) error {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return fmt.Errorf("bench merge: %w", err)
	}
	ws, err := openWorkspace(ctx, cfg.Dir, Storage{})
	if err != nil {
		return fmt.Errorf("bench merge: %w", err)
	}
	defer ws.close()
	r := &mergeRunner{cfg: cfg, ws: ws}
	for _, l := range cfg.Layouts {
		if err := r.layout(ctx, l, report); err != nil {
			return err
		}
	}
	return nil
}

// mergeRunner holds what all cases of a run share.
type mergeRunner struct {
	cfg MergeConfig
	ws  *workspace
	n   int // tables created, for unique names
}

func (r *mergeRunner) name(kind string) string {
	r.n++
	return fmt.Sprintf("mg%d_%s", r.n, kind)
}

// layout generates the layout's table and runs its cases.
func (r *mergeRunner) layout(ctx context.Context, l Layout, report func(MergeResult) error) error {
	sh := overwriteShape(r.cfg.Rows, r.cfg.Partitions)
	r.cfg.Progress(fmt.Sprintf("generating %s target: %d rows in %d files", l, sh.rows, sh.files))
	tgt, err := owGenerate(ctx, r.ws.wh, r.name("target"), l, sh)
	if err != nil {
		return err
	}
	for _, c := range r.cfg.Cases {
		if c == caseOnePartition && l != Partitioned {
			continue
		}
		if err := r.reportCase(ctx, tgt, newMergeSpec(sh, c, r.cfg.SourceRows), report); err != nil {
			return err
		}
	}
	if l != Partitioned || !slices.Contains(r.cfg.Cases, caseOnePartition) || r.cfg.FlatPartitions < 0 {
		return nil
	}
	small := overwriteShape(sh.rows*int64(r.cfg.FlatPartitions)/int64(sh.parts), r.cfg.FlatPartitions)
	r.cfg.Progress(fmt.Sprintf("generating %s target: %d rows in %d files", l, small.rows, small.files))
	if tgt, err = owGenerate(ctx, r.ws.wh, r.name("target"), l, small); err != nil {
		return err
	}
	return r.reportCase(ctx, tgt, newMergeSpec(small, caseOnePartition, r.cfg.SourceRows), report)
}

// reportCase runs one case in every mode, then in DuckDB, and reports it.
func (r *mergeRunner) reportCase(ctx context.Context, tgt *source, ms mergeSpec, report func(MergeResult) error) error {
	results, err := r.runCase(ctx, tgt, ms)
	if err != nil {
		return fmt.Errorf("bench merge %s/%s at %d rows: %w", tgt.layout, ms.name, ms.shape.rows, err)
	}
	for _, res := range results {
		if err := report(res); err != nil {
			return err
		}
	}
	return nil
}

// A case repeats on fresh copies while it is cheap: at most MaxRuns runs,
// none started once the timed parts of the runs so far (MERGE and floor;
// not the clones and read-backs, which at 10M rows cost more than a
// one-partition MERGE) took mergeBudget.
const mergeBudget = 10 * time.Second

// runCase writes the case's source and runs it in every mode.
func (r *mergeRunner) runCase(ctx context.Context, tgt *source, ms mergeSpec) ([]MergeResult, error) {
	srcIdent, srcFiles, err := writeMergeSource(ctx, r.ws.wh, r.name("source"), ms)
	if err != nil {
		return nil, err
	}
	c := &mergeCase{r: r, tgt: tgt, ms: ms, srcIdent: srcIdent, srcFiles: srcFiles}
	var out []MergeResult
	for i, m := range r.cfg.Modes {
		r.cfg.Progress(fmt.Sprintf("MERGE %s/%s at %d rows in %s", tgt.layout, ms.name, ms.shape.rows, m))
		res, err := c.runMode(ctx, m, i == 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		out = append(out, res)
	}
	if r.cfg.DuckDBModules == "" {
		return out, nil
	}
	r.cfg.Progress(fmt.Sprintf("duckdb: %s/%s at %d rows", tgt.layout, ms.name, ms.shape.rows))
	wall, cpu, err := c.duckdb(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].DuckDBMs, out[i].DuckDBCPUMs = wall, cpu
	}
	return out, nil
}

// mergeCase is one case's target and source.
type mergeCase struct {
	r        *mergeRunner
	tgt      *source
	ms       mergeSpec
	srcIdent table.Identifier
	srcFiles []iceberg.DataFile
}

// runMode repeats the case in mode m on fresh copies; the first mode's first
// run also checks the MERGE's plan (explain).
func (c *mergeCase) runMode(ctx context.Context, m Mode, explain bool) (MergeResult, error) {
	res := MergeResult{Case: string(c.tgt.layout) + "/" + c.ms.name, Mode: m, Rows: c.ms.shape.rows,
		Partitions: c.ms.shape.parts, SourceRows: c.ms.rows(), Updated: c.ms.updates, Inserted: c.ms.inserts,
		TableFiles: len(c.tgt.files)}
	for _, f := range c.tgt.files {
		res.TableBytes += f.FileSizeBytes()
	}
	var runs []mergeSample
	var spent time.Duration
	for len(runs) < c.r.cfg.MaxRuns && (len(runs) == 0 || spent < mergeBudget) {
		s, err := c.runOnce(ctx, m, explain && len(runs) == 0)
		if err != nil {
			return res, err
		}
		spent += s.wall + s.floorWall
		runs = append(runs, s)
	}
	res.fill(runs)
	return res, nil
}

// mergeSample is one run of a case.
type mergeSample struct {
	wall, cpu, floorWall, floorCPU time.Duration
	heap                           uint64
	read                           int64
	hidden, floorCandidates        int
	changedPartitions              int64
	filter                         string // EXPLAIN's target filter, when asked
}

// fill sets res from the runs: medians of times and bytes, the highest heap.
func (res *MergeResult) fill(runs []mergeSample) {
	pick := func(f func(mergeSample) float64) float64 {
		v := make([]float64, len(runs))
		for i, s := range runs {
			v[i] = f(s)
		}
		return median(v)
	}
	res.Runs = len(runs)
	res.MagmalakeMs = pick(func(s mergeSample) float64 { return ms(s.wall) })
	res.MagmalakeCPUMs = pick(func(s mergeSample) float64 { return ms(s.cpu) })
	res.FloorMs = pick(func(s mergeSample) float64 { return ms(s.floorWall) })
	res.FloorCPUMs = pick(func(s mergeSample) float64 { return ms(s.floorCPU) })
	res.ReadBytes = int64(pick(func(s mergeSample) float64 { return float64(s.read) }))
	for _, s := range runs {
		res.PeakHeapBytes = max(res.PeakHeapBytes, s.heap)
		res.HiddenFiles, res.FloorCandidates, res.ChangedPartitions = s.hidden, s.floorCandidates, s.changedPartitions
		if s.filter != "" {
			res.TargetFilter = s.filter
		}
	}
}

// runOnce clones the target in mode m, runs the floor on the clone, then
// the MERGE through a session, and checks what it did. One-partition runs
// have every other partition's files moved away meanwhile; explain also
// records EXPLAIN's target filter.
func (c *mergeCase) runOnce(ctx context.Context, m Mode, explain bool) (mergeSample, error) {
	var s mergeSample
	r := c.r
	ident, err := c.tgt.cloneWith(ctx, r.ws.wh, r.name(strings.ReplaceAll(string(m), "-", "_")), mergeProps(m))
	if err != nil {
		return s, err
	}
	sess := newOwSession(r.ws.eng)
	defer sess.Close()
	q := c.ms.mergeSQL(ident, c.srcIdent)
	restore := func() error { return nil }
	if c.ms.onePart >= 0 {
		if s.hidden, restore, err = c.hideOtherPartitions(); err != nil {
			return s, err
		}
	}
	err = c.floorOnce(ctx, ident, m, &s)
	if err == nil && explain && c.ms.onePart >= 0 {
		s.filter, err = c.explainFilter(ctx, sess, q)
	}
	if err == nil {
		err = c.mergeOnce(ctx, sess, q, m, &s)
	}
	if err = errors.Join(err, restore()); err != nil {
		return s, err
	}
	if err := c.verify(ctx, sess, ident, &s); err != nil {
		return s, err
	}
	return s, dropClone(ctx, r.ws.wh, ident, r.ws.dir)
}

// floorOnce runs the floor on the clone (it commits nothing) and checks it
// found the case's matches.
func (c *mergeCase) floorOnce(ctx context.Context, ident table.Identifier, m Mode, s *mergeSample) error {
	tbl, err := c.r.ws.wh.LoadTable(ctx, ident)
	if err != nil {
		return err
	}
	var fo mergeFloorOutcome
	cpu := c.labelled(ctx, "floor", m, func(ctx context.Context) {
		fo, err = measureMergeFloor(ctx, tbl, c.ms, c.srcFiles, m, c.r.ws.dir)
	})
	if err != nil {
		return err
	}
	if fo.matched != c.ms.updates || fo.written != c.ms.rows() {
		return fmt.Errorf("floor matched %d and wrote %d rows, model says %d and %d", fo.matched, fo.written, c.ms.updates, c.ms.rows())
	}
	s.floorWall, s.floorCPU, s.floorCandidates = fo.took, cpu, fo.candidates
	return nil
}

// mergeOnce times the MERGE under the heap sampler and checks its tag.
func (c *mergeCase) mergeOnce(ctx context.Context, sess owSession, q string, m Mode, s *mergeSample) error {
	var out owOutcome
	var err error
	s.cpu = c.labelled(ctx, "magmalake", m, func(ctx context.Context) {
		hp := startHeapPeak()
		read, start := readBytes(), time.Now()
		out, err = sess.run(ctx, q)
		s.wall, s.read = time.Since(start), readBytes()-read
		s.heap = hp.Stop()
	})
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("MERGE %d", c.ms.rows()); out.tag != want {
		return fmt.Errorf("%s: tag %q, want %q", q, out.tag, want)
	}
	return nil
}

// duckdb runs the case's join in DuckDB, checks its counts and returns its
// median wall and CPU times.
func (c *mergeCase) duckdb(ctx context.Context) (float64, float64, error) {
	out, err := os.MkdirTemp(c.r.ws.dir, "merge-duckdb-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(out)
	req := mergeDuckDBRequest(c.ms, c.tgt.layout, localPaths(c.tgt.files), localPaths(c.srcFiles), out, c.r.cfg.MaxRuns)
	reply, err := runMergeDuckDB(ctx, c.r.cfg.DuckDBModules, out, req)
	if err != nil {
		return 0, 0, err
	}
	if err := checkMergeDuckDB(c.ms, reply); err != nil {
		return 0, 0, err
	}
	if len(reply.Ms) == 0 {
		return 0, 0, errors.New("duckdb: no timed run")
	}
	return median(reply.Ms), median(reply.CPUMs), nil
}
