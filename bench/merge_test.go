package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// tinyMerge is a run small enough for a unit test: 4,000 rows in 4
// partitions (1,000 rows each), 200 source rows, one run per case.
func tinyMerge(t *testing.T) MergeConfig {
	return MergeConfig{Dir: t.TempDir(), Rows: 4000, Partitions: 4, FlatPartitions: 2, SourceRows: 200, MaxRuns: 1}
}

// TestRunMergeSmoke runs every case in every mode end to end (the run
// itself checks each MERGE's tag, read-back and snapshot, the floor's
// matches, and that a one-partition MERGE runs with the other partitions'
// files moved away). Timings are not asserted.
func TestRunMergeSmoke(t *testing.T) {
	var got []MergeResult
	err := RunMerge(context.Background(), tinyMerge(t), func(r MergeResult) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// scattered in both layouts, one-partition at 4 and at 2 partitions.
	if len(got) != 4*len(allModes) {
		t.Fatalf("%d results, want %d", len(got), 4*len(allModes))
	}
	for _, r := range got {
		if r.Updated != 100 || r.Inserted != 100 || r.Runs != 1 || r.MagmalakeMs <= 0 || r.FloorMs <= 0 {
			t.Errorf("%s %s: %+v", r.Case, r.Mode, r)
		}
		one := strings.HasSuffix(r.Case, caseOnePartition)
		if one && (r.HiddenFiles != r.TableFiles-1 || r.FloorCandidates != 1 || r.ChangedPartitions != 1) {
			t.Errorf("%s %s at %d partitions: %d of %d files hidden, floor read %d, %d partitions changed; want all but one, 1, 1",
				r.Case, r.Mode, r.Partitions, r.HiddenFiles, r.TableFiles, r.FloorCandidates, r.ChangedPartitions)
		}
		if one && r.Mode == allModes[0] && !strings.Contains(r.TargetFilter, "grp") {
			t.Errorf("%s: target filter %q does not name grp", r.Case, r.TargetFilter)
		}
		if !one && r.FloorCandidates != r.TableFiles {
			t.Errorf("%s %s: floor read %d of %d files; scattered keys touch every one", r.Case, r.Mode, r.FloorCandidates, r.TableFiles)
		}
	}
}

// TestMergeSourceModel: the source's ids are distinct, the updated ones
// exist (in the one partition when asked) and the new ones do not.
func TestMergeSourceModel(t *testing.T) {
	sh := overwriteShape(4000, 4)
	for _, name := range []string{caseScatteredMerge, caseOnePartition} {
		ms := newMergeSpec(sh, name, 201)
		seen := map[int64]bool{}
		var upd, ins int64
		for i := range ms.rows() {
			r := ms.sourceRow(i)
			if seen[r.id] {
				t.Fatalf("%s: id %d twice", name, r.id)
			}
			seen[r.id] = true
			if r.id < sh.rows {
				upd++
				if r.grp != sh.rowAt(r.id).grp {
					t.Errorf("%s: updated id %d moves from grp %d to %d", name, r.id, sh.rowAt(r.id).grp, r.grp)
				}
			} else {
				ins++
			}
			if ms.onePart >= 0 && r.grp != ms.onePart {
				t.Errorf("%s: row %d in grp %d, want %d", name, i, r.grp, ms.onePart)
			}
		}
		if upd != 100 || ins != 101 {
			t.Errorf("%s: %d updates, %d inserts; want 100 and 101", name, upd, ins)
		}
	}
}

func TestMergeConfigRejects(t *testing.T) {
	for _, tc := range []struct {
		cfg  MergeConfig
		want string
	}{
		{MergeConfig{Cases: []string{"range-10pct"}}, "unknown case"},
		{MergeConfig{Modes: []Mode{"mor-v4"}}, "unknown mode"},
		{MergeConfig{Rows: 1000, Partitions: 100}, "need partitions of at least"},
		{MergeConfig{Partitions: 5, FlatPartitions: 10}, "must not exceed"},
	} {
		err := RunMerge(context.Background(), tc.cfg, func(MergeResult) error {
			t.Fatal("a rejected config ran a case")
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}

func TestMergeResultJSONAndLine(t *testing.T) {
	r := MergeResult{Case: "partitioned/scattered", Mode: MergeOnReadV3, MagmalakeMs: 300, FloorMs: 200, DuckDBMs: 100}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.JSON()), &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"case", "mode", "rows", "magmalake_ms", "magmalake_cpu_ms", "floor_ms", "duckdb_ms", "peak_heap_bytes", "over_floor", "vs_duckdb", "hidden_files", "changed_partitions"} {
		if _, ok := m[f]; !ok {
			t.Errorf("JSON lacks field %q: %v", f, m)
		}
	}
	if m["over_floor"] != 1.5 || m["vs_duckdb"] != 3.0 {
		t.Errorf("ratios %v and %v, want 1.5 and 3", m["over_floor"], m["vs_duckdb"])
	}
	if line := r.Line(); !strings.Contains(line, "1.50x floor") || !strings.Contains(line, "3.00x duckdb") {
		t.Errorf("line %q lacks the ratios", line)
	}
}

// TestRunMergeDuckDB runs the scattered case with DuckDB beside it;
// MAGMALAKE_DUCKDB_MODULES names a directory holding
// node_modules/@duckdb/node-api (.ci/run and bench/merge.sh install one).
func TestRunMergeDuckDB(t *testing.T) {
	modules := os.Getenv("MAGMALAKE_DUCKDB_MODULES")
	if modules == "" {
		testenv.Missing(t, "MAGMALAKE_DUCKDB_MODULES not set (a directory with node_modules/@duckdb/node-api: npm install @duckdb/node-api@1.5.6-r.1)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node not installed")
	}
	if _, err := os.Stat(filepath.Join(modules, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Fatalf("MAGMALAKE_DUCKDB_MODULES=%s: %v", modules, err)
	}
	cfg := tinyMerge(t)
	cfg.DuckDBModules, cfg.Modes, cfg.FlatPartitions = modules, []Mode{MergeOnReadV3}, -1
	var got []MergeResult
	err := RunMerge(context.Background(), cfg, func(r MergeResult) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 { // scattered in both layouts, one-partition
		t.Fatalf("%d results, want 3", len(got))
	}
	for _, r := range got {
		if r.DuckDBMs <= 0 || r.DuckDBCPUMs <= 0 {
			t.Errorf("%s: DuckDB %v ms, %v CPU ms", r.Case, r.DuckDBMs, r.DuckDBCPUMs)
		}
	}
}
