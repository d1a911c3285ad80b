package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/iceberg-go/table"
)

// `magmalake-bench maintenance` (issue 14) measures table maintenance:
// OPTIMIZE (ALTER TABLE t EXECUTE optimize, through a real session.Session)
// beside iceberg-go's own compaction (compaction.Analyze planning, then
// Table.RewriteDataFiles) on an identical copy of the table, and what the
// table costs to read before OPTIMIZE, after it, and freshly written with
// the same live rows. Cases:
//
//   - mor-v2, mor-v3: the delete bench's generated table (Rows rows in
//     Files data files, unpartitioned, ids ascending) after Deletes
//     merge-on-read DELETEs `k = j`, each removing 1% of the rows from every
//     file (k is a hash of the id): position delete files (v2) or deletion
//     vectors (v3).
//   - small-files: a table of its own after SmallInserts one-row autocommit
//     INSERTs, one data file each.
//
// Both copies of a case are built the same deterministic way (the same
// data files, then the same statements), and every state of every table
// must answer the two queries as the model and the table before the
// rewrite do: a fast rewrite that loses or resurrects a row is no result.

// Maintenance case names; the delete cases are named by their Mode.
const (
	caseMaintV2    = string(MergeOnReadV2)
	caseMaintV3    = string(MergeOnReadV3)
	caseSmallFiles = "small-files"
)

var maintCases = []string{caseMaintV2, caseMaintV3, caseSmallFiles}

// MaintenanceConfig sizes and selects `bench maintenance`. The zero value
// is the full run.
type MaintenanceConfig struct {
	Dir   string // working directory (removed afterwards); empty: a temp dir
	Rows  int64  // rows of the generated table of the delete cases; default 10,000,000
	Files int    // its data files; default 40
	// Deletes is the number of DELETE statements (k = 0, 1, ...), each 1%
	// of the rows; default 20, at most 100.
	Deletes      int
	SmallInserts int      // one-row INSERTs of the small-files case; default 2000
	Cases        []string // mor-v2, mor-v3, small-files; default all
	Repeat       int      // timed runs of each query after a warm-up (medians); default 5
	// Rewrites is how many times each contender rewrites its copy (both
	// copies are rolled back to before the rewrite between rounds; the
	// median is reported); default 3.
	Rewrites int
	// SizeThreshold and RatioThreshold are OPTIMIZE's file_size_threshold
	// and delete_ratio_threshold, and the same limits of iceberg-go's
	// planner; defaults deletes.DefaultSizeThreshold (128 MiB) and 0.1.
	SizeThreshold  int64
	RatioThreshold float64
	// SplitTargetSize, when positive, is set as every table's
	// read.split.target-size. iceberg-go plans a file larger than it
	// (default 128 MiB) as several byte-range tasks, and the engine prunes
	// row groups only in whole-file tasks, so a rewrite into one large file
	// loses row-group pruning; a larger value shows the figures without it.
	SplitTargetSize int64
	Progress        func(msg string)
}

// Targets of issue 14.
const (
	// OPTIMIZE must be this much faster than iceberg-go's rewrite.
	maintSpeedupTarget = 1.5
	// After OPTIMIZE a query's time and bytes must be within this ratio of
	// the freshly written table's.
	maintFreshTarget = 1.10
)

func (c MaintenanceConfig) withDefaults() MaintenanceConfig {
	if c.Rows <= 0 {
		c.Rows = 10_000_000
	}
	if c.Files <= 0 {
		c.Files = 40
	}
	if c.Deletes <= 0 {
		c.Deletes = 20
	}
	if c.SmallInserts <= 0 {
		c.SmallInserts = 2000
	}
	if len(c.Cases) == 0 {
		c.Cases = maintCases
	}
	if c.Repeat <= 0 {
		c.Repeat = 5
	}
	if c.Rewrites <= 0 {
		c.Rewrites = 3
	}
	if c.SizeThreshold <= 0 {
		c.SizeThreshold = 128 << 20
	}
	if c.RatioThreshold <= 0 {
		c.RatioThreshold = 0.1
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c
}

func (c MaintenanceConfig) check() error {
	for _, n := range c.Cases {
		if !slices.Contains(maintCases, n) {
			return fmt.Errorf("unknown case %q (%s, %s, %s)", n, caseMaintV2, caseMaintV3, caseSmallFiles)
		}
	}
	if c.Deletes > 100 {
		return fmt.Errorf("%d deletes: k has 100 values, one per DELETE", c.Deletes)
	}
	if int64(c.Files) > c.Rows {
		return fmt.Errorf("%d files need at least as many rows (have %d)", c.Files, c.Rows)
	}
	if c.RatioThreshold > 1 {
		return fmt.Errorf("delete ratio threshold %g must be at most 1", c.RatioThreshold)
	}
	return nil
}

// RunMaintenance runs every selected case and reports each. A DELETE that
// removes other rows than the model's, or a table whose answers change
// across the rewrites (either engine's) or the fresh copy, fails the run.
func RunMaintenance(ctx context.Context, cfg MaintenanceConfig, report func(MaintenanceResult) error) (err error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return fmt.Errorf("bench maintenance: %w", err)
	}
	ws, err := openWorkspace(ctx, cfg.Dir, Storage{})
	if err != nil {
		return fmt.Errorf("bench maintenance: %w", err)
	}
	defer func() {
		if cerr := ws.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("bench maintenance: clean up: %w", cerr))
		}
	}()
	r := &maintRunner{cfg: cfg, ws: ws}
	for _, c := range cfg.Cases {
		res, err := r.runCase(ctx, c)
		if err != nil {
			return fmt.Errorf("bench maintenance %s: %w", c, err)
		}
		if err := report(res); err != nil {
			return err
		}
	}
	return nil
}

// maintRunner holds what the cases of a run share.
type maintRunner struct {
	cfg  MaintenanceConfig
	ws   *workspace
	base *source // the delete cases' generated table, made on first use
	n    int     // tables created, for unique names
}

func (r *maintRunner) name(kind string) string {
	r.n++
	return fmt.Sprintf("mt%d_%s", r.n, kind)
}

// maintPair is a case's two identical tables and what they must hold.
type maintPair struct {
	ours, theirs table.Identifier
	model        liveModel
	version      int // format version, for the fresh copy
}

// runCase builds the case's pair of tables and measures it; the case's
// tables are dropped afterwards (the generated base stays for the next).
func (r *maintRunner) runCase(ctx context.Context, c string) (MaintenanceResult, error) {
	res := MaintenanceResult{Case: c}
	sess := newOwSession(r.ws.eng)
	defer sess.Close()
	var p maintPair
	var err error
	if c == caseSmallFiles {
		p, err = r.smallFilesPair(ctx, sess, &res)
	} else {
		p, err = r.deletePair(ctx, sess, Mode(c), &res)
	}
	if err == nil {
		err = r.setSplitSize(ctx, &res, p.ours, p.theirs)
	}
	if err != nil {
		return res, err
	}
	fresh, err := r.measure(ctx, sess, p, &res)
	for _, id := range []table.Identifier{p.ours, p.theirs, fresh} {
		if id != nil {
			err = errors.Join(err, dropClone(ctx, r.ws.wh, id, r.ws.dir))
		}
	}
	return res, err
}

// setSplitSize sets the configured read.split.target-size on tables.
func (r *maintRunner) setSplitSize(ctx context.Context, res *MaintenanceResult, ids ...table.Identifier) error {
	if r.cfg.SplitTargetSize <= 0 {
		return nil
	}
	res.SplitTargetSize = r.cfg.SplitTargetSize
	props := map[string]string{table.ReadSplitTargetSizeKey: strconv.FormatInt(r.cfg.SplitTargetSize, 10)}
	for _, id := range ids {
		if _, err := r.ws.wh.Tables().SetProperties(ctx, id, props); err != nil {
			return fmt.Errorf("set %s of %s: %w", table.ReadSplitTargetSizeKey, owQualified(id), err)
		}
	}
	return nil
}
