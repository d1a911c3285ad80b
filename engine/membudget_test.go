package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// runWithWorkMem runs q under a work_mem of limit bytes and drains it.
func runWithWorkMem(q string, limit int64) error {
	return drainQuery(context.Background(), &Env{Options: Options{WorkMem: limit}}, q)
}

// drainQuery runs q in env and reads it to the end.
func drainQuery(ctx context.Context, env *Env, q string) error {
	stmts, err := sql.Parse(q)
	if err != nil {
		return err
	}
	pq, err := Plan(ctx, env, stmts[0].(*sql.Select), nil)
	if err != nil {
		return err
	}
	rows, err := pq.Run(ctx, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	for {
		if _, err := rows.Next(ctx); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// TestWorkMemHashTables: a hash join's build side and a GROUP BY's groups
// count against work_mem. A hash join spills by partitions, and partitions
// again a pair whose build side still does not fit: at 16kB, 40,000 rows a
// side join as they do at 64MB; only one key's rows past work_mem, which
// no partitioning splits, fail with 53200. A GROUP BY of grouping sets
// (ROLLUP, CUBE) spills each set's rows by its own keys and gives at 16kB
// what it gives at 64MB.
func TestWorkMemHashTables(t *testing.T) {
	rel := "(SELECT CAST(g * 3 AS bigint) AS k, 'name-' || CAST(g AS text) AS s FROM generate_series(1, 40000) AS x(g)) AS %s"
	for _, c := range []struct{ q, op string }{
		{"SELECT count(*) FROM " + fmt.Sprintf(rel, "a") + " JOIN " + fmt.Sprintf(rel, "b") + " ON a.k / 40000 = b.k / 40000", "hash join"},
	} {
		err := runWithWorkMem(c.q, 16<<10)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.OutOfMemory || !strings.Contains(se.Detail, c.op) {
			t.Errorf("%.60s... under 16kB: %v, want 53200 naming %s", c.q, err, c.op)
		}
		if err := runWithWorkMem(c.q, 64<<20); err != nil {
			t.Errorf("%.60s... under 64MB: %v", c.q, err)
		}
	}
	for _, q := range []string{
		"SELECT count(*), sum(a.k) FROM " + fmt.Sprintf(rel, "a") + " JOIN " + fmt.Sprintf(rel, "b") + " ON a.k = b.k",
		"SELECT count(*), min(a.s) FROM " + fmt.Sprintf(rel, "a") + " JOIN " + fmt.Sprintf(rel, "b") + " ON a.s = b.s",
		"SELECT count(*), count(b.k) FROM " + fmt.Sprintf(rel, "a") + " LEFT JOIN " + fmt.Sprintf(rel, "b") + " ON a.k = b.k * 2",
		"SELECT s, count(*) FROM " + fmt.Sprintf(rel, "a") + " GROUP BY ROLLUP (s) ORDER BY s",
		"SELECT k, s, sum(k), grouping(k, s) FROM " + fmt.Sprintf(rel, "a") + " GROUP BY CUBE (k, s) ORDER BY k, s",
	} {
		want, err := runIn(context.Background(), NewMemPool(MemPoolOptions{}).Open("s"), q, 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runIn(context.Background(), NewMemPool(MemPoolOptions{}).Open("s"), q, 16<<10)
		if err != nil || got != want {
			t.Errorf("%.60s... under 16kB: %d bytes, %v; under 64MB %d bytes; first differing line: %s", q, len(got), err, len(want), firstDiff(strings.Split(got, "\n"), strings.Split(want, "\n")))
		}
	}
}
