package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// Every operator stops when its statement ends and holds no more than
// work_mem (issue 48: a join ran 38 s past a 3 s statement_timeout, and
// grew by gigabytes with no 53200).

// bigBatchSession is a session whose batches hold up to a million rows: a
// generate_series of a million rows is one batch, so each operator below
// does all its work inside one call, with nothing between for a consumer
// to look at the context.
func bigBatchSession(t *testing.T) *Session {
	t.Helper()
	return testSessionOn(t, testEngineOptions(t, lake.Config{DataDir: t.TempDir()}, EngineOptions{BatchSize: 1 << 20}))
}

// queryEnds runs q and returns its error. A query here runs for hours
// unless it stops when told, so a watchdog fails the test (rather than the
// package's timeout) if it has not ended long after it was told.
func queryEnds(t *testing.T, s *Session, ctx context.Context, q string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := s.query(ctx, q)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: still running two minutes after it was cancelled", q)
		return nil
	}
}

func wantCanceled(t *testing.T, q string, err error, message string) {
	t.Helper()
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled || se.Message != message {
		t.Fatalf("%s: %v, want 57014 %q", q, err, message)
	}
}

// TestEveryOperatorStopsWhenCancelled runs, for each kind of operator, a
// query whose full run is hours of work (10^12 row pairs, frame rows or
// comparisons, or an endless stream) under statement_timeout and under a
// cancel: it can only end by looking at its context, and must end with
// 57014 in PostgreSQL's words. What is asserted does not depend on the
// machine's speed: a slow machine only gets less far.
func TestEveryOperatorStopsWhenCancelled(t *testing.T) {
	s := bigBatchSession(t)
	// What an operator reads is made in milliseconds, well within the
	// 200 ms the statement gets, so that it is the operator's own loop
	// that is running when the statement ends.
	const (
		k    = "generate_series(1, 100000)"
		m    = "generate_series(1, 1000000)"
		huge = "generate_series(1, 1000000000000000)"
	)
	cases := []struct{ name, q string }{
		{"hash join, residual rejecting all", "SELECT count(*) FROM " + m + " a(x) JOIN " + m + " b(y) ON a.x % 2 = b.y % 2 AND a.x + b.y < 0"},
		{"nested loop join", "SELECT count(*) FROM " + m + " a(x) JOIN " + m + " b(y) ON a.x + b.y < 0"},
		{"left join", "SELECT count(*) FROM " + m + " a(x) LEFT JOIN " + m + " b(y) ON a.x + b.y < 0"},
		{"right join", "SELECT count(*) FROM " + m + " a(x) RIGHT JOIN " + m + " b(y) ON a.x % 3 = b.y % 3 AND a.x + b.y < 0"},
		{"full join", "SELECT count(*) FROM " + m + " a(x) FULL JOIN " + m + " b(y) ON a.x + b.y < 0"},
		{"cross join", "SELECT count(*) FROM " + m + " a(x) CROSS JOIN " + m + " b(y) WHERE a.x + b.y < 0"},
		{"join of joins (issue 48)", "SELECT count(*) FROM " + m + " c(u) JOIN (SELECT a.u FROM " + m + " a(u) LEFT JOIN " + m + " b(v) ON true) j ON c.u + j.u < 0"},
		{"semi join (EXISTS)", "SELECT count(*) FROM " + m + " a(x) WHERE EXISTS (SELECT 1 FROM " + m + " b(y) WHERE b.y + a.x < 0)"},
		// 10^11 comparisons in one evaluation of the outer batch.
		{"quantified subquery (> ALL)", "SELECT count(*) FROM " + m + " a(x) WHERE a.x > ALL (SELECT -y FROM " + k + " b(y))"},
		{"correlated subquery", "SELECT count(*) FROM " + m + " a(x) WHERE (SELECT count(*) FROM " + m + " b(y) WHERE b.y < a.x) < 0"},
		{"lateral", "SELECT count(*) FROM " + m + " a(x), LATERAL (SELECT y FROM " + m + " y WHERE y + a.x < 0) s"},
		{"union", "SELECT count(*) FROM (SELECT x FROM " + huge + " x UNION SELECT 1) u"},
		{"intersect", "SELECT count(*) FROM (SELECT 1 INTERSECT SELECT x FROM " + huge + " x) u"},
		{"except", "SELECT count(*) FROM (SELECT 1 EXCEPT ALL SELECT x FROM " + huge + " x) u"},
		{"window frame aggregate", "SELECT count(s) FROM (SELECT sum(x) OVER (ORDER BY x ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s FROM " + m + " x) w"},
		// A RANGE offset frame is found row by row: 10^10 steps.
		{"window RANGE frame", "SELECT count(f) FROM (SELECT first_value(x) OVER (ORDER BY x RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) AS f FROM " + k + " x) w"},
		{"window sort", "SELECT count(r) FROM (SELECT row_number() OVER (ORDER BY md5(x::text)) AS r FROM " + m + " x) w"},
		{"windows over whole partitions", "SELECT count(l) FROM (SELECT lead(x) OVER (ORDER BY md5(x::text)) AS l, sum(x) OVER (PARTITION BY x % 3) FROM " + m + " x) w"},
		{"aggregate", "SELECT count(*) FROM (SELECT x % 1000 AS k, sum(x) FROM " + huge + " x GROUP BY 1) g"},
		{"aggregate's DISTINCT", "SELECT count(DISTINCT x) FROM " + huge + " x"},
		{"ordered aggregate", "SELECT length(string_agg(x::text, ',' ORDER BY md5(x::text))) FROM " + m + " x"},
		{"distinct", "SELECT count(*) FROM (SELECT DISTINCT x % 7 FROM " + huge + " x) d"},
		{"order by", "SELECT x FROM " + huge + " x ORDER BY x DESC LIMIT 1"},
		{"recursive CTE", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"},
		{"generate_series", "SELECT count(*) FROM " + huge + " x"},
		{"set-returning function in the select list", "SELECT count(*) FROM (SELECT generate_series(1, 1000000000000000)) s"},
		{"VALUES", "SELECT count(*) FROM (VALUES (1), (2)) v(x), " + m + " a(y), " + m + " b(z) WHERE v.x + a.y + b.z < 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustQuery(t, s, "SET statement_timeout = '200ms'")
			wantCanceled(t, c.q, queryEnds(t, s, context.Background(), c.q), "canceling statement due to statement timeout")
			mustQuery(t, s, "RESET statement_timeout")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(200*time.Millisecond, cancel)
			wantCanceled(t, c.q, queryEnds(t, s, ctx, c.q), "canceling statement due to user request")
			if got := mustQuery(t, s, "SELECT 1").text(); got != "1\n" {
				t.Fatalf("after the cancel: %q", got)
			}
		})
	}
}

// TestEveryOperatorHoldsWorkMem runs, for each operator that keeps rows or
// values, a query needing far more than work_mem = 1MB in that operator: it
// fails with 53200 naming the operator, and the session goes on.
func TestEveryOperatorHoldsWorkMem(t *testing.T) {
	s := testSession(t)
	const m = "generate_series(1, 1000000)"
	cases := []struct{ op, q string }{
		// A nested loop holds a side whole, and a hash join a key's rows.
		{"hash join", "SELECT count(b.y) FROM " + m + " a(x) LEFT JOIN " + m + " b(y) ON a.x < b.y"},
		{"hash join", "SELECT count(*) FROM generate_series(1, 10) a(x) FULL JOIN (SELECT 1 AS y FROM " + m + " y) b ON a.x = b.y"},
		{"window function", "SELECT sum(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM " + m + " x"},
		{"WITH RECURSIVE", "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 1000000) SELECT count(*) FROM r"},
		{"a subquery", "SELECT count(*) FROM generate_series(1, 3) a(x) WHERE x = ANY (SELECT y FROM " + m + " b(y) WHERE b.y > a.x)"},
		{"a subquery", "SELECT count(*) FROM generate_series(1, 3) a(x), LATERAL (SELECT y FROM " + m + " y WHERE y > a.x) s"},
	}
	mustQuery(t, s, "SET work_mem = '1MB'")
	for _, c := range cases {
		_, err := s.query(context.Background(), c.q)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.OutOfMemory || !strings.HasPrefix(se.Detail, c.op+" needs more than work_mem (1MB)") ||
			!strings.Contains(se.Detail, "spills ORDER BY, GROUP BY, hash joins, DISTINCT, set operations, aggregates with DISTINCT or ORDER BY, and windows to disk") {
			t.Errorf("%s: %v, want 53200 naming %s", c.q, err, c.op)
		}
	}
	// A GROUP BY of one grouping set spills the groups it cannot hold,
	// DISTINCT and set operations the rows of values they cannot hold, an
	// aggregate's DISTINCT the values it cannot hold (with GROUP BY or
	// without, in a group of half the rows), a window needing only the rows
	// before the current one its sorted rows (holding a peer group); an
	// inner or semi join hashes its side estimated smaller (a series is
	// counted), so ten rows meet a million without holding them, and so
	// does a LEFT JOIN; a FULL JOIN partitions the million, and partitions
	// again the partitions that still do not fit; ORDER BY ... LIMIT whose
	// LIMIT + OFFSET rows do not fit hands them to the spilling sort; a
	// window over a whole partition (or rows after the current one) its
	// partition, replayed from disk; an
	// ordered aggregate spills sorted runs of its rows, and string_agg's
	// text, a value of the result, is held as PostgreSQL holds it.
	aggText := fmt.Sprintf("%d\n", joinedLength(1000000))
	for q, want := range map[string]string{
		"SELECT length(string_agg(x::text, ',')) FROM " + m + " x":                                                                                                      aggText,
		"SELECT length(string_agg(x::text, ',' ORDER BY x DESC)) FROM " + m + " x":                                                                                      aggText,
		"SELECT count(s), min(s), max(l), sum(n) FROM (SELECT sum(x) OVER () AS s, lead(x) OVER (ORDER BY x) AS l, ntile(4) OVER (ORDER BY x) AS n FROM " + m + " x) w": "1000000|500000500000|1000000|2500000\n",
		"SELECT cardinality(array_agg(x)), (array_agg(x ORDER BY x DESC))[1] FROM " + m + " x":                                                                          "1000000|1000000\n",
		"SELECT count(b.y) FROM generate_series(1, 10) a(x) LEFT JOIN " + m + " b(y) ON true":                                                                           "10000000\n",
		"SELECT count(*) FROM generate_series(1, 10) a(x) FULL JOIN " + m + " b(y) ON a.x = b.y":                                                                        "1000000\n",
		"SELECT count(*) FROM generate_series(1, 10) a(x) JOIN " + m + " b(y) ON a.x = b.y":                                                                             "10\n",
		"SELECT count(*) FROM generate_series(1, 10) a(x) JOIN " + m + " b(y) ON a.x + b.y < 0":                                                                         "0\n",
		"SELECT count(*) FROM generate_series(1, 10) a(x) JOIN (SELECT y::numeric(12,2) AS y FROM " + m + " y) b ON a.x::numeric(12,2) = b.y":                           "10\n",
		"SELECT count(*) FROM generate_series(1, 3) a(x) WHERE EXISTS (SELECT 1 FROM " + m + " b(y) WHERE b.y = a.x)":                                                   "3\n",
		"SELECT count(*), sum(n) FROM (SELECT x % 400000 AS k, count(*) AS n FROM " + m + " x GROUP BY 1) g":                                                            "400000|1000000\n",
		"SELECT coalesce(x, 0), count(*) FROM " + m + " x GROUP BY ROLLUP (x) ORDER BY x NULLS FIRST LIMIT 2":                                                           "0|1000000\n1|1\n",
		"SELECT count(*) FROM (SELECT DISTINCT x FROM " + m + " x) d":                                                                                                   "1000000\n",
		"SELECT count(DISTINCT x), sum(DISTINCT x % 1000), count(DISTINCT x::text) FROM " + m + " x":                                                                    "1000000|499500|1000000\n",
		"SELECT x % 2, count(DISTINCT x) FROM " + m + " x GROUP BY 1 ORDER BY 1":                                                                                        "0|500000\n1|500000\n",
		"SELECT count(s), max(s), max(r) FROM (SELECT sum(x) OVER (ORDER BY x) AS s, rank() OVER (ORDER BY x) AS r FROM " + m + " x) w":                                 "1000000|500000500000|1000000\n",
		"SELECT count(*) FROM (SELECT x FROM " + m + " x UNION SELECT 1) u":                                                                                             "1000000\n",
		"SELECT count(*) FROM (SELECT x FROM " + m + " x EXCEPT SELECT 2 * y FROM " + m + " y) e":                                                                       "500000\n",
	} {
		if got := mustQuery(t, s, q).text(); got != want {
			t.Fatalf("%s spilled under 1MB: %q, want %q", q, got, want)
		}
	}
	deep := "SELECT x, x::text AS t FROM " + m + " x ORDER BY t DESC, x OFFSET 500000 LIMIT 3"
	spilled := mustQuery(t, s, deep).text()
	mustQuery(t, s, "RESET work_mem")
	if want := mustQuery(t, s, deep).text(); spilled != want {
		t.Fatalf("%s under 1MB: %q, under the default work_mem %q", deep, spilled, want)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM generate_series(1, 10) a(x) WHERE x IN (SELECT y FROM "+m+" b(y))").text(); got != "10\n" {
		t.Fatalf("under the default work_mem: %q", got)
	}
}

// joinedLength is the length of 1..n as text joined by commas.
func joinedLength(n int) int {
	total := n - 1
	for i := 1; i <= n; i++ {
		total += len(fmt.Sprint(i))
	}
	return total
}
