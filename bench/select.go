package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// `magmalake-bench select` measures the query engine (engine, through
// SQL on a session.Session) beside PostgreSQL 15 and DuckDB on the same data:
// the delete bench's 8-column table (Rows rows in Files data files written
// by magmalake) and a 10,000-row dimension, loaded into PostgreSQL heap
// tables with COPY and read by DuckDB with read_parquet over magmalake's own
// data files. Every query's answer must be the same in all three systems.

// Fact table names: the measured table, and the smaller one the point
// lookup also runs on, to show whether its time depends on the table size.
const (
	factTable  = "fact"
	smallTable = "fact_small"
)

// SelectConfig sizes `bench select`. The zero value is the full run but for
// the reference systems' locations.
type SelectConfig struct {
	Dir        string // scratch directory (removed afterwards); empty: the temp dir
	Rows       int64  // fact rows; default 10,000,000
	Files      int    // data files of each fact table; default 40
	LookupRows int64  // rows of the second table for the point lookup; default 1,000,000 (none when equal to Rows)
	Repeat     int    // timed runs of each query after one warm-up; medians reported; default 5
	PGBin      string // PostgreSQL 15's bin directory; default /usr/lib/postgresql/15/bin
	// DuckDBModules is a directory whose node_modules holds @duckdb/node-api.
	DuckDBModules string
	NoPostgres    bool // leave PostgreSQL out (development)
	NoDuckDB      bool // leave DuckDB out (development)
	// Storage puts magmalake's tables on object storage instead of Dir.
	// DuckDB reads magmalake's data files from disk, so it must be left
	// out then; PostgreSQL's tables stay in its own cluster.
	Storage
	// Queries names the queries to run (selectQueries' names); empty runs
	// every one. Measuring one query at full size then takes its own time
	// and the data generation only.
	Queries  []string
	Progress func(msg string)
}

func (c SelectConfig) withDefaults() SelectConfig {
	if c.Rows <= 0 {
		c.Rows = 10_000_000
	}
	if c.Files <= 0 {
		c.Files = 40
	}
	if c.LookupRows <= 0 {
		c.LookupRows = 1_000_000
	}
	if c.Repeat <= 0 {
		c.Repeat = 5
	}
	if c.PGBin == "" {
		c.PGBin = "/usr/lib/postgresql/15/bin"
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c
}

func (c SelectConfig) check() error {
	if int64(c.Files) > min(c.Rows, c.LookupRows) {
		return fmt.Errorf("%d files need at least as many rows", c.Files)
	}
	for _, name := range c.Queries {
		if !slices.ContainsFunc(selectQueries(c.Rows), func(q selectQuery) bool { return q.name == name }) {
			return fmt.Errorf("no query named %q", name)
		}
	}
	if !c.NoDuckDB && c.Kind() != StorageLocal {
		return fmt.Errorf("DuckDB reads magmalake's data files from disk and the warehouse is on %s: add --no-duckdb", c.Kind())
	}
	if !c.NoDuckDB && c.DuckDBModules == "" {
		return errors.New("DuckDB needs --duckdb-modules (a directory with node_modules/@duckdb/node-api: bench/select.sh installs one), or --no-duckdb")
	}
	return nil
}

// SelectReport is a whole run: one result per query and table, and what
// the run found about count(*).
type SelectReport struct {
	Results []SelectResult `json:"results"`
	// Storage is where magmalake's warehouse was (local, s3); each result
	// carries it too.
	Storage string `json:"storage"`
	// CountMetadataOnly is whether count(*) answered with the fact table's
	// data files moved away: then it read manifests only.
	CountMetadataOnly bool     `json:"count_metadata_only"`
	CountProbe        string   `json:"count_probe"`   // what the probe saw
	CountExplain      []string `json:"count_explain"` // EXPLAIN ANALYZE of count(*)
	// PeakHeapBytes is the highest Go heap over all of magmalake's runs.
	PeakHeapBytes   uint64 `json:"peak_heap_bytes"`
	PostgresVersion string `json:"postgres_version"`
	DuckDBVersion   string `json:"duckdb_version"`
	// Mismatches lists the queries whose answers differ between systems.
	Mismatches []string `json:"mismatches"`
}

// RunSelect prepares the data in all three systems, runs every query in
// each and returns the report. A query magmalake cannot run is reported
// with its error; answers that differ between the systems are listed in
// Mismatches and fail the run (the caller still gets the report).
func RunSelect(ctx context.Context, cfg SelectConfig) (rep *SelectReport, err error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("bench select: %w", err)
	}
	ws, err := openWorkspace(ctx, cfg.Dir, cfg.Storage)
	if err != nil {
		return nil, fmt.Errorf("bench select: %w", err)
	}
	defer func() {
		if cerr := ws.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("bench select: clean up: %w", cerr))
		}
	}()
	if ws.remote != "" {
		cfg.Progress("warehouse: " + ws.remote)
	}
	r := &selectRunner{cfg: cfg, ws: ws, report: &SelectReport{Storage: ws.storage}}
	if err := r.prepare(ctx); err != nil {
		return nil, fmt.Errorf("bench select: %w", err)
	}
	defer r.close()
	if err := r.run(ctx); err != nil {
		return r.report, fmt.Errorf("bench select: %w", err)
	}
	if len(r.report.Mismatches) > 0 {
		return r.report, fmt.Errorf("bench select: answers differ: %s", strings.Join(r.report.Mismatches, "; "))
	}
	return r.report, nil
}

// selectRunner holds a run's data and reference systems.
type selectRunner struct {
	cfg    SelectConfig
	ws     *workspace
	facts  map[string]shape    // fact table name → its shape
	files  map[string][]string // table name → data file paths
	pg     *pgServer
	report *SelectReport
}

// plan is what runs: every query on the fact table (or those Queries
// names), and the point lookup on the smaller one.
func (r *selectRunner) plan() []SelectResult {
	var out []SelectResult
	wanted := func(name string) bool { return len(r.cfg.Queries) == 0 || slices.Contains(r.cfg.Queries, name) }
	for _, q := range selectQueries(r.cfg.Rows) {
		if wanted(q.name) {
			out = append(out, SelectResult{Query: q.name, Table: factTable, Storage: r.ws.storage, Rows: r.cfg.Rows, SQL: q.text(factTable)})
		}
	}
	if _, ok := r.facts[smallTable]; ok && wanted(qPoint) {
		for _, q := range selectQueries(r.cfg.LookupRows) {
			if q.name == qPoint {
				out = append(out, SelectResult{Query: q.name, Table: smallTable, Storage: r.ws.storage, Rows: r.cfg.LookupRows, SQL: q.text(smallTable)})
			}
		}
	}
	return out
}

// prepare writes the tables in magmalake and loads them into PostgreSQL.
func (r *selectRunner) prepare(ctx context.Context) error {
	r.facts = map[string]shape{factTable: newShape(r.cfg.Rows, r.cfg.Files)}
	if r.cfg.LookupRows != r.cfg.Rows {
		r.facts[smallTable] = newShape(r.cfg.LookupRows, r.cfg.Files)
	}
	r.files = map[string][]string{}
	for name, sh := range r.facts {
		r.cfg.Progress(fmt.Sprintf("magmalake: writing %s: %d rows in %d files", name, sh.rows, sh.files))
		src, err := owGenerate(ctx, r.ws.wh, name, Unpartitioned, sh)
		if err != nil {
			return err
		}
		r.files[name] = localPaths(src.files)
	}
	dfs, err := writeDim(ctx, r.ws.wh)
	if err != nil {
		return err
	}
	r.files[dimTable] = localPaths(dfs)
	if r.cfg.NoPostgres {
		return nil
	}
	r.cfg.Progress("postgres: starting a cluster, COPY and VACUUM ANALYZE")
	if r.pg, err = startPostgres(ctx, r.cfg.PGBin, r.cfg.Dir); err != nil {
		return err
	}
	r.report.PostgresVersion = r.pg.version(ctx)
	return r.pg.load(ctx, r.facts)
}

func (r *selectRunner) close() {
	if r.pg != nil {
		r.pg.stop()
	}
}

// run times every query in each system, compares the answers and probes
// count(*).
func (r *selectRunner) run(ctx context.Context) error {
	results := r.plan()
	answers := make([]map[string][][]cell, len(results))
	s := r.ws.eng.NewSession(sessionInfo)
	defer s.Close()
	for i := range results {
		answers[i] = map[string][][]cell{}
		res := &results[i]
		r.cfg.Progress(fmt.Sprintf("magmalake: %s on %s", res.Query, res.Table))
		answers[i][sysMagmalake] = r.timeMagmalake(ctx, s, res)
		r.report.PeakHeapBytes = max(r.report.PeakHeapBytes, res.PeakHeapBytes)
		if r.pg != nil {
			r.cfg.Progress(fmt.Sprintf("postgres: %s on %s", res.Query, res.Table))
			answers[i][sysPostgres] = r.timePostgres(ctx, res)
		}
	}
	if !r.cfg.NoDuckDB {
		r.cfg.Progress("duckdb: every query")
		if err := r.timeDuckDB(ctx, results, answers); err != nil {
			return err
		}
	}
	for i := range results {
		r.check(&results[i], answers[i])
	}
	r.report.Results = results
	return r.probeCount(ctx, s)
}

// check compares the answers the systems gave, PostgreSQL's as the
// reference when it ran.
func (r *selectRunner) check(res *SelectResult, answers map[string][][]cell) {
	order := []string{sysPostgres, sysDuckDB, sysMagmalake}
	var ref string
	for _, sys := range order {
		if _, ok := answers[sys]; ok && ref == "" {
			ref = sys
		}
	}
	var agree []string
	for _, sys := range order {
		got, ok := answers[sys]
		if !ok {
			continue
		}
		if d := diffRows(answers[ref], got); d != "" {
			r.report.Mismatches = append(r.report.Mismatches, fmt.Sprintf("%s on %s: %s against %s: %s", res.Query, res.Table, sys, ref, d))
			continue
		}
		agree = append(agree, sys)
	}
	res.ResultRows = len(answers[ref])
	res.Agree = agree
}

// sortedKeys is for deterministic DuckDB setup.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
