package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgServer is a throwaway PostgreSQL cluster on a socket in its own
// directory, so it collides with no other server on the machine.
type pgServer struct {
	bin      string   // directory of initdb, pg_ctl
	dir      string   // cluster and socket directory
	asPG     bool     // run the tools as user postgres (initdb refuses root)
	settings []string // the server's -c name=value settings
	conn     *pgx.Conn
}

// pgSettings are PostgreSQL 15's defaults but for memory and durability:
// shared buffers that hold the 10M-row table (about 900 MB of heap), and a
// work_mem that keeps the high-cardinality GROUP BY and the window's sort
// in memory, as magmalake's are. Parallel query stays at its default (2
// workers per gather on 2 cores).
var pgSettings = []string{
	"fsync=off", "synchronous_commit=off", "full_page_writes=off",
	"shared_buffers=1536MB", "work_mem=512MB", "maintenance_work_mem=512MB",
	"listen_addresses=''",
}

// startPostgres creates a cluster under parent (empty: the temp directory)
// with pgSettings and connects to it.
func startPostgres(ctx context.Context, bin, parent string) (*pgServer, error) {
	return startPostgresWith(ctx, bin, parent, pgSettings)
}

// startPostgresWith is startPostgres with the server's settings.
func startPostgresWith(ctx context.Context, bin, parent string, settings []string) (*pgServer, error) {
	dir, err := os.MkdirTemp(parent, "magmalake-bench-pg-")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pg := &pgServer{bin: bin, dir: dir, asPG: os.Geteuid() == 0, settings: settings}
	if err := pg.own(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := pg.start(ctx); err != nil {
		pg.stop()
		return nil, err
	}
	if err := pg.connect(ctx); err != nil {
		pg.stop()
		return nil, err
	}
	return pg, nil
}

// dsn is the connection string of the cluster's socket.
func (pg *pgServer) dsn() string {
	return fmt.Sprintf("host=%s port=5432 user=postgres dbname=postgres", pg.dir)
}

// connect (again) to the cluster.
func (pg *pgServer) connect(ctx context.Context) error {
	if pg.conn != nil {
		pg.conn.Close(ctx)
	}
	conn, err := pgx.Connect(ctx, pg.dsn())
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	pg.conn = conn
	return nil
}

// own gives the directory to user postgres when we are root.
func (pg *pgServer) own() error {
	if !pg.asPG {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("postgres: running as root needs a postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(pg.dir, uid, gid); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

func (pg *pgServer) start(ctx context.Context) error {
	data := filepath.Join(pg.dir, "data")
	if err := pg.tool(ctx, "initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return err
	}
	opts := "-k " + pg.dir
	for _, s := range pg.settings {
		opts += " -c " + s
	}
	return pg.tool(ctx, "pg_ctl", "-D", data, "-w", "-l", filepath.Join(pg.dir, "log"), "-o", opts, "start")
}

// tool runs one of PostgreSQL's programs, as postgres when we are root.
func (pg *pgServer) tool(ctx context.Context, name string, args ...string) error {
	path := filepath.Join(pg.bin, name)
	cmd := exec.CommandContext(ctx, path, args...)
	if pg.asPG {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("postgres: %s: %w: %s", name, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// stop ends the cluster and removes its directory.
func (pg *pgServer) stop() {
	if pg.conn != nil {
		pg.conn.Close(context.Background())
	}
	// A fresh context: the run's may already be cancelled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg.tool(ctx, "pg_ctl", "-D", filepath.Join(pg.dir, "data"), "-m", "immediate", "stop")
	os.RemoveAll(pg.dir)
}

// version is the server's version string, for the report.
func (pg *pgServer) version(ctx context.Context) string {
	var v string
	if err := pg.conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "?"
	}
	return v
}

// load creates the fact tables and the dimension with COPY, then VACUUM
// ANALYZE and CHECKPOINT, as one would prepare heap tables for queries.
func (pg *pgServer) load(ctx context.Context, facts map[string]shape) error {
	for name, sh := range facts {
		if err := pg.copyIn(ctx, fmt.Sprintf(factDDL, name), name, func(w io.Writer) error { return copyFact(w, sh) }); err != nil {
			return err
		}
	}
	err := pg.copyIn(ctx, dimDDL, dimTable, func(w io.Writer) error {
		_, err := io.WriteString(w, copyDim())
		return err
	})
	if err != nil {
		return err
	}
	if _, err := pg.conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return fmt.Errorf("postgres: VACUUM ANALYZE: %w", err)
	}
	// Write the loaded tables' dirty buffers now: the checkpointer would
	// otherwise write them (gigabytes at 10M rows) while the first
	// queries are timed, on the cores both systems run on.
	if _, err := pg.conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("postgres: CHECKPOINT: %w", err)
	}
	return nil
}

// copyIn creates table name and streams write's COPY text into it.
func (pg *pgServer) copyIn(ctx context.Context, ddl, name string, write func(io.Writer) error) error {
	if _, err := pg.conn.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("postgres: %s: %w", ddl, err)
	}
	r, w := io.Pipe()
	go func() { w.CloseWithError(write(w)) }()
	_, err := pg.conn.PgConn().CopyFrom(ctx, r, "COPY "+name+" FROM STDIN")
	r.Close()
	if err != nil {
		return fmt.Errorf("postgres: COPY %s: %w", name, err)
	}
	return nil
}

// run is one query over the simple protocol: PostgreSQL's text output,
// every row read, as psql would.
func (pg *pgServer) run(ctx context.Context, q string) ([][]cell, error) {
	results, err := pg.conn.PgConn().Exec(ctx, q).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", q, err)
	}
	if len(results) != 1 {
		return nil, fmt.Errorf("postgres: %s: %d results, want 1", q, len(results))
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
