package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlConn is a connection to one of the servers that can be opened again
// after a query outlived its client-side deadline (the connection is then
// closed), with the session settings every connection gets.
type sqlConn struct {
	conn  *pgx.Conn
	dial  func(context.Context) (*pgx.Conn, error)
	setup []string
}

func openSQLConn(ctx context.Context, dial func(context.Context) (*pgx.Conn, error), setup ...string) (*sqlConn, error) {
	c := &sqlConn{dial: dial, setup: setup}
	return c, c.reconnect(ctx)
}

func (c *sqlConn) reconnect(ctx context.Context) error {
	c.close()
	conn, err := c.dial(ctx)
	if err != nil {
		return err
	}
	c.conn = conn
	for _, s := range c.setup {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func (c *sqlConn) close() {
	if c.conn != nil {
		c.conn.Close(context.Background())
		c.conn = nil
	}
}

func (c *sqlConn) exec(ctx context.Context, q string) error {
	_, err := c.conn.Exec(ctx, q)
	return err
}

// query runs q over the simple protocol and returns its rows as
// PostgreSQL's text output, every row read, as psql would.
func (c *sqlConn) query(ctx context.Context, q string) ([][]cell, error) {
	results, err := c.conn.PgConn().Exec(ctx, q).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(results) != 1 {
		return nil, fmt.Errorf("%d results, want 1", len(results))
	}
	rows := make([][]cell, len(results[0].Rows))
	for i, r := range results[0].Rows {
		rows[i] = make([]cell, len(r))
		for j, v := range r {
			rows[i][j] = cell{text: string(v), null: v == nil}
		}
	}
	return rows, nil
}

// copyFile streams a COPY text file into table.
func (c *sqlConn) copyFile(ctx context.Context, table, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	tag, err := c.conn.PgConn().CopyFrom(ctx, f, "COPY "+table+" FROM STDIN")
	if err != nil {
		return 0, fmt.Errorf("COPY %s: %w", table, err)
	}
	return tag.RowsAffected(), nil
}

// loadTables creates the eight tables on c and copies the files in.
func loadTables(ctx context.Context, c *sqlConn, files map[string]string, progress func(string)) (map[string]int64, error) {
	rows := map[string]int64{}
	for _, t := range tpchTables {
		if err := c.exec(ctx, tpchDDL[t]); err != nil {
			return nil, fmt.Errorf("create %s: %w", t, err)
		}
		progress("  " + t)
		n, err := c.copyFile(ctx, t, files[t])
		if err != nil {
			return nil, err
		}
		rows[t] = n
	}
	return rows, nil
}

// loadUnbounded is loadTables with no statement timeout, which is for the
// queries (one COPY of SF 10's lineitem takes minutes); the connection
// has it again afterwards.
func loadUnbounded(ctx context.Context, c *sqlConn, files map[string]string, cfg TPCHConfig) (map[string]int64, error) {
	if err := c.exec(ctx, "SET statement_timeout = 0"); err != nil {
		return nil, err
	}
	rows, err := loadTables(ctx, c, files, cfg.Progress)
	if err != nil {
		return nil, err
	}
	return rows, c.exec(ctx, statementTimeout(cfg.Timeout))
}

// statementTimeout is the SET that bounds a query on the server.
func statementTimeout(d time.Duration) string {
	return fmt.Sprintf("SET statement_timeout = '%dms'", d.Milliseconds())
}

// loadMagmalake starts the server, loads the tables over the wire and
// finds each table's data files for DuckDB.
func (r *tpchRunner) loadMagmalake(ctx context.Context, files map[string]string) error {
	data := filepath.Join(r.dir, "magmalake")
	args := func(addr string) []string {
		a := []string{"serve", "--data", data, "--listen", addr, "--auth", "trust"}
		if r.cfg.WorkMem != "" {
			a = append(a, "-c", "work_mem="+r.cfg.WorkMem)
		}
		return a
	}
	var err error
	if r.ml, err = launchServe(ctx, r.cfg.Binary, args); err != nil {
		return fmt.Errorf("magmalake: %w", err)
	}
	dialML := func(ctx context.Context) (*pgx.Conn, error) { return dial(ctx, r.ml.addr) }
	if r.mlConn, err = openSQLConn(ctx, dialML, statementTimeout(r.cfg.Timeout)); err != nil {
		return fmt.Errorf("magmalake: %w", err)
	}
	// The report shows the work_mem the server runs with, --work-mem's or its default.
	if wm, err := r.mlConn.query(ctx, "SHOW work_mem"); err == nil && len(wm) == 1 {
		r.report.WorkMem = wm[0][0].text
	}
	r.cfg.Progress("magmalake: CREATE TABLE and COPY FROM STDIN")
	t0 := time.Now()
	rows, err := loadUnbounded(ctx, r.mlConn, files, r.cfg)
	if err != nil {
		return fmt.Errorf("magmalake: %w: %s", err, r.ml.log.String())
	}
	r.report.MagmalakeLoadS = time.Since(t0).Seconds()
	r.report.Rows = rows
	r.report.LoadPeakRSS = peakRSS(r.ml.cmd.Process.Pid)
	r.files = map[string][]string{}
	for _, t := range tpchTables {
		paths, err := r.mlConn.query(ctx, fmt.Sprintf(`SELECT file_path FROM "%s$data_files"`, t))
		if err != nil {
			return fmt.Errorf("magmalake: %s's data files: %w", t, err)
		}
		for _, p := range paths {
			r.files[t] = append(r.files[t], strings.TrimPrefix(p[0].text, "file://"))
		}
	}
	return nil
}

// loadPostgres starts a cluster, loads the tables, then builds the keys
// and indexes and analyzes, as one prepares heap tables for queries.
func (r *tpchRunner) loadPostgres(ctx context.Context, files map[string]string) error {
	r.cfg.Progress("postgres: starting a cluster, COPY, keys and indexes, VACUUM ANALYZE")
	var err error
	if r.pg, err = startPostgresWith(ctx, r.cfg.PGBin, r.dir, tpchPGSettings); err != nil {
		return err
	}
	r.report.PostgresVersion = r.pg.version(ctx)
	if r.pgPID, err = postmasterPID(filepath.Join(r.pg.dir, "data")); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	dialPG := func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, r.pg.dsn()) }
	if r.pgConn, err = openSQLConn(ctx, dialPG, statementTimeout(r.cfg.Timeout)); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	t0 := time.Now()
	rows, err := loadUnbounded(ctx, r.pgConn, files, r.cfg)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	for t, n := range rows {
		if n != r.report.Rows[t] {
			return fmt.Errorf("postgres: %s has %d rows, magmalake's %d", t, n, r.report.Rows[t])
		}
	}
	// Keys, indexes and statistics are part of PostgreSQL's load; the
	// statement timeout is for queries.
	for _, s := range append(append([]string{"SET statement_timeout = 0"}, tpchPGIndexes...), "VACUUM ANALYZE", "CHECKPOINT", statementTimeout(r.cfg.Timeout)) {
		if err := r.pgConn.exec(ctx, s); err != nil {
			return fmt.Errorf("postgres: %s: %w", s, err)
		}
	}
	r.report.PostgresLoadS = time.Since(t0).Seconds()
	return nil
}
