package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ContentionConfig sizes `magmalake-bench contention`: several `magmalake
// serve` processes on one shared catalog and warehouse, and clients spread
// over them that write the same tables at once (issue 18). Zero fields take
// the defaults.
type ContentionConfig struct {
	Binary  string // the magmalake executable to serve with; default serverBinary's
	Servers int    // serve processes; default 3
	// DataDir is every server's --data. Empty: a fresh directory under Dir,
	// removed afterwards unless Keep.
	DataDir string
	Dir     string // parent of the scratch data directory; empty: the system's temp directory
	// CatalogProps (key=value) and Warehouse are passed to every server as
	// --catalog-prop and --warehouse, and used to open the catalog for the
	// iceberg-go read-back, so the same run works on S3 and a REST catalog.
	CatalogProps []string
	Warehouse    string
	// AutoVacuum is every server's --auto-vacuum (0: none): how the tables
	// fare with background maintenance running among the writers.
	AutoVacuum time.Duration
	// SnapshotRetention, when set, is the tables'
	// history.expire.max-snapshot-age-ms: how long background maintenance
	// keeps their snapshots (Iceberg's default is 5 days).
	SnapshotRetention time.Duration
	Keep              bool     // keep the tables and the scratch data directory
	Scenarios         []string // deletes, soak; default both

	Rows  int // rows of each generated table; default 4000
	Files int // data files they are written in; default 8

	DeleteModes       []TableMode // default all four
	DeleteSessions    int         // default 4: one erasure job, the others retention jobs
	DeletesPerSession int         // default 50

	// ParallelModes runs a scenario's modes at once, each on its own
	// table: shorter, but the servers' CPU is shared among the modes.
	ParallelModes bool

	SoakModes    []TableMode   // default v3-mor
	SoakSessions int           // default 8
	SoakDuration time.Duration // default 60s
	Seed         uint64        // the soak's statement choices; default 1

	// StatementTimeout bounds one statement on the client: past it the
	// outcome is unknown and the session reconnects. Default 2 minutes.
	StatementTimeout time.Duration
	Progress         func(msg string)
}

// Contention scenarios.
const (
	ScenarioDeletes = "deletes"
	ScenarioSoak    = "soak"
)

// TableMode is a table's format version and the one write mode its
// write.delete.mode, write.update.mode and write.merge.mode all name.
type TableMode string

// Table modes.
const (
	V2CopyOnWrite TableMode = "v2-cow"
	V2MergeOnRead TableMode = "v2-mor"
	V3CopyOnWrite TableMode = "v3-cow"
	V3MergeOnRead TableMode = "v3-mor"
)

var allTableModes = []TableMode{V2CopyOnWrite, V2MergeOnRead, V3CopyOnWrite, V3MergeOnRead}

// with is the table's WITH (...) clause.
func (m TableMode) with() string {
	version, mode, _ := strings.Cut(string(m), "-")
	write := map[string]string{"cow": "copy-on-write", "mor": "merge-on-read"}[mode]
	return fmt.Sprintf("WITH ('format-version' = '%s', 'write.delete.mode' = '%s', 'write.update.mode' = '%s', 'write.merge.mode' = '%s')",
		strings.TrimPrefix(version, "v"), write, write, write)
}

func (c ContentionConfig) withDefaults() (ContentionConfig, error) {
	var err error
	if c.Binary, err = binaryOrDefault(c.Binary); err != nil {
		return c, err
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Servers, 3)
	def(&c.Rows, 4000)
	def(&c.Files, 8)
	def(&c.DeleteSessions, 4)
	def(&c.DeletesPerSession, 50)
	def(&c.SoakSessions, 8)
	if c.SoakDuration <= 0 {
		c.SoakDuration = 60 * time.Second
	}
	if c.StatementTimeout <= 0 {
		c.StatementTimeout = 2 * time.Minute
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if len(c.Scenarios) == 0 {
		c.Scenarios = []string{ScenarioDeletes, ScenarioSoak}
	}
	if len(c.DeleteModes) == 0 {
		c.DeleteModes = allTableModes
	}
	if len(c.SoakModes) == 0 {
		c.SoakModes = []TableMode{V3MergeOnRead}
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c, c.check()
}

func (c ContentionConfig) check() error {
	for _, s := range c.Scenarios {
		if s != ScenarioDeletes && s != ScenarioSoak {
			return fmt.Errorf("unknown scenario %q (deletes, soak)", s)
		}
	}
	for _, m := range slices.Concat(c.DeleteModes, c.SoakModes) {
		if !slices.Contains(allTableModes, m) {
			return fmt.Errorf("unknown table mode %q (v2-cow, v2-mor, v3-cow, v3-mor)", m)
		}
	}
	if c.Files > c.Rows {
		return fmt.Errorf("%d files need at least as many rows (have %d)", c.Files, c.Rows)
	}
	if c.DeleteSessions < 2 {
		return errors.New("the deletes scenario needs at least 2 sessions (an erasure job and a retention job)")
	}
	_, err := catalogPropMap(c.CatalogProps)
	return err
}

// catalogPropMap reads key=value settings.
func catalogPropMap(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if k = strings.TrimSpace(k); !ok || k == "" {
			return nil, fmt.Errorf("catalog property %q: want key=value", kv)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}

// RunContention starts the servers, runs every selected scenario in every
// selected mode, calls report after each and returns all results. An error
// is a run that could not be carried out (a server did not start, a table
// could not be created); wrong answers and failed statements are in the
// results (ContentionResult.Failures), so every figure is still printed.
func RunContention(ctx context.Context, cfg ContentionConfig, report func(ContentionResult) error) ([]ContentionResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("bench contention: %w", err)
	}
	sharedLake, err := openLake(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("bench contention: %w", err)
	}
	defer sharedLake.close()
	var results []ContentionResult
	for _, sc := range cfg.Scenarios {
		modes, run := cfg.DeleteModes, runDeletes
		if sc == ScenarioSoak {
			modes, run = cfg.SoakModes, runSoak
		}
		var err error
		results, err = sharedLake.runModes(ctx, sc, modes, run, results, report)
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

type scenarioFunc func(context.Context, *sharedLake, TableMode) (ContentionResult, error)

// runModes runs a scenario in each mode, one after the other or (with
// ParallelModes) all at once, and reports the results in mode order.
func (l *sharedLake) runModes(ctx context.Context, sc string, modes []TableMode, run scenarioFunc,
	results []ContentionResult, report func(ContentionResult) error) ([]ContentionResult, error) {
	if !l.cfg.ParallelModes {
		for _, m := range modes {
			res, err := l.runMode(ctx, sc, m, run)
			if err != nil {
				return results, err
			}
			results = append(results, res)
			if err := report(res); err != nil {
				return results, err
			}
		}
		return results, nil
	}
	out := make([]ContentionResult, len(modes))
	errs := make([]error, len(modes))
	var wg sync.WaitGroup
	for i, m := range modes {
		wg.Go(func() { out[i], errs[i] = l.runMode(ctx, sc, m, run) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return results, err
	}
	for _, res := range out {
		results = append(results, res)
		if err := report(res); err != nil {
			return results, err
		}
	}
	return results, nil
}

func (l *sharedLake) runMode(ctx context.Context, sc string, m TableMode, run scenarioFunc) (ContentionResult, error) {
	l.cfg.Progress(fmt.Sprintf("contention %s %s: %d servers", sc, m, len(l.servers)))
	res, err := run(ctx, l, m)
	if err != nil {
		return res, fmt.Errorf("bench contention %s %s: %w", sc, m, err)
	}
	return res, nil
}

// tableName is unique per run, so that a shared catalog's earlier runs do not collide.
func (l *sharedLake) tableName(scenario string, m TableMode) string {
	return fmt.Sprintf("contention_%s_%s_%s", scenario, strings.ReplaceAll(string(m), "-", "_"), l.runID)
}

func newRunID() string { return strconv.FormatInt(time.Now().UnixMilli(), 36) }
