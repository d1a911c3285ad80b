package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunMaintenanceSmoke runs every case end to end on a tiny table:
// 20,000 rows in 4 files, 20 DELETEs, 20 one-row INSERTs, one timed run per
// query. The run itself checks each DELETE's count, the full scan against
// the model and every table's answers after both rewrites and on the fresh
// copy; here the figures must be filled. Timings are not asserted.
func TestRunMaintenanceSmoke(t *testing.T) {
	cfg := MaintenanceConfig{Dir: t.TempDir(), Rows: 20_000, Files: 4, SmallInserts: 20, Repeat: 1, SplitTargetSize: 1 << 30}
	var got []MaintenanceResult
	err := RunMaintenance(context.Background(), cfg, func(r MaintenanceResult) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(maintCases) {
		t.Fatalf("%d results, want %d", len(got), len(maintCases))
	}
	model := newLiveModel(20_000, 20)
	for _, r := range got {
		t.Log(r.Line())
		if r.SplitTargetSize != 1<<30 {
			t.Errorf("%s: read.split.target-size %d not recorded", r.Case, r.SplitTargetSize)
		}
		if r.OptimizeMs <= 0 || r.IcebergoMs <= 0 || r.IcebergoGroups == 0 || r.Speedup() <= 0 {
			t.Errorf("%s: rewrite figures %+v", r.Case, r)
		}
		// Three rounds each (the default), every one rewriting again after
		// the rollback: a round with nothing to rewrite fails the run.
		if len(r.OptimizeRunsMs) != 3 || len(r.IcebergoRunsMs) != 3 {
			t.Errorf("%s: rounds %v / %v, want 3 each", r.Case, r.OptimizeRunsMs, r.IcebergoRunsMs)
		}
		for name, q := range map[string]QueryFigures{"scan": r.Scan, "selective": r.Selective} {
			if q.BeforeMs <= 0 || q.AfterMs <= 0 || q.FreshMs <= 0 || q.IcebergoMs <= 0 ||
				q.BeforeBytes <= 0 || q.AfterBytes <= 0 || q.FreshBytes <= 0 || q.IcebergoBytes <= 0 {
				t.Errorf("%s %s: %+v", r.Case, name, q)
			}
		}
		wantBefore, wantLive := 4, model.live
		if r.Case == caseSmallFiles {
			wantBefore, wantLive = 20, 20
		} else if r.RowsDeleted != model.deleted || r.Before.DeleteFiles == 0 {
			t.Errorf("%s: %d rows deleted (model %d), %d delete files", r.Case, r.RowsDeleted, model.deleted, r.Before.DeleteFiles)
		}
		if r.LiveRows != wantLive || r.Before.DataFiles != wantBefore {
			t.Errorf("%s: %d live rows in %d files, want %d in %d", r.Case, r.LiveRows, r.Before.DataFiles, wantLive, wantBefore)
		}
		// Everything is far below 128 MiB: both engines pack it into one
		// file and drop every delete file.
		for who, f := range map[string]FileFigures{"optimize": r.After, "iceberg-go": r.Icebergo, "fresh": r.Fresh} {
			if f.DataFiles != 1 || f.DeleteFiles != 0 {
				t.Errorf("%s: %s left %s", r.Case, who, f)
			}
		}
	}
}

func TestMaintenanceConfigRejects(t *testing.T) {
	for _, tc := range []struct {
		cfg  MaintenanceConfig
		want string
	}{
		{MaintenanceConfig{Cases: []string{"cow"}}, "unknown case"},
		{MaintenanceConfig{Deletes: 101}, "k has 100 values"},
		{MaintenanceConfig{Rows: 10, Files: 20}, "need at least as many rows"},
	} {
		err := RunMaintenance(context.Background(), tc.cfg, func(MaintenanceResult) error {
			t.Fatal("a rejected config ran a case")
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}

func TestMaintenanceResultJSONAndLine(t *testing.T) {
	r := MaintenanceResult{Case: caseMaintV3, OptimizeMs: 100, IcebergoMs: 300,
		Scan:      QueryFigures{AfterMs: 105, FreshMs: 100, AfterBytes: 1000, FreshBytes: 1000},
		Selective: QueryFigures{AfterMs: 12, FreshMs: 10, AfterBytes: 1000, FreshBytes: 1000}}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.JSON()), &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"case", "optimize_ms", "icebergo_ms", "speedup", "scan", "selective", "before", "after", "fresh",
		"scan_after_over_fresh", "selective_bytes_after_over_fresh"} {
		if _, ok := m[f]; !ok {
			t.Errorf("JSON lacks field %q: %v", f, m)
		}
	}
	if m["speedup"] != 3.0 || m["scan_after_over_fresh"] != 1.05 {
		t.Errorf("ratios %v and %v, want 3 and 1.05", m["speedup"], m["scan_after_over_fresh"])
	}
	line := r.Line()
	if !strings.Contains(line, "3.00x faster: target met") || !strings.Contains(line, "1.20x time 1.00x bytes: target NOT met") {
		t.Errorf("line %q lacks the ratios and verdicts", line)
	}
}
