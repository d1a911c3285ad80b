package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The cancel bench measures how long a running statement takes to end
// after a CancelRequest (issue 52: within 100 ms from every operator). A
// `magmalake serve` process gets a generated table; each shape
// (cancel_shapes.go) runs once to its end, then Tries times with a
// CancelRequest sent at moments spread over that run, each timed from
// the request to the statement's 57014. A statement that ends before the
// request is a miss; any other outcome is an error and fails the run.
// Timing lives here, never in tests.

// CancelConfig configures RunCancel.
type CancelConfig struct {
	Binary  string // magmalake executable
	Rows    int    // rows of the generated table (default 2,000,000)
	Tries   int    // cancels per shape (default 20)
	WorkMem string // the server's work_mem ("": its default); a small one cancels spilling operators
	Dir     string // scratch directory ("": the system's)
	// Progress, when set, hears what the bench is doing.
	Progress func(string)
}

// CancelReport is a run's outcome.
type CancelReport struct {
	Rows    int
	WorkMem string
	Results []CancelResult
}

// CancelResult is one shape's outcome.
type CancelResult struct {
	Shape, SQL string
	Full       time.Duration   // its run to the end, uncancelled
	Latencies  []time.Duration // CancelRequest sent → 57014 received, sorted
	Missed     int             // tries that ended before the request
	Errors     []string        // other outcomes
}

func (c CancelConfig) withDefaults() (CancelConfig, error) {
	if c.Rows <= 0 {
		c.Rows = 2_000_000
	}
	if c.Tries <= 0 {
		c.Tries = 20
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	var err error
	if c.Binary, err = binaryOrDefault(c.Binary); err != nil {
		return c, err
	}
	return c, nil
}

// RunCancel runs the cancel bench; the error reports a shape that failed.
func RunCancel(ctx context.Context, cfg CancelConfig) (*CancelReport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.Dir, "magmalake-cancel-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := launchServe(ctx, cfg.Binary, func(addr string) []string {
		a := []string{"serve", "--data", filepath.Join(dir, "data"), "--listen", addr, "--auth", "trust"}
		if cfg.WorkMem != "" {
			a = append(a, "-c", "work_mem="+cfg.WorkMem)
		}
		return a
	})
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	conn, err := dial(ctx, srv.addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	cfg.Progress(fmt.Sprintf("generating t: %d rows", cfg.Rows))
	if _, err := conn.Exec(ctx, fmt.Sprintf(cancelTableSQL, cfg.Rows/3+1, cfg.Rows)); err != nil {
		return nil, fmt.Errorf("create t: %w", err)
	}
	rep := &CancelReport{Rows: cfg.Rows}
	if err := conn.QueryRow(ctx, "SHOW work_mem").Scan(&rep.WorkMem); err != nil {
		return nil, err
	}
	var failed error
	for _, sh := range cancelShapes {
		cfg.Progress(sh.name)
		r, err := cancelShapeRun(ctx, conn, sh, cfg.Tries)
		if err != nil {
			return rep, fmt.Errorf("%s: %w: %s", sh.name, err, srv.log.String())
		}
		rep.Results = append(rep.Results, r)
		if len(r.Errors) > 0 && failed == nil {
			failed = fmt.Errorf("%s: %s", sh.name, r.Errors[0])
		}
	}
	return rep, failed
}

// cancelShapeRun times one uncancelled run of sh, then tries cancels at
// moments from 20 ms to 90% of that run.
func cancelShapeRun(ctx context.Context, conn *pgx.Conn, sh cancelShape, tries int) (CancelResult, error) {
	r := CancelResult{Shape: sh.name, SQL: sh.sql}
	t0 := time.Now()
	if err := drainQuery(ctx, conn, sh.sql); err != nil {
		return r, err
	}
	r.Full = time.Since(t0)
	lo, hi := 20*time.Millisecond, r.Full*9/10
	for i := range tries {
		at := lo
		if hi > lo {
			at += time.Duration(float64(hi-lo) * (float64(i) + 0.5) / float64(tries))
		}
		lat, err := cancelAfter(ctx, conn, sh.sql, at)
		switch {
		case err == nil:
			r.Missed++
		case isCanceled(err):
			r.Latencies = append(r.Latencies, lat)
		default:
			r.Errors = append(r.Errors, err.Error())
		}
		if err := settle(ctx, conn); err != nil {
			return r, err
		}
	}
	slices.Sort(r.Latencies)
	return r, nil
}

// cancelAfter starts q, sends a CancelRequest after at, and returns how
// long q took to end from then, with q's outcome.
func cancelAfter(ctx context.Context, conn *pgx.Conn, q string, at time.Duration) (time.Duration, error) {
	done := make(chan error, 1)
	go func() { done <- drainQuery(ctx, conn, q) }()
	select {
	case err := <-done:
		return 0, err // it ended first
	case <-time.After(at):
	}
	sent := time.Now()
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		<-done
		return 0, fmt.Errorf("send CancelRequest: %w", err)
	}
	err := <-done
	return time.Since(sent), err
}

// settle runs SELECT 1 until it succeeds: a CancelRequest that arrived as
// its statement ended may cancel the next one (as in PostgreSQL).
func settle(ctx context.Context, conn *pgx.Conn) error {
	var err error
	for range 3 {
		if err = drainQuery(ctx, conn, "SELECT 1"); err == nil || !isCanceled(err) {
			return err
		}
	}
	return err
}

// drainQuery runs q and reads all its rows.
func drainQuery(ctx context.Context, conn *pgx.Conn, q string) error {
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

func isCanceled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

// Lines is the report as text: one line per shape, then the slowest
// cancel against the 100 ms target.
func (r *CancelReport) Lines() []string {
	out := []string{fmt.Sprintf("cancel: t of %d rows, work_mem %s", r.Rows, r.WorkMem),
		"| shape | run ms | cancelled | missed | p50 ms | p95 ms | max ms | errors |",
		"|---|--:|--:|--:|--:|--:|--:|--:|"}
	var worst time.Duration
	worstShape := ""
	for _, s := range r.Results {
		max := quantile(s.Latencies, 1)
		if max > worst {
			worst, worstShape = max, s.Shape
		}
		out = append(out, fmt.Sprintf("| %s | %.0f | %d | %d | %.1f | %.1f | %.1f | %d |", s.Shape, ms(s.Full), len(s.Latencies), s.Missed,
			ms(quantile(s.Latencies, 0.5)), ms(quantile(s.Latencies, 0.95)), ms(max), len(s.Errors)))
	}
	verdict := "within"
	if worst > 100*time.Millisecond {
		verdict = "past"
	}
	return append(out, fmt.Sprintf("slowest cancel: %.1f ms (%s), %s the 100 ms target", ms(worst), worstShape, verdict))
}
