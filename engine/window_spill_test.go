package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// windowSpillQuery computes windows partitioned by g % 200 over n rows,
// with a text column so that the rows are wide.
func windowSpillQuery(n int, order string) string {
	return fmt.Sprintf(`SELECT g %% 200 AS k, g, 'row ' || CAST(g AS text) AS s,
	  row_number() OVER (PARTITION BY g %% 200 ORDER BY g),
	  sum(g) OVER (PARTITION BY g %% 200 ORDER BY g),
	  lag(g) OVER (PARTITION BY g %% 200 ORDER BY g DESC),
	  count(*) OVER (PARTITION BY g %% 200)
	FROM generate_series(1, %d) AS q(g)%s`, n, order)
}

// windowSpillModel is windowSpillQuery's rows, ordered by g.
func windowSpillModel(n int) []string {
	const parts = 200
	out := make([]string, 0, n)
	for g := 1; g <= n; g++ {
		k := g % parts
		first := k
		if first == 0 {
			first = parts
		}
		rn := (g-first)/parts + 1
		sum := rn*first + parts*rn*(rn-1)/2
		last := first + parts*((n-first)/parts) // the partition's largest g
		lag := "NULL"
		if g+parts <= last {
			lag = fmt.Sprint(g + parts)
		}
		out = append(out, fmt.Sprintf("%d %d row %d %d %d %s %d", k, g, g, rn, sum, lag, (last-first)/parts+1))
	}
	return out
}

// TestWindowSpillsByPartition: windows sharing a PARTITION BY over far
// more rows than work_mem holds sort their input by partition through the
// external sort and compute a partition at a time, giving the model's
// rows, the same as in memory, with and without ORDER BY above them, and
// leaving no file (issue 52: they failed with 53200).
func TestWindowSpillsByPartition(t *testing.T) {
	const n = 20000
	want := windowSpillModel(n)
	ctx := context.Background()
	for _, wm := range []int64{0, 256 << 10, 96 << 10} {
		tmp := t.TempDir()
		got := textRows(t, ctx, windowSpillQuery(n, " ORDER BY g"), wm, tmp)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("under %d bytes: %d rows, the model %d; %s", wm, len(got), len(want), firstDiff(got, want))
		}
		emptyDir(t, tmp)
		unordered := sorted(textRows(t, ctx, windowSpillQuery(n, ""), wm, tmp))
		if strings.Join(unordered, "\n") != strings.Join(sorted(want), "\n") {
			t.Errorf("without ORDER BY under %d bytes: %s", wm, firstDiff(unordered, sorted(want)))
		}
		emptyDir(t, tmp)
	}
}

// TestWindowPartitionPastWorkMem: one window partition larger than
// work_mem, for a RANGE frame with offsets (which no pass over sorted
// rows computes), fails with 53200 saying so, leaves no file, and a cancel ends
// a spilling window with 57014.
func TestWindowPartitionPastWorkMem(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	q := "SELECT g, sum(g) OVER (PARTITION BY g > 0 ORDER BY g RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM generate_series(1, 20000) AS q(g)"
	rows := openSorted(t, ctx, q, 64<<10, 512, tmp)
	_, err := rows.Next(ctx)
	rows.Close()
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory || !strings.Contains(pe.Detail, "one window partition") {
		t.Fatalf("one partition past work_mem: %v (%v)", err, pe)
	}
	emptyDir(t, tmp)

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows = openSorted(t, cctx, windowSpillQuery(20000, ""), 64<<10, 512, tmp)
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
