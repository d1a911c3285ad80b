package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestKillDuringOptimize (issue 14): `kill -9` of a server while OPTIMIZE
// writes its files leaves the table readable with the same rows, and
// either as it was (same data files) or wholly optimized (one file per
// partition), never half; the dead statement's files are what
// remove_orphan_files then removes, and nothing the table references. The
// kill comes once OPTIMIZE has written its first, second and third new
// file, and last after it answered.
func TestKillDuringOptimize(t *testing.T) {
	bin := buildMagmalake(t)
	dir := t.TempDir()
	flags := []string{"--data", dir}
	var script strings.Builder
	script.WriteString("CREATE TABLE t (id bigint, g int, v bigint) PARTITIONED BY (g) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read');\n")
	for k := range 10 {
		fmt.Fprintf(&script, "INSERT INTO t SELECT i, i %% 8, i * 3 FROM generate_series(%d, %d) i;\n", k*40_000+1, (k+1)*40_000)
	}
	script.WriteString("DELETE FROM t WHERE id % 10 = 0;\n")
	runRepl(t, bin, flags, script.String())
	rows, sum := countSum(t, bin, flags)
	files0 := dataFileCount(t, bin, flags)
	if files0 != 80 {
		t.Fatalf("%d data files to start with, want 80", files0)
	}
	unchanged, landed := 0, false
	for round := 1; round <= 4 && !landed; round++ {
		before := parquetUnder(dir)(t)
		p := startServeProcess(t, bin, flags)
		done := make(chan error, 1)
		go func() {
			_, err := p.conn.Exec(context.Background(), "ALTER TABLE t EXECUTE optimize", pgx.QueryExecModeSimpleProtocol)
			done <- err
		}()
		files := round
		if round == 4 {
			files = math.MaxInt // no kill before the answer
		}
		answered := waitForObjects(t, parquetUnder(dir), before, files, done)
		p.kill(t)
		if n, s := countSum(t, bin, flags); n != rows || s != sum {
			t.Fatalf("round %d: %d rows summing to %d after the kill, want %d and %d", round, n, s, rows, sum)
		}
		switch got := dataFileCount(t, bin, flags); {
		case got == 8:
			landed = true
		case got != files0:
			t.Fatalf("round %d: %d data files after the kill: neither the %d before nor one per partition", round, got, files0)
		case answered:
			t.Fatalf("round %d: OPTIMIZE answered but the table does not show it", round)
		default:
			unchanged++
		}
	}
	if !landed || unchanged == 0 {
		t.Fatalf("%d killed OPTIMIZEs left the table as it was, landed: %v; want some of each", unchanged, landed)
	}
	conn := startServeProcess(t, bin, flags).conn
	// No other process writes the table now: the crashed one is gone.
	if _, err := conn.Exec(context.Background(), "SET magmalake.remove_orphan_files_min_retention = '0s'"); err != nil {
		t.Fatal(err)
	}
	var removed, bytes int64
	if err := conn.QueryRow(context.Background(), "ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '0s')",
		pgx.QueryExecModeSimpleProtocol).Scan(&removed, &bytes); err != nil {
		t.Fatalf("remove_orphan_files: %v", err)
	}
	if removed == 0 {
		t.Fatal("the killed OPTIMIZEs left no file behind for remove_orphan_files: the kills came too late to test anything")
	}
	if n, s := countSum(t, bin, flags); n != rows || s != sum {
		t.Fatalf("after remove_orphan_files: %d rows summing to %d, want %d and %d", n, s, rows, sum)
	}
	t.Logf("%d OPTIMIZEs killed before their commit; remove_orphan_files removed %d files", unchanged, removed)
}

// parquetUnder lists the Parquet files under dir.
func parquetUnder(dir string) func(*testing.T) []string {
	return func(t *testing.T) []string {
		var out []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // a file removed while walking
			}
			if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
}

// dataFileCount reads how many live data files t has, through a repl.
func dataFileCount(t *testing.T, bin string, flags []string) int {
	t.Helper()
	out := runRepl(t, bin, append(slices.Clone(flags), "-c", `SELECT 'files=' || count(*) FROM "t$data_files"`), "")
	for _, line := range strings.Split(out, "\n") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "files=%d", &n); err == nil {
			return n
		}
	}
	t.Fatalf("file count not in the repl's output:\n%s", out)
	return 0
}
