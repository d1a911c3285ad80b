package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// orderedAggQuery has ordered aggregates over n rows: by ORDER BY keys
// (descending, NULLS FIRST, two keys), DISTINCT, input order and FILTER,
// in three groups (one the NULL key) or, with grouped false, one.
func orderedAggQuery(n int, grouped bool) string {
	q := `SELECT %s string_agg(v, ',' ORDER BY g DESC), array_agg(g ORDER BY v NULLS FIRST, g),
	  string_agg(DISTINCT v, ';'), array_agg(DISTINCT g %% 50), array_agg(v) FILTER (WHERE g %% 2 = 0)
	FROM (SELECT g, CASE WHEN g %% 10 = 0 THEN NULL ELSE g %% 3 END AS k,
	  CASE WHEN g %% 7 = 0 THEN NULL ELSE 'v' || CAST(g * 13 %% 1000 AS text) END AS v
	  FROM generate_series(1, %d) AS x(g)) AS s %s`
	if grouped {
		return fmt.Sprintf(q, "k,", n, "GROUP BY k")
	}
	return fmt.Sprintf(q, "", n, "")
}

// orderedAggModel is orderedAggQuery's rows as sortedTextRows gives them.
func orderedAggModel(n int, grouped bool) []string {
	type row struct {
		g int
		v *string
	}
	groups := map[string][]row{}
	for g := 1; g <= n; g++ {
		k := "NULL"
		if grouped && g%10 != 0 {
			k = fmt.Sprint(g % 3)
		}
		r := row{g: g}
		if g%7 != 0 {
			s := fmt.Sprintf("v%d", g*13%1000)
			r.v = &s
		}
		groups[k] = append(groups[k], r)
	}
	text := func(v *string) string {
		if v == nil {
			return "NULL"
		}
		return *v
	}
	var out []string
	for k, rows := range groups {
		var cols []string
		if grouped {
			cols = append(cols, k)
		}
		// string_agg(v, ',' ORDER BY g DESC): NULLs skipped.
		var desc []string
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i].v != nil {
				desc = append(desc, *rows[i].v)
			}
		}
		cols = append(cols, strings.Join(desc, ","))
		// array_agg(g ORDER BY v NULLS FIRST, g).
		byV := slices.Clone(rows)
		slices.SortStableFunc(byV, func(a, b row) int {
			switch {
			case a.v == nil && b.v == nil:
				return a.g - b.g
			case a.v == nil:
				return -1
			case b.v == nil:
				return 1
			case *a.v != *b.v:
				return strings.Compare(*a.v, *b.v)
			}
			return a.g - b.g
		})
		gs := make([]string, len(byV))
		for i, r := range byV {
			gs[i] = fmt.Sprint(r.g)
		}
		cols = append(cols, "{"+strings.Join(gs, ",")+"}")
		// string_agg(DISTINCT v, ';'), array_agg(DISTINCT g % 50).
		var vs []string
		mods := map[int]bool{}
		for _, r := range rows {
			if r.v != nil {
				vs = append(vs, *r.v)
			}
			mods[r.g%50] = true
		}
		slices.Sort(vs)
		cols = append(cols, strings.Join(slices.Compact(vs), ";"))
		var ms []string
		for m := range 50 {
			if mods[m] {
				ms = append(ms, fmt.Sprint(m))
			}
		}
		cols = append(cols, "{"+strings.Join(ms, ",")+"}")
		// array_agg(v) FILTER (WHERE g % 2 = 0): input order, NULLs kept.
		var even []string
		for _, r := range rows {
			if r.g%2 == 0 {
				even = append(even, text(r.v))
			}
		}
		cols = append(cols, "{"+strings.Join(even, ",")+"}")
		out = append(out, strings.Join(cols, "|"))
	}
	slices.Sort(out)
	return out
}

// TestOrderedAggregatesSpillAgainstModel: array_agg and string_agg with
// ORDER BY or DISTINCT keep their rows in sorted runs that spill past
// work_mem, so groups larger than work_mem give the model's values instead
// of failing with 53200 (issue 52), with GROUP BY and without; their files
// are gone afterwards. That they spill is shown by a temp directory that
// cannot be written: the statement then fails under the small work_mem.
func TestOrderedAggregatesSpillAgainstModel(t *testing.T) {
	const n = 20000
	ctx := context.Background()
	for _, grouped := range []bool{true, false} {
		want := orderedAggModel(n, grouped)
		q := orderedAggQuery(n, grouped)
		for _, workMem := range []int64{0, 64 << 10} {
			tmp := t.TempDir()
			got := sortedTextRows(t, ctx, openSorted(t, ctx, q, workMem, 1024, tmp))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("grouped %v, work_mem %d: %d rows, want %d; first differing: %.300s", grouped, workMem, len(got), len(want), firstDiff(got, want))
			}
			if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
				t.Fatalf("temp dir after the aggregation: %d entries (%v)", len(left), err)
			}
		}
		blocked := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(blocked, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := runOrderedAgg(ctx, q, 64<<10, blocked); err == nil {
			t.Fatalf("grouped %v: no spill under 64kB (the temp directory is a file, yet the statement ran)", grouped)
		}
		if err := runOrderedAgg(ctx, q, 0, blocked); err != nil {
			t.Fatalf("grouped %v: in memory with an unwritable temp directory: %v", grouped, err)
		}
	}
}

// runOrderedAgg runs q to the end under workMem with tmp as temp directory.
func runOrderedAgg(ctx context.Context, q string, workMem int64, tmp string) error {
	env := &Env{Options: Options{WorkMem: workMem, BatchSize: 1024, TempDir: tmp}}
	return drainQuery(ctx, env, q)
}
