package bench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// maintQuery is one query the bench times on every state of a table.
type maintQuery struct {
	name string
	sql  func(id table.Identifier) string
}

// maintQueries are the full scan (every column but amount is aggregated
// exactly, so no answer comes from metadata and the answer checks the rows'
// values, not only their number) and the selective query (a narrow id
// range: ids ascend through the files, so file and row-group statistics
// prune it).
func maintQueries(m liveModel) []maintQuery {
	return []maintQuery{
		{"scan", func(id table.Identifier) string {
			return "SELECT count(*), sum(id), sum(k), sum(grp), sum(price), count(amount), count(name), max(name), " +
				"min(ts), max(ts), count(*) FILTER (WHERE flag) FROM " + owQualified(id)
		}},
		{"selective", func(id table.Identifier) string {
			return fmt.Sprintf("SELECT count(*), sum(id), sum(k), sum(price), max(name) FROM %s WHERE id >= %d AND id < %d",
				owQualified(id), m.selLo, m.selHi)
		}},
	}
}

// queryRun is one query's medians on one table, and its answer.
type queryRun struct {
	ms     float64
	bytes  int64
	answer string
}

// measure times the queries before the rewrites, runs OPTIMIZE and
// iceberg-go's rewrite, writes the fresh copy, times the queries on the
// three tables and checks every answer against the one before. It returns
// the fresh copy's name (nil if it was not made) for the caller to drop.
func (r *maintRunner) measure(ctx context.Context, sess owSession, p maintPair, res *MaintenanceResult) (table.Identifier, error) {
	res.Repeat = r.cfg.Repeat
	var err error
	if res.Before, err = r.files(ctx, p.ours); err != nil {
		return nil, err
	}
	qs := maintQueries(p.model)
	r.cfg.Progress(fmt.Sprintf("%s: queries before OPTIMIZE", res.Case))
	before, err := r.timeQueries(ctx, sess, qs, p.ours)
	if err != nil {
		return nil, err
	}
	if err := p.model.checkScan(before[0][0].answer); err != nil {
		return nil, fmt.Errorf("before the rewrites: %w", err)
	}
	if err := r.rewrites(ctx, sess, p, res); err != nil {
		return nil, err
	}
	fresh := lake.Ident(lake.DefaultNamespace, r.name("fresh"))
	if _, err := sess.run(ctx, fmt.Sprintf("CREATE TABLE %s WITH ('format-version' = '%d') AS SELECT * FROM %s",
		owQualified(fresh), p.version, owQualified(p.ours))); err != nil {
		return nil, err
	}
	if err := r.setSplitSize(ctx, res, fresh); err != nil {
		return fresh, err
	}
	if res.Fresh, err = r.files(ctx, fresh); err != nil {
		return fresh, err
	}
	r.cfg.Progress(fmt.Sprintf("%s: queries after OPTIMIZE, on the fresh copy and on iceberg-go's rewrite", res.Case))
	after, err := r.timeQueries(ctx, sess, qs, p.ours, fresh, p.theirs)
	if err != nil {
		return fresh, err
	}
	if err := sameAnswers(qs, before, after, []string{"after OPTIMIZE", "fresh copy", "after iceberg-go's rewrite"}); err != nil {
		return fresh, err
	}
	res.Scan, res.Selective = figures(before[0][0], after[0]), figures(before[1][0], after[1])
	return fresh, nil
}

// rewrites runs OPTIMIZE on our copy and iceberg-go's compaction on theirs,
// timing each, and counts the files each left.
func (r *maintRunner) rewrites(ctx context.Context, sess owSession, p maintPair, res *MaintenanceResult) error {
	ours, theirs, err := r.currentSnapshots(ctx, sess, p)
	if err != nil {
		return err
	}
	var cpuOurs, cpuTheirs []float64
	for round := range r.cfg.Rewrites {
		if round > 0 {
			// Both copies as they were before the rewrite: the same work again.
			for _, rb := range []struct {
				id   table.Identifier
				snap int64
			}{{p.ours, ours}, {p.theirs, theirs}} {
				if _, err := sess.run(ctx, fmt.Sprintf("ALTER TABLE %s EXECUTE rollback_to_snapshot(snapshot_id => %d)", owQualified(rb.id), rb.snap)); err != nil {
					return err
				}
			}
		}
		// Alternate which contender goes first, so neither always runs
		// after the other's garbage or on a machine warmed by it.
		ourTurn := func() error { return r.timeOptimize(ctx, sess, p, res, &cpuOurs) }
		theirTurn := func() error { return r.timeIcebergGo(ctx, p, res, &cpuTheirs) }
		turns := []func() error{ourTurn, theirTurn}
		if round%2 == 1 {
			turns = []func() error{theirTurn, ourTurn}
		}
		for _, turn := range turns {
			if err := turn(); err != nil {
				return err
			}
		}
	}
	res.OptimizeMs, res.OptimizeCPUMs = median(res.OptimizeRunsMs), median(cpuOurs)
	res.IcebergoMs, res.IcebergoCPUMs = median(res.IcebergoRunsMs), median(cpuTheirs)
	if res.After, err = r.files(ctx, p.ours); err != nil {
		return err
	}
	res.Icebergo, err = r.files(ctx, p.theirs)
	return err
}

// timeOptimize times one OPTIMIZE of our copy.
func (r *maintRunner) timeOptimize(ctx context.Context, sess owSession, p maintPair, res *MaintenanceResult, cpuOurs *[]float64) error {
	r.cfg.Progress(fmt.Sprintf("%s: OPTIMIZE", res.Case))
	wall, cpu, err := timedAs(ctx, "optimize", res.Case, func(ctx context.Context) error {
		return r.optimize(ctx, sess, p.ours)
	})
	res.OptimizeRunsMs, *cpuOurs = append(res.OptimizeRunsMs, ms(wall)), append(*cpuOurs, ms(cpu))
	return err
}

// timeIcebergGo times one iceberg-go RewriteDataFiles of its copy.
func (r *maintRunner) timeIcebergGo(ctx context.Context, p maintPair, res *MaintenanceResult, cpuTheirs *[]float64) error {
	r.cfg.Progress(fmt.Sprintf("%s: iceberg-go RewriteDataFiles", res.Case))
	wall, cpu, err := timedAs(ctx, "icebergo", res.Case, func(ctx context.Context) (err error) {
		res.IcebergoGroups, err = rewriteWithIcebergGo(ctx, r.ws.wh, p.theirs, r.cfg)
		return err
	})
	res.IcebergoRunsMs, *cpuTheirs = append(res.IcebergoRunsMs, ms(wall)), append(*cpuTheirs, ms(cpu))
	return err
}

// currentSnapshots are the ids of both copies' current snapshots.
func (r *maintRunner) currentSnapshots(ctx context.Context, sess owSession, p maintPair) (ours, theirs int64, err error) {
	for _, x := range []struct {
		id  table.Identifier
		out *int64
	}{{p.ours, &ours}, {p.theirs, &theirs}} {
		tbl, err := r.ws.wh.LoadTable(ctx, x.id)
		if err != nil {
			return 0, 0, err
		}
		snap := tbl.CurrentSnapshot()
		if snap == nil {
			return 0, 0, fmt.Errorf("%s has no snapshot to rewrite", owQualified(x.id))
		}
		*x.out = snap.SnapshotID
	}
	return ours, theirs, nil
}

// timedAs runs fn under pprof labels naming the contender and case (split
// a profile with -tagfocus=contender=optimize) and returns its wall and
// process CPU time. It collects first, so neither contender pays for the
// garbage of what ran before it.
func timedAs(ctx context.Context, contender, c string, fn func(ctx context.Context) error) (wall, cpu time.Duration, err error) {
	runtime.GC()
	pprof.Do(ctx, pprof.Labels("contender", contender, "case", c), func(ctx context.Context) {
		cpu0, start := processCPU(), time.Now()
		err = fn(ctx)
		wall, cpu = time.Since(start), processCPU()-cpu0
	})
	return wall, cpu, err
}

// optimize runs OPTIMIZE with the configured thresholds, as a client's
// statement runs, and requires it to have rewritten something.
func (r *maintRunner) optimize(ctx context.Context, sess owSession, id table.Identifier) error {
	q := fmt.Sprintf("ALTER TABLE %s EXECUTE optimize(file_size_threshold => '%d', delete_ratio_threshold => %g)",
		owQualified(id), r.cfg.SizeThreshold, r.cfg.RatioThreshold)
	rows, err := mlRun(ctx, sess.s, q)
	if err != nil {
		return err
	}
	if len(rows) != 1 || len(rows[0]) == 0 || rows[0][0].text == "0" {
		return fmt.Errorf("%s: rewrote nothing (%v)", q, rows)
	}
	return nil
}

// timeQueries runs each query once on every table untimed (warm-up, and
// the answer kept), then Repeat rounds that run it on each table in turn,
// so drift on a shared machine spreads over the tables alike; each round
// starts with the next table, so none always runs first (after the
// previous query's garbage) or last.
func (r *maintRunner) timeQueries(ctx context.Context, sess owSession, qs []maintQuery, ids ...table.Identifier) ([][]queryRun, error) {
	out := make([][]queryRun, len(qs))
	for qi, q := range qs {
		out[qi] = make([]queryRun, len(ids))
		times := make([][]float64, len(ids))
		reads := make([][]float64, len(ids))
		for round := -1; round < r.cfg.Repeat; round++ {
			for k := range ids {
				ti := (max(round, 0) + k) % len(ids)
				id := ids[ti]
				answer, took, read, err := runMaintQuery(ctx, sess, q, id)
				if err != nil {
					return nil, err
				}
				if round < 0 {
					out[qi][ti].answer = answer
					continue
				}
				if answer != out[qi][ti].answer {
					return nil, fmt.Errorf("%s on %s answered %q, then %q", q.name, owQualified(id), out[qi][ti].answer, answer)
				}
				times[ti], reads[ti] = append(times[ti], ms(took)), append(reads[ti], float64(read))
			}
		}
		for ti := range ids {
			out[qi][ti].ms, out[qi][ti].bytes = median(times[ti]), int64(median(reads[ti]))
		}
	}
	return out, nil
}

// runMaintQuery runs one query under a pprof label, timing it and counting
// the bytes the process read meanwhile; the answer is its one row as text.
func runMaintQuery(ctx context.Context, sess owSession, q maintQuery, id table.Identifier) (string, time.Duration, int64, error) {
	var rows [][]cell
	var err error
	var took time.Duration
	var read int64
	pprof.Do(ctx, pprof.Labels("query", q.name), func(ctx context.Context) {
		read0, start := readBytes(), time.Now()
		rows, err = mlRun(ctx, sess.s, q.sql(id))
		took, read = time.Since(start), readBytes()-read0
	})
	if err != nil {
		return "", 0, 0, err
	}
	if len(rows) != 1 {
		return "", 0, 0, fmt.Errorf("%s: %d rows, want 1", q.sql(id), len(rows))
	}
	cells := make([]string, len(rows[0]))
	for i, c := range rows[0] {
		cells[i] = c.text
		if c.null {
			cells[i] = "NULL"
		}
	}
	return strings.Join(cells, "|"), took, read, nil
}

// sameAnswers requires every table after the rewrites to answer each
// query as the table did before them.
func sameAnswers(qs []maintQuery, before, after [][]queryRun, names []string) error {
	for qi, q := range qs {
		for ti, run := range after[qi] {
			if run.answer != before[qi][0].answer {
				return fmt.Errorf("%s: the %s answered %q, the table before the rewrites %q", q.name, names[ti], run.answer, before[qi][0].answer)
			}
		}
	}
	return nil
}

// figures are one query's figures from its run before the rewrites and
// its runs after (ours, fresh, iceberg-go's, in timeQueries' order).
func figures(before queryRun, after []queryRun) QueryFigures {
	return QueryFigures{BeforeMs: before.ms, AfterMs: after[0].ms, FreshMs: after[1].ms, IcebergoMs: after[2].ms,
		BeforeBytes: before.bytes, AfterBytes: after[0].bytes, FreshBytes: after[1].bytes, IcebergoBytes: after[2].bytes}
}
