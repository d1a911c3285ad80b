package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wholeWindowQuery has calls that need their whole partition, over two
// windows (two passes) and an OVER () (no sort).
func wholeWindowQuery(n int) string {
	return fmt.Sprintf(`SELECT g, lead(g, 3, -1) OVER w, ntile(3) OVER w, sum(g) OVER (PARTITION BY g %% 2),
	  cume_dist() OVER (ORDER BY g / 7), count(*) OVER ()
	FROM generate_series(1, %d) AS q(g) WINDOW w AS (PARTITION BY g %% 2 ORDER BY g)`, n)
}

// wholeWindowModel is wholeWindowQuery's rows as textRows gives them, sorted.
func wholeWindowModel(n int) []string {
	var parts [2][]int
	for g := 1; g <= n; g++ {
		parts[g%2] = append(parts[g%2], g)
	}
	var out []string
	for _, part := range parts {
		m, sum := len(part), 0
		for _, g := range part {
			sum += g
		}
		for i, g := range part {
			lead := -1
			if i+3 < m {
				lead = part[i+3]
			}
			tile := ntile(int64(i), int64(m), 3)
			// Rows up to the end of g's peer group of g / 7.
			peerEnd := min(n, (g/7)*7+6)
			out = append(out, fmt.Sprintf("%d %d %d %d %v %d", g, lead, tile, sum, float64(peerEnd)/float64(n), n))
		}
	}
	return sorted(out)
}

// TestWholePartitionWindowsSpillAgainstModel: calls needing their whole
// partition (lead, ntile, an aggregate over it, cume_dist, count(*) OVER
// ()) give the model's rows under a work_mem far smaller than a partition,
// as with memory to spare; the partitions go to disk (a temp directory
// that cannot be written fails the statement) and no file is left.
func TestWholePartitionWindowsSpillAgainstModel(t *testing.T) {
	const n = 20000
	ctx := context.Background()
	want := wholeWindowModel(n)
	for _, wm := range []int64{0, 64 << 10} {
		tmp := t.TempDir()
		got := sorted(textRows(t, ctx, wholeWindowQuery(n), wm, tmp))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("under %d bytes: %d rows, want %d; first differing: %s", wm, len(got), len(want), firstDiff(got, want))
		}
		emptyDir(t, tmp)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := &Env{Options: Options{WorkMem: 64 << 10, BatchSize: 512, TempDir: blocked}}
	if err := drainQuery(ctx, env, wholeWindowQuery(n)); err == nil {
		t.Fatal("no spill under 64kB (the temp directory is a file, yet the statement ran)")
	}
}
