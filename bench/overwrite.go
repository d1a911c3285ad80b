package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/session"
)

// `magmalake-bench overwrite` (issue 8) measures two row-level writes through
// a real session.Session on a table partitioned by identity(grp), one data file
// per partition:
//
//   - dynamic-overwrite: INSERT OVERWRITE of one partition under
//     partition_overwrite_mode = 'dynamic', against its floor, the same
//     INSERT ... SELECT into an empty table of the same schema and spec. The
//     new rows are a fixed count at every table size, so equal times across
//     sizes show the other partitions cost nothing.
//   - update-1pct: UPDATE of the 1% of rows with k = 7 (in every file) in
//     merge-on-read v2 and v3, against the same UPDATE in copy-on-write.

// Overwrite case names.
const (
	caseDynamicOverwrite = "dynamic-overwrite"
	caseUpdate1pct       = "update-1pct"
)

// Baseline names in OverwriteResult.
const (
	baselineInsert = "insert-into-empty"
	baselineCoW    = "update-cow"
)

// OverwriteConfig sizes and selects `bench overwrite`. The zero value is the
// full run.
type OverwriteConfig struct {
	Dir        string   // working directory (its warehouse is removed afterwards); empty: a temp dir
	Sizes      []int64  // table rows, each size generated once; default 1,000,000 and 10,000,000
	Partitions int      // identity(grp) partitions, one data file each; default 100
	NewRows    int64    // rows the overwrite writes into its partition; default 100,000 (one partition of 10M)
	Modes      []Mode   // merge-on-read modes UPDATE runs in against copy-on-write; default mor-v2, mor-v3
	Cases      []string // dynamic-overwrite, update-1pct; default both
	Repeat     int      // runs of every contender, median and minimum reported; default 5
	// Progress, when set, is told what is being prepared (generation takes a while).
	Progress func(msg string)
}

// OverwriteResult is one case at one size: the statement's median time and
// its baseline's, measured in the same run on fresh tables.
type OverwriteResult struct {
	Case       string `json:"case"`
	Mode       Mode   `json:"mode"` // the measured statement's write mode
	Rows       int64  `json:"rows"` // table rows before the statement
	Partitions int    `json:"partitions"`
	// RowsWritten is rows inserted (overwrite) or updated (UPDATE).
	RowsWritten int64 `json:"rows_written"`
	// RowsRemoved is the replaced partition's rows (overwrite), else 0.
	RowsRemoved int64   `json:"rows_removed"`
	Ms          float64 `json:"ms"` // median
	Baseline    string  `json:"baseline"`
	BaselineMs  float64 `json:"baseline_ms"` // median
	// MinMs and BaselineMinMs are the fastest runs: on a shared machine the
	// least disturbed, so their ratio is the steadier one.
	MinMs         float64 `json:"min_ms"`
	BaselineMinMs float64 `json:"baseline_min_ms"`
	// CPUMs and BaselineCPUMs are median process CPU time (user + system)
	// per statement: the cost in work, which other load does not inflate.
	CPUMs         float64   `json:"cpu_ms"`
	BaselineCPUMs float64   `json:"baseline_cpu_ms"`
	Samples       []float64 `json:"samples_ms"`
	BaseSamples   []float64 `json:"baseline_samples_ms"`
}

// Ratio is the statement's time over its baseline's.
func (r OverwriteResult) Ratio() float64 {
	if r.BaselineMs <= 0 {
		return 0
	}
	return r.Ms / r.BaselineMs
}

// MinRatio is the fastest run's time over the baseline's fastest.
func (r OverwriteResult) MinRatio() float64 {
	if r.BaselineMinMs <= 0 {
		return 0
	}
	return r.MinMs / r.BaselineMinMs
}

// CPURatio is the statement's median CPU time over the baseline's.
func (r OverwriteResult) CPURatio() float64 {
	if r.BaselineCPUMs <= 0 {
		return 0
	}
	return r.CPUMs / r.BaselineCPUMs
}

// Line is the human-readable report of one case: medians, then minima.
func (r OverwriteResult) Line() string {
	head := fmt.Sprintf("%-17s %-6s rows %-8d parts %d", r.Case, r.Mode, r.Rows, r.Partitions)
	if r.Baseline == baselineCoW {
		return fmt.Sprintf("%s updated %-7d median %8.1f ms vs copy-on-write %8.1f ms (%5.2fx faster); min %8.1f vs %8.1f ms (%5.2fx); cpu %8.1f vs %8.1f ms (%5.2fx)",
			head, r.RowsWritten, r.Ms, r.BaselineMs, inverse(r.Ratio()), r.MinMs, r.BaselineMinMs, inverse(r.MinRatio()),
			r.CPUMs, r.BaselineCPUMs, inverse(r.CPURatio()))
	}
	return fmt.Sprintf("%s inserted %d removed %d  median %7.1f ms vs floor (INSERT into empty) %7.1f ms (%5.2fx floor, %+.1f ms); min %7.1f vs %7.1f ms (%5.2fx); cpu %7.1f vs %7.1f ms (%5.2fx)",
		head, r.RowsWritten, r.RowsRemoved, r.Ms, r.BaselineMs, r.Ratio(), r.Ms-r.BaselineMs, r.MinMs, r.BaselineMinMs, r.MinRatio(),
		r.CPUMs, r.BaselineCPUMs, r.CPURatio())
}

func inverse(x float64) float64 {
	if x == 0 {
		return 0
	}
	return 1 / x
}

// JSON is the one-line JSON report of one case, with the ratio.
func (r OverwriteResult) JSON() string {
	type withRatio struct {
		OverwriteResult
		Ratio    float64 `json:"ratio"`
		MinRatio float64 `json:"min_ratio"`
		CPURatio float64 `json:"cpu_ratio"`
	}
	b, err := json.Marshal(withRatio{r, r.Ratio(), r.MinRatio(), r.CPURatio()})
	if err != nil { // numbers and strings always marshal
		panic(err)
	}
	return string(b)
}

func (c OverwriteConfig) withDefaults() OverwriteConfig {
	if len(c.Sizes) == 0 {
		c.Sizes = []int64{1_000_000, 10_000_000}
	}
	if c.Partitions <= 0 {
		c.Partitions = 100
	}
	if c.NewRows <= 0 {
		c.NewRows = 100_000
	}
	if len(c.Modes) == 0 {
		c.Modes = []Mode{MergeOnReadV2, MergeOnReadV3}
	}
	if len(c.Cases) == 0 {
		c.Cases = []string{caseDynamicOverwrite, caseUpdate1pct}
	}
	if c.Repeat <= 0 {
		c.Repeat = 5
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c
}

func (c OverwriteConfig) check() error {
	for _, n := range c.Sizes {
		if n < int64(c.Partitions) {
			return fmt.Errorf("%d partitions need at least as many rows (size %d)", c.Partitions, n)
		}
	}
	for _, m := range c.Modes {
		if m != MergeOnReadV2 && m != MergeOnReadV3 {
			return fmt.Errorf("unknown UPDATE mode %q (mor-v2, mor-v3; copy-on-write is the baseline)", m)
		}
	}
	for _, n := range c.Cases {
		if n != caseDynamicOverwrite && n != caseUpdate1pct {
			return fmt.Errorf("unknown case %q (%s, %s)", n, caseDynamicOverwrite, caseUpdate1pct)
		}
	}
	return nil
}

// RunOverwrite generates the table at each size once and runs the selected
// cases on fresh copies, calling report after each. A statement whose count
// or read-back disagrees with the model of the generated data fails the run.
func RunOverwrite(ctx context.Context, cfg OverwriteConfig, report func(OverwriteResult) error) error {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return fmt.Errorf("bench overwrite: %w", err)
	}
	ws, err := openWorkspace(ctx, cfg.Dir, Storage{})
	if err != nil {
		return fmt.Errorf("bench overwrite: %w", err)
	}
	defer ws.close()
	r := &overwriteRunner{cfg: cfg, wh: ws.wh, eng: ws.eng}
	for _, rows := range cfg.Sizes {
		if err := r.size(ctx, rows, report); err != nil {
			return err
		}
	}
	return nil
}

// overwriteRunner holds what all cases of a run share.
type overwriteRunner struct {
	cfg OverwriteConfig
	wh  *lake.Warehouse
	eng *session.Engine
	n   int // tables created, for unique names
}

func (r *overwriteRunner) name(kind string) string {
	r.n++
	return fmt.Sprintf("ow%d_%s", r.n, kind)
}

func (r *overwriteRunner) size(ctx context.Context, rows int64, report func(OverwriteResult) error) error {
	sh := overwriteShape(rows, r.cfg.Partitions)
	r.cfg.Progress(fmt.Sprintf("generating %d rows in %d partitions (one file each)", rows, sh.parts))
	src, err := owGenerate(ctx, r.wh, r.name("src"), Partitioned, sh)
	if err != nil {
		return err
	}
	if slices.Contains(r.cfg.Cases, caseDynamicOverwrite) {
		res, err := r.dynamicOverwrite(ctx, src)
		if err != nil {
			return fmt.Errorf("bench %s at %d rows: %w", caseDynamicOverwrite, rows, err)
		}
		if err := report(res); err != nil {
			return err
		}
	}
	if slices.Contains(r.cfg.Cases, caseUpdate1pct) {
		results, err := r.update(ctx, src)
		if err != nil {
			return fmt.Errorf("bench %s at %d rows: %w", caseUpdate1pct, rows, err)
		}
		for _, res := range results {
			if err := report(res); err != nil {
				return err
			}
		}
	}
	return nil
}
