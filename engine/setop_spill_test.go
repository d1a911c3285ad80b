package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// setSpillSide is n generated rows (x, s) with NULLs and repeated values:
// x = (g * mul) % mod, NULL when g is a multiple of 101.
func setSpillSide(n, mul, mod int) string {
	return fmt.Sprintf(`SELECT CASE WHEN g %% 101 = 0 THEN NULL ELSE (g * %d) %% %d END AS x, 'v' || CAST(g %% 3 AS text) AS s
	FROM generate_series(1, %d) AS q(g)`, mul, mod, n)
}

// setSpillModel is setSpillSide's rows as text, "x s", one per row.
func setSpillModel(n, mul, mod int) []string {
	out := make([]string, 0, n)
	for g := 1; g <= n; g++ {
		x := "NULL"
		if g%101 != 0 {
			x = fmt.Sprint((g * mul) % mod)
		}
		out = append(out, fmt.Sprintf("%s v%d", x, g%3))
	}
	return out
}

// tally counts rows by value.
func tally(rows []string) map[string]int {
	m := map[string]int{}
	for _, r := range rows {
		m[r]++
	}
	return m
}

// setOpModel is what op keeps of left and right, as sorted text rows.
func setOpModel(op string, left, right []string) []string {
	l, r := tally(left), tally(right)
	var out []string
	add := func(k string, n int) {
		for range n {
			out = append(out, k)
		}
	}
	switch op {
	case "UNION":
		for k := range l {
			add(k, 1)
		}
		for k := range r {
			if l[k] == 0 {
				add(k, 1)
			}
		}
	case "INTERSECT", "INTERSECT ALL":
		for k, n := range l {
			if op == "INTERSECT" {
				n = min(n, 1)
			}
			add(k, min(n, r[k]))
		}
	case "EXCEPT":
		for k := range l {
			if r[k] == 0 {
				add(k, 1)
			}
		}
	case "EXCEPT ALL":
		for k, n := range l {
			add(k, max(n-r[k], 0))
		}
	}
	sort.Strings(out)
	return out
}

// textRows runs q under work_mem (bytes, 0: none) with tmp as the temp
// directory and returns its rows as text, in order, failing with the
// error's detail.
func textRows(t *testing.T, ctx context.Context, q string, workMem int64, tmp string) []string {
	t.Helper()
	rows := openSorted(t, ctx, q, workMem, 512, tmp)
	defer rows.Close()
	var out []string
	for {
		b, err := rows.Next(ctx)
		if err == io.EOF {
			return out
		}
		if err != nil {
			var pe *pgerr.Error
			errors.As(err, &pe)
			t.Fatalf("%s under %d bytes: %v (%v)", q, workMem, err, pe)
		}
		for r := 0; r < int(b.NumRows()); r++ {
			vals := make([]string, b.NumCols())
			for c := range vals {
				vals[c] = datumText(sql.DatumAt(b.Column(c), sql.TypeFromArrow(b.Column(c).DataType()), r))
			}
			out = append(out, strings.Join(vals, " "))
		}
	}
}

func sorted(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.Strings(out)
	return out
}

// spillBudgets are the work_mem sizes the spill tests run under: none,
// one where the partitions fit, one where they spill again.
var spillBudgets = []int64{0, 256 << 10, 24 << 10}

// TestSetOperationsSpillAgainstModel: UNION, INTERSECT and EXCEPT (and
// their ALL forms) over sides with far more distinct rows than work_mem
// holds spill by a hash of the row, partitions spilling again when they
// overflow, and keep the model's rows, the same as in memory; no file is
// left behind (issue 52: they failed with 53200).
func TestSetOperationsSpillAgainstModel(t *testing.T) {
	const n = 12000
	left, right := setSpillSide(n, 7919, 5003), setSpillSide(n, 104729, 6007)
	lm, rm := setSpillModel(n, 7919, 5003), setSpillModel(n, 104729, 6007)
	ctx := context.Background()
	for _, op := range []string{"UNION", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"} {
		want := setOpModel(op, lm, rm)
		q := "SELECT x, s FROM (" + left + " " + op + " " + right + ") AS u"
		for _, wm := range spillBudgets {
			tmp := t.TempDir()
			got := sorted(textRows(t, ctx, q, wm, tmp))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s under %d bytes: %d rows, the model %d; %s", op, wm, len(got), len(want), firstDiff(got, want))
			}
			emptyDir(t, tmp)
		}
	}
}

// TestDistinctSpillsAgainstModel: SELECT DISTINCT with far more distinct
// rows than work_mem holds, with and without ORDER BY, over plain and
// grouped rows, and DISTINCT ON, give the model's rows (in ORDER BY's
// order where there is one), the same as in memory, leaving no file.
func TestDistinctSpillsAgainstModel(t *testing.T) {
	const n = 12000
	side := setSpillSide(n, 7919, 5003)
	model := setSpillModel(n, 7919, 5003)
	distinct := setOpModel("EXCEPT", model, nil)
	// DISTINCT ON (s, x % 50) ... ORDER BY s, x % 50, x DESC: the
	// largest x of each (x is NULL only where x % 50 is).
	type onKey struct {
		s string
		m int // -1: NULL
	}
	best := map[onKey]string{}
	for _, r := range model {
		x, s, _ := strings.Cut(r, " ")
		k := onKey{s, -1}
		if x != "NULL" {
			k.m = atoi(x) % 50
		}
		if cur, ok := best[k]; !ok || x != "NULL" && atoi(x) > atoi(cur) {
			best[k] = x
		}
	}
	var on []string
	for k, x := range best {
		m := "NULL"
		if k.m >= 0 {
			m = fmt.Sprint(k.m)
		}
		on = append(on, fmt.Sprintf("%s %s %s", k.s, m, x))
	}
	sort.Slice(on, func(i, j int) bool { return onLess(on[i], on[j]) })
	cases := []struct {
		q       string
		want    []string
		ordered bool
	}{
		{"SELECT DISTINCT x, s FROM (" + side + ") AS d", distinct, false},
		{"SELECT DISTINCT x, s FROM (" + side + ") AS d ORDER BY s, x", orderedBySX(distinct), true},
		{"SELECT DISTINCT x, s FROM (" + side + ") AS d GROUP BY x, s", distinct, false},
		{"SELECT DISTINCT ON (s, x % 50) s, x % 50, x FROM (" + side + ") AS d ORDER BY s, x % 50, x DESC", on, true},
	}
	ctx := context.Background()
	for _, c := range cases {
		for _, wm := range spillBudgets {
			tmp := t.TempDir()
			got := textRows(t, ctx, c.q, wm, tmp)
			if !c.ordered {
				got = sorted(got)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s under %d bytes: %d rows, the model %d; %s", c.q, wm, len(got), len(c.want), firstDiff(got, c.want))
			}
			emptyDir(t, tmp)
		}
	}
}

func atoi(s string) int {
	var v int
	fmt.Sscan(s, &v)
	return v
}

// orderedBySX orders "x s" rows by s, then x with NULLs last.
func orderedBySX(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool {
		xi, si, _ := strings.Cut(out[i], " ")
		xj, sj, _ := strings.Cut(out[j], " ")
		if si != sj {
			return si < sj
		}
		if xi == "NULL" || xj == "NULL" {
			return xj == "NULL" && xi != "NULL"
		}
		return atoi(xi) < atoi(xj)
	})
	return out
}

// onLess orders "s m x" rows by s, then m with NULLs last.
func onLess(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if fa[0] != fb[0] {
		return fa[0] < fb[0]
	}
	if fa[1] == "NULL" || fb[1] == "NULL" {
		return fb[1] == "NULL" && fa[1] != "NULL"
	}
	return atoi(fa[1]) < atoi(fb[1])
}

// TestDistinctSpillCleanup: closing a spilling DISTINCT or UNION early,
// or cancelling its statement, ends with 57014 and removes its files.
func TestDistinctSpillCleanup(t *testing.T) {
	side := setSpillSide(12000, 7919, 5003)
	for _, q := range []string{
		"SELECT DISTINCT x, s FROM (" + side + ") AS d",
		"SELECT x, s FROM (" + side + " UNION " + setSpillSide(12000, 104729, 6007) + ") AS u",
		"SELECT x, s FROM (" + side + " EXCEPT " + setSpillSide(12000, 104729, 6007) + ") AS u",
	} {
		tmp := t.TempDir()
		ctx := context.Background()
		rows := openSorted(t, ctx, q, 24<<10, 512, tmp)
		if _, err := rows.Next(ctx); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		emptyDir(t, tmp)

		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		rows = openSorted(t, cctx, q, 24<<10, 512, tmp)
		var err error
		for err == nil {
			_, err = rows.Next(cctx)
			cancel()
		}
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled {
			t.Fatalf("%s: Next after cancel: %v, want 57014", q, err)
		}
		rows.Close()
		emptyDir(t, tmp)
	}
}
