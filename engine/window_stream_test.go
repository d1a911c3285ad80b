package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// windowStreamInput is n rows: g; x, NULL every seventh row; o = g / 3,
// so rows come in peer groups of three; p = g % 2.
func windowStreamInput(n int) string {
	return fmt.Sprintf(`(SELECT g, CASE WHEN g %% 7 = 0 THEN NULL ELSE (g * 37) %% 101 END AS x, g / 3 AS o, g %% 2 AS p
	FROM generate_series(1, %d) AS q(g))`, n)
}

// windowStreamRow is one row of the model's input.
type windowStreamRow struct {
	g, o, p int
	x       *int
}

func windowStreamRows(n int) []windowStreamRow {
	rows := make([]windowStreamRow, 0, n)
	for g := 1; g <= n; g++ {
		r := windowStreamRow{g: g, o: g / 3, p: g % 2}
		if g%7 != 0 {
			x := (g * 37) % 101
			r.x = &x
		}
		rows = append(rows, r)
	}
	return rows
}

func textOf(v *int) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(*v)
}

// peerModel is, per row (by g), "g rank dense_rank sum(x) count(x) min(x)
// max(x) count(*)" over the rows of its partition (all rows unless
// partitioned by p) ordered by o, the frame running to the end of its peer
// group (RANGE's default).
func peerModel(rows []windowStreamRow, partitioned bool) []string {
	var out []string
	for _, r := range rows {
		rank, sum, cnt, all := 1, 0, 0, 0
		var lo, hi *int
		dense := map[int]bool{}
		for _, q := range rows {
			if partitioned && q.p != r.p || q.o > r.o {
				continue
			}
			all++
			dense[q.o] = true
			if q.o < r.o {
				rank++
			}
			if q.x != nil {
				sum += *q.x
				cnt++
				if lo == nil || *q.x < *lo {
					lo = q.x
				}
				if hi == nil || *q.x > *hi {
					hi = q.x
				}
			}
		}
		s := "NULL"
		if cnt > 0 {
			s = fmt.Sprint(sum)
		}
		out = append(out, fmt.Sprintf("%d %d %d %s %d %s %s %d", r.g, rank, len(dense), s, cnt, textOf(lo), textOf(hi), all))
	}
	sort.Strings(out)
	return out
}

// rowsModel is, per row, "g row_number lag(x) lag(x, 3, -1) lag(x, 0)
// sum(x) count(*)" over the rows of its partition ordered by g descending,
// the frame running to the current row (ROWS).
func rowsModel(rows []windowStreamRow, partitioned bool) []string {
	var out []string
	for _, r := range rows {
		var before []windowStreamRow // the partition's rows up to r, in window order
		for i := len(rows) - 1; i >= 0; i-- {
			q := rows[i]
			if partitioned && q.p != r.p {
				continue
			}
			before = append(before, q)
			if q.g == r.g {
				break
			}
		}
		m := len(before)
		lag1, lag3 := "NULL", "-1"
		if m > 1 {
			lag1 = textOf(before[m-2].x)
		}
		if m > 3 {
			lag3 = textOf(before[m-4].x)
		}
		sum, cnt := 0, 0
		for _, q := range before {
			if q.x != nil {
				sum += *q.x
				cnt++
			}
		}
		s := "NULL"
		if cnt > 0 {
			s = fmt.Sprint(sum)
		}
		out = append(out, fmt.Sprintf("%d %d %s %s %s %s %d", r.g, m, lag1, lag3, textOf(r.x), s, m))
	}
	sort.Strings(out)
	return out
}

// TestWindowStreamsPastWorkMem: window calls that need only the rows
// before the current one (and its peers) — ranks, lag by a constant,
// aggregates over RANGE, GROUPS and ROWS frames from UNBOUNDED PRECEDING
// to CURRENT ROW — over far more rows than work_mem holds, without
// PARTITION BY or with partitions larger than work_mem, go through the
// external sort and one pass holding a peer group, and give the model's
// rows, the same as in memory; no file is left (issue 52: they failed with
// 53200).
func TestWindowStreamsPastWorkMem(t *testing.T) {
	const n = 3000
	rows := windowStreamRows(n)
	in := windowStreamInput(n)
	peers := func(part string) string {
		w := "(" + part + "ORDER BY o)"
		return "SELECT g, rank() OVER " + w + ", dense_rank() OVER " + w + ", sum(x) OVER " + w +
			", count(x) OVER (" + part + "ORDER BY o GROUPS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), min(x) OVER " + w +
			", max(x) OVER " + w + ", count(*) OVER (" + part + "ORDER BY o RANGE UNBOUNDED PRECEDING) FROM " + in + " AS d"
	}
	byRow := func(part string) string {
		w := "(" + part + "ORDER BY g DESC)"
		return "SELECT g, row_number() OVER " + w + ", lag(x) OVER " + w + ", lag(x, 3, -1) OVER " + w + ", lag(x, 0) OVER " + w +
			", sum(x) OVER (" + part + "ORDER BY g DESC ROWS UNBOUNDED PRECEDING), count(*) OVER (" + part +
			"ORDER BY g DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM " + in + " AS d"
	}
	cases := map[string][]string{
		peers(""):                peerModel(rows, false),
		peers("PARTITION BY p "): peerModel(rows, true),
		byRow(""):                rowsModel(rows, false),
		byRow("PARTITION BY p "): rowsModel(rows, true),
	}
	ctx := context.Background()
	for q, want := range cases {
		for _, wm := range []int64{0, 64 << 10} {
			tmp := t.TempDir()
			got := sorted(textRows(t, ctx, q, wm, tmp))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s under %d bytes: %d rows, the model %d; %s", q, wm, len(got), len(want), firstDiff(got, want))
			}
			emptyDir(t, tmp)
		}
	}
}

// TestWindowPeerGroupPastWorkMem: an aggregate over a RANGE frame holds
// the current row's peers; more of them than work_mem holds fail with
// 53200 saying so, leaving no file, while a ROWS frame over the same rows
// holds none; a cancel ends the pass with 57014.
func TestWindowPeerGroupPastWorkMem(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	q := "SELECT g, sum(g) OVER (ORDER BY g % 2) FROM generate_series(1, 20000) AS q(g)"
	rows := openSorted(t, ctx, q, 64<<10, 512, tmp)
	_, err := rows.Next(ctx)
	rows.Close()
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory || !strings.Contains(pe.Detail, "the rows of one value of its ORDER BY") {
		t.Fatalf("one peer group past work_mem: %v (%v)", err, pe)
	}
	emptyDir(t, tmp)
	got := textRows(t, ctx, "SELECT max(s), count(*) FROM (SELECT sum(g) OVER (ORDER BY g % 2 ROWS UNBOUNDED PRECEDING) AS s FROM generate_series(1, 20000) AS q(g)) AS w", 64<<10, tmp)
	if want := fmt.Sprint(20000*20001/2) + " 20000"; len(got) != 1 || got[0] != want {
		t.Fatalf("ROWS frame over one peer group: %v, want %s", got, want)
	}
	emptyDir(t, tmp)

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows = openSorted(t, cctx, "SELECT g, row_number() OVER (ORDER BY g DESC) FROM generate_series(1, 20000) AS q(g)", 64<<10, 512, tmp)
	for err = nil; err == nil; {
		_, err = rows.Next(cctx)
		cancel()
	}
	rows.Close()
	if !errors.As(err, &pe) || pe.Code != pgerr.QueryCanceled {
		t.Fatalf("Next after cancel: %v, want 57014", err)
	}
	emptyDir(t, tmp)
}
