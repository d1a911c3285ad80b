package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// distinctSpillInput is n generated rows: k, one group holding nine rows in
// ten and seven small ones; x, an integer with about 20,000 distinct values
// and NULLs; s, text with about 15,000.
func distinctSpillInput(n int) string {
	return fmt.Sprintf(`(SELECT CASE WHEN g %% 10 = 0 THEN g %% 7 ELSE 100 END AS k,
	  CASE WHEN g %% 13 = 0 THEN NULL ELSE (g * 7919) %% 20011 - 5000 END AS x,
	  't' || CAST((g * 31) %% 15013 AS text) AS s
	FROM generate_series(1, %d) AS q(g))`, n)
}

// distinctSpillModel is, per group of k (or for all rows when all is set),
// "k|count(*)|count(DISTINCT x)|sum(DISTINCT x)|count(DISTINCT s)", sorted.
func distinctSpillModel(n int, all bool) []string {
	type acc struct {
		rows int
		xs   map[int]bool
		ss   map[string]bool
	}
	groups := map[int]*acc{}
	for g := 1; g <= n; g++ {
		k := 100
		if g%10 == 0 {
			k = g % 7
		}
		if all {
			k = -1
		}
		a := groups[k]
		if a == nil {
			a = &acc{xs: map[int]bool{}, ss: map[string]bool{}}
			groups[k] = a
		}
		a.rows++
		if g%13 != 0 {
			a.xs[(g*7919)%20011-5000] = true
		}
		a.ss[fmt.Sprintf("t%d", (g*31)%15013)] = true
	}
	var out []string
	for k, a := range groups {
		sum := 0
		for x := range a.xs {
			sum += x
		}
		line := fmt.Sprintf("%d|%d|%d|%d", a.rows, len(a.xs), sum, len(a.ss))
		if !all {
			line = fmt.Sprint(k) + "|" + line
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// TestDistinctAggregatesSpillAgainstModel: count(DISTINCT) and
// sum(DISTINCT) whose values are far beyond work_mem — without GROUP BY,
// and in one group of a GROUP BY holding most of the rows — spill their
// (group, value) pairs by value and give the model's answers, the same as
// in memory, through one and through nested levels of partitions; no file
// is left (issue 52: they failed with 53200).
func TestDistinctAggregatesSpillAgainstModel(t *testing.T) {
	const n = 60000
	in := distinctSpillInput(n)
	queries := map[string][]string{
		"SELECT count(*), count(DISTINCT x), sum(DISTINCT x), count(DISTINCT s) FROM " + in + " AS d":               distinctSpillModel(n, true),
		"SELECT k, count(*), count(DISTINCT x), sum(DISTINCT x), count(DISTINCT s) FROM " + in + " AS d GROUP BY k": distinctSpillModel(n, false),
	}
	for q, want := range queries {
		for _, workMem := range []int64{0, 1 << 20, 32 << 10} {
			tmp := t.TempDir()
			got := strings.Split(strings.TrimSpace(strings.ReplaceAll(runText(t, q, workMem, tmp), " ", "|")), "\n")
			for i := range got {
				got[i] = strings.TrimSuffix(got[i], "|")
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s under %d bytes:\n%s\nwant\n%s", q, workMem, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			emptyDir(t, tmp)
		}
	}
}

// distinctSpillingContext is cancelled once an aggregate's DISTINCT has
// spilled under tmp, so a query is cancelled in the middle of its spill.
type distinctSpillingContext struct {
	context.Context
	tmp string
}

func (c *distinctSpillingContext) Err() error {
	if dirs, _ := filepath.Glob(filepath.Join(c.tmp, "magmalake-distinct-*")); len(dirs) > 0 {
		return context.Canceled
	}
	return nil
}

// TestDistinctAggregateSpillCancelled: a statement cancelled while its
// DISTINCT aggregate spills ends with 57014 and removes its files.
func TestDistinctAggregateSpillCancelled(t *testing.T) {
	for _, q := range []string{
		"SELECT count(DISTINCT g) FROM generate_series(1, 100000000) AS q(g)",
		"SELECT g % 2, count(DISTINCT g) FROM generate_series(1, 100000000) AS q(g) GROUP BY 1",
	} {
		tmp := t.TempDir()
		ctx := &distinctSpillingContext{Context: context.Background(), tmp: tmp}
		err := runAll(ctx, q, 64<<10, tmp)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled {
			t.Fatalf("%s: %v, want 57014", q, err)
		}
		if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
			t.Fatalf("%s: temp dir after the cancel: %d entries (%v)", q, len(left), err)
		}
	}
}

// runAll runs q to its end, or to its first error.
func runAll(ctx context.Context, q string, workMem int64, tmp string) error {
	stmts, err := sql.Parse(q)
	if err != nil {
		return err
	}
	env := &Env{Options: Options{WorkMem: workMem, BatchSize: 1024, TempDir: tmp}}
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
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
