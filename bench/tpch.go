package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// `magmalake-bench tpch` runs the 22 TPC-H queries on a `magmalake serve`
// process, PostgreSQL 15 and DuckDB over the same generated data: loaded
// into magmalake with COPY FROM STDIN over the wire protocol, into
// PostgreSQL with COPY (primary keys and foreign-key indexes built after),
// and read by DuckDB from magmalake's own Parquet files (each table's
// current data files, from its $data_files metadata table). magmalake's
// answers are checked against PostgreSQL's; times and the servers' CPU are
// reported per query.

// TPCHConfig sizes `bench tpch`. The zero value is a full SF1 run but for
// the server binary and DuckDB's modules.
type TPCHConfig struct {
	Dir    string  // scratch directory (removed afterwards); empty: the temp dir
	SF     float64 // scale factor; fractions allowed; default 1
	Binary string  // the magmalake executable to serve with; default serverBinary's
	// WorkMem is magmalake's work_mem (the server's -c work_mem); empty:
	// its default.
	WorkMem string
	// Timeout bounds each query on each system; default 300 s.
	Timeout time.Duration
	Repeat  int    // timed runs of each query; medians reported; default 1
	PGBin   string // PostgreSQL 15's bin directory; default /usr/lib/postgresql/15/bin
	// DuckDBModules is a directory whose node_modules holds @duckdb/node-api.
	DuckDBModules string
	NoPostgres    bool
	NoDuckDB      bool
	Queries       []string // names (Q1..Q22) to run; empty: all
	Progress      func(msg string)
}

func (c TPCHConfig) withDefaults() (TPCHConfig, error) {
	if c.SF <= 0 {
		c.SF = 1
	}
	if c.Timeout <= 0 {
		c.Timeout = 300 * time.Second
	}
	if c.Repeat <= 0 {
		c.Repeat = 1
	}
	if c.PGBin == "" {
		c.PGBin = "/usr/lib/postgresql/15/bin"
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	var err error
	if c.Binary, err = binaryOrDefault(c.Binary); err != nil {
		return c, err
	}
	if !c.NoDuckDB && c.DuckDBModules == "" {
		return c, errors.New("DuckDB needs --duckdb-modules (a directory with node_modules/@duckdb/node-api: bench/select.sh installs one), or --no-duckdb")
	}
	return c, nil
}

// plan is the queries that run, in order.
func (c TPCHConfig) plan() ([]tpchQuery, error) {
	all, err := tpchQueries(c.SF)
	if err != nil {
		return nil, err
	}
	if len(c.Queries) == 0 {
		return all, nil
	}
	var out []tpchQuery
	for _, name := range c.Queries {
		i := slices.IndexFunc(all, func(q tpchQuery) bool { return strings.EqualFold(q.name, name) })
		if i < 0 {
			return nil, fmt.Errorf("no query named %q (Q1..Q22)", name)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// RunTPCH generates the data, loads it into each system, runs the queries
// and returns the report. Answers of magmalake's that differ from
// PostgreSQL's are in the report (status wrong) and fail the run; the
// caller still gets the report.
func RunTPCH(ctx context.Context, cfg TPCHConfig) (rep *TPCHReport, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("bench tpch: %w", err)
	}
	queries, err := cfg.plan()
	if err != nil {
		return nil, fmt.Errorf("bench tpch: %w", err)
	}
	dir, err := os.MkdirTemp(cfg.Dir, "magmalake-tpch-")
	if err != nil {
		return nil, fmt.Errorf("bench tpch: %w", err)
	}
	// PostgreSQL's cluster lies below, and its server runs as user
	// postgres when we are root: it must be able to pass through.
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, fmt.Errorf("bench tpch: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil {
			err = errors.Join(err, fmt.Errorf("bench tpch: clean up: %w", rerr))
		}
	}()
	r := &tpchRunner{cfg: cfg, dir: dir, report: &TPCHReport{SF: cfg.SF, TimeoutS: cfg.Timeout.Seconds()}}
	defer r.close()
	if err := r.prepare(ctx); err != nil {
		return r.report, fmt.Errorf("bench tpch: %w", err)
	}
	if err := r.run(ctx, queries); err != nil {
		return r.report, fmt.Errorf("bench tpch: %w", err)
	}
	if bad := r.report.NotOK(); len(bad) > 0 {
		return r.report, fmt.Errorf("bench tpch: %s", strings.Join(bad, "; "))
	}
	return r.report, nil
}

// tpchRunner holds a run's servers.
type tpchRunner struct {
	cfg    TPCHConfig
	dir    string
	ml     *serveProc
	mlConn *sqlConn
	pg     *pgServer
	pgConn *sqlConn
	pgPID  int                 // the postmaster's
	files  map[string][]string // table → magmalake's data files, for DuckDB
	report *TPCHReport
}

func (r *tpchRunner) close() {
	if r.mlConn != nil {
		r.mlConn.close()
	}
	if r.ml != nil {
		r.ml.stop()
	}
	if r.pgConn != nil {
		r.pgConn.close()
	}
	if r.pg != nil {
		r.pg.stop()
	}
}

// prepare generates the data and loads it into magmalake and PostgreSQL.
func (r *tpchRunner) prepare(ctx context.Context) error {
	gen := filepath.Join(r.dir, "gen")
	if err := os.Mkdir(gen, 0o755); err != nil {
		return err
	}
	r.cfg.Progress(fmt.Sprintf("generating TPC-H data at scale %g", r.cfg.SF))
	t0 := time.Now()
	tables, err := generateTPCH(ctx, gen, r.cfg.SF)
	if err != nil {
		return err
	}
	r.report.GenerateS = time.Since(t0).Seconds()
	if err := r.loadMagmalake(ctx, tables); err != nil {
		return err
	}
	if !r.cfg.NoPostgres {
		if err := r.loadPostgres(ctx, tables); err != nil {
			return err
		}
	}
	// The generated text is loaded: give the disk space back before the
	// queries run.
	return os.RemoveAll(gen)
}

// tpchPGSettings: the PostgreSQL (work_mem 256MB), shared buffers
// that hold SF1 and no durability cost during the load.
var tpchPGSettings = []string{
	"fsync=off", "synchronous_commit=off", "full_page_writes=off",
	"shared_buffers=1536MB", "work_mem=256MB", "maintenance_work_mem=512MB", "max_wal_size=4GB",
	"listen_addresses=''",
}
