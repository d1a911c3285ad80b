package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
)

// owSession runs SQL as a client's statements run: Prepare, Execute, and
// every result row drained.
type owSession struct{ s *session.Session }

func newOwSession(eng *session.Engine) owSession {
	return owSession{s: eng.NewSession(stmt.SessionInfo{User: "bench", Database: "bench"})}
}

func (b owSession) Close() { b.s.Close() }

// owOutcome is what a statement answered besides its rows.
type owOutcome struct {
	tag     string
	notices []string
	first   []any // first row's first-column values seen, for count(*) queries
}

func (b owSession) run(ctx context.Context, q string) (owOutcome, error) {
	var out owOutcome
	prep, err := b.s.Prepare(ctx, q, nil)
	if err != nil {
		return out, fmt.Errorf("%s: %w", q, err)
	}
	res, err := b.s.Execute(ctx, prep, nil)
	if err != nil {
		return out, fmt.Errorf("%s: %w", q, err)
	}
	for _, n := range res.Notices {
		out.notices = append(out.notices, n.Message)
	}
	if res.Rows == nil {
		out.tag = res.Tag
		return out, nil
	}
	defer res.Rows.Close()
	for {
		batch, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", q, err)
		}
		if batch.NumCols() > 0 {
			for i := range int(batch.NumRows()) {
				out.first = append(out.first, batch.Column(0).GetOneForMarshal(i))
			}
		}
	}
	out.tag = res.Rows.Tag()
	return out, nil
}

// count runs a single-row count(*) query.
func (b owSession) count(ctx context.Context, q string) (int64, error) {
	out, err := b.run(ctx, q)
	if err != nil {
		return 0, err
	}
	if len(out.first) != 1 {
		return 0, fmt.Errorf("%s: %d rows, want 1", q, len(out.first))
	}
	n, ok := out.first[0].(int64)
	if !ok {
		return 0, fmt.Errorf("%s: got %v (%T), want a bigint", q, out.first[0], out.first[0])
	}
	return n, nil
}

// expectCounts reads the table back: each query must count its value.
func (b owSession) expectCounts(ctx context.Context, want map[string]int64) error {
	for q, n := range want {
		got, err := b.count(ctx, q)
		if err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("read-back %s = %d, model says %d", q, got, n)
		}
	}
	return nil
}

// timed runs q under pprof labels naming the contender and the table size
// (a CPU profile of the run splits with -tagfocus=contender=update-mor-v2
// and -tagfocus=rows=10000000) and measures its wall and CPU time.
func (b owSession) timed(ctx context.Context, contender string, rows int64, q string) (owOutcome, owSample, error) {
	var out owOutcome
	var took owSample
	var err error
	labels := pprof.Labels("contender", contender, "rows", strconv.FormatInt(rows, 10))
	pprof.Do(ctx, labels, func(ctx context.Context) {
		cpu, start := processCPU(), time.Now()
		out, err = b.run(ctx, q)
		took = owSample{wall: time.Since(start), cpu: processCPU() - cpu}
	})
	return out, took, err
}

// owSample is one timed statement.
type owSample struct{ wall, cpu time.Duration }
