package bench

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Statuses of a query on one system. magmalake's answer also gets
// statusWrong (it differs from PostgreSQL's) or statusUnchecked (there
// was no PostgreSQL answer to check it against).
const (
	statusOK        = "ok"
	statusWrong     = "wrong"
	statusTimeout   = "timeout"
	statusError     = "error"
	statusUnchecked = "unchecked"
)

// queryCanceled is the SQLSTATE of a statement timeout (57014).
const queryCanceled = "57014"

// TPCHRun is one system's runs of one query: medians of the timed runs,
// or why it did not finish. CPUMs is the server's CPU (magmalake's
// process; PostgreSQL's postmaster, backend and parallel workers;
// DuckDB's node process), not the client's.
type TPCHRun struct {
	Status   string  `json:"status,omitempty"` // "" when the system was left out
	Error    string  `json:"error,omitempty"`
	SQLState string  `json:"sqlstate,omitempty"`
	Ms       float64 `json:"ms"`
	CPUMs    float64 `json:"cpu_ms"`
	Runs     int     `json:"runs"`
}

// TPCHResult is one query in the three systems.
type TPCHResult struct {
	Query string `json:"query"`
	// Status is magmalake's: ok, wrong, timeout, error or unchecked.
	Status string `json:"status"`
	// Diff says how magmalake's answer differs from PostgreSQL's.
	Diff       string  `json:"diff,omitempty"`
	ResultRows int     `json:"result_rows"`
	Magmalake  TPCHRun `json:"magmalake"`
	Postgres   TPCHRun `json:"postgres"`
	DuckDB     TPCHRun `json:"duckdb"`
	// DuckDBDiff says how DuckDB's answer differs from PostgreSQL's
	// (trailing blanks of char(n) aside): a check of the reference.
	DuckDBDiff string `json:"duckdb_diff,omitempty"`
	// PeakRSSBytes is magmalake's server's resident set high-water mark
	// during the query (Linux; since the server started where the mark
	// cannot be reset).
	PeakRSSBytes uint64 `json:"magmalake_peak_rss_bytes"`
}

// run times every query on magmalake and PostgreSQL (one after the other),
// then on DuckDB, and checks the answers.
func (r *tpchRunner) run(ctx context.Context, queries []tpchQuery) error {
	results := make([]TPCHResult, len(queries))
	mlAnswers := make([][][]cell, len(queries))
	pgAnswers := make([][][]cell, len(queries))
	mlPID := r.ml.cmd.Process.Pid
	for i, q := range queries {
		res := &results[i]
		res.Query = q.name
		r.cfg.Progress("magmalake: " + q.name)
		resetPeakRSS(mlPID)
		res.Magmalake, mlAnswers[i] = r.timeQuery(ctx, r.mlConn, q.sql, func() time.Duration { return processCPUOf(mlPID) })
		res.PeakRSSBytes = peakRSS(mlPID)
		if err := r.ml.exited(); err != nil {
			return err
		}
		if r.pgConn != nil {
			r.cfg.Progress("postgres: " + q.name)
			res.Postgres, pgAnswers[i] = r.timeQuery(ctx, r.pgConn, q.sql, func() time.Duration { return treeCPU(r.pgPID) })
		}
	}
	var duckAnswers [][][]cell
	if !r.cfg.NoDuckDB {
		r.cfg.Progress("duckdb: every query")
		var err error
		if duckAnswers, err = r.timeDuckDB(ctx, queries, results); err != nil {
			return err
		}
	}
	for i, q := range queries {
		res := &results[i]
		res.Status, res.Diff = magmalakeStatus(res, q, pgAnswers[i], mlAnswers[i])
		res.ResultRows = max(len(pgAnswers[i]), len(mlAnswers[i]))
		if duckAnswers != nil && res.Postgres.Status == statusOK && res.DuckDB.Status == statusOK {
			res.DuckDBDiff = tpchDiff(trimBlanks(pgAnswers[i]), trimBlanks(duckAnswers[i]), q.order)
		}
		r.report.PeakRSSBytes = max(r.report.PeakRSSBytes, res.PeakRSSBytes)
	}
	r.report.Results = results
	return nil
}

// magmalakeStatus compares magmalake's answer with PostgreSQL's.
func magmalakeStatus(res *TPCHResult, q tpchQuery, want, got [][]cell) (string, string) {
	switch {
	case res.Magmalake.Status != statusOK:
		return res.Magmalake.Status, ""
	case res.Postgres.Status != statusOK:
		return statusUnchecked, ""
	}
	if d := tpchDiff(want, got, q.order); d != "" {
		return statusWrong, d
	}
	return statusOK, ""
}

// timeQuery runs q Repeat times on c and returns the medians and the last
// answer. A run that fails ends the runs: a statement timeout (or the
// client's deadline, a minute after it) is a timeout, anything else an
// error with its SQLSTATE.
func (r *tpchRunner) timeQuery(ctx context.Context, c *sqlConn, q string, cpu func() time.Duration) (TPCHRun, [][]cell) {
	var run TPCHRun
	var wall, cpus []float64
	var rows [][]cell
	for range r.cfg.Repeat {
		qctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout+time.Minute)
		c0, t0 := cpu(), time.Now()
		var err error
		rows, err = c.query(qctx, q)
		wall, cpus = append(wall, ms(time.Since(t0))), append(cpus, ms(cpu()-c0))
		cancel()
		if err != nil {
			run.Status, run.Error, run.SQLState = statusError, err.Error(), errCode(err)
			if run.SQLState == queryCanceled || errors.Is(err, context.DeadlineExceeded) {
				run.Status = statusTimeout
			}
			if c.conn.IsClosed() && ctx.Err() == nil {
				if rerr := c.reconnect(ctx); rerr != nil {
					run.Error += fmt.Sprintf(" (and reconnecting: %v)", rerr)
				}
			}
			return run, nil
		}
	}
	run.Status, run.Runs = statusOK, len(wall)
	run.Ms, run.CPUMs = median(wall), median(cpus)
	return run, rows
}

// timeDuckDB runs every query in one DuckDB process over views of
// magmalake's data files, timed inside it.
func (r *tpchRunner) timeDuckDB(ctx context.Context, queries []tpchQuery, results []TPCHResult) ([][][]cell, error) {
	req := duckdbRequest{Setup: duckdbViews(r.files), Repeat: r.cfg.Repeat, Exact: true, TimeoutMs: r.cfg.Timeout.Milliseconds()}
	for _, q := range queries {
		req.Queries = append(req.Queries, duckdbQuery{Name: q.name, SQL: q.sql})
	}
	reply, err := runDuckDB(ctx, r.cfg.DuckDBModules, r.dir, req)
	if err != nil {
		return nil, err
	}
	if len(reply.Results) != len(queries) {
		return nil, fmt.Errorf("duckdb: %d results for %d queries", len(reply.Results), len(queries))
	}
	r.report.DuckDBVersion = reply.Version
	answers := make([][][]cell, len(queries))
	for i, d := range reply.Results {
		run := &results[i].DuckDB
		switch {
		case d.Timeout:
			run.Status, run.Error = statusTimeout, d.Error
		case d.Error != "":
			run.Status, run.Error = statusError, d.Error
		default:
			run.Status, run.Runs = statusOK, len(d.Ms)
			run.Ms, run.CPUMs = median(d.Ms), median(d.CPUMs)
			answers[i] = d.cells()
		}
	}
	return answers, nil
}

// exited reports a server that is no longer running, with its log's end.
func (p *serveProc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("magmalake exited (%v): %s", p.err, p.log.String())
	default:
		return nil
	}
}
