package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testserver"
)

// TestRunOverwriteSmoke runs every overwrite case at two tiny sizes and
// checks that each ran with the row counts a model of the generated data
// predicts (the run itself also reads every table back). Timings are not
// asserted.
func TestRunOverwriteSmoke(t *testing.T) {
	const parts, newRows, repeat = 8, 300, 2
	sizes := []int64{1_600, 4_000}
	var got []OverwriteResult
	cfg := OverwriteConfig{Dir: t.TempDir(), Sizes: sizes, Partitions: parts, NewRows: newRows, Repeat: repeat}
	err := RunOverwrite(context.Background(), cfg, func(r OverwriteResult) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]OverwriteResult{}
	for _, n := range sizes {
		sh := overwriteShape(n, parts)
		g := sh.overwritePartition()
		var inPart, k7 int64
		for i := range n {
			r := sh.rowAt(i)
			if r.grp == g {
				inPart++
			}
			if r.k == 7 {
				k7++
			}
		}
		if inPart == 0 || k7 == 0 {
			t.Fatalf("size %d: model has %d rows in partition %d and %d with k = 7; the cases would test nothing", n, inPart, g, k7)
		}
		want[fmt.Sprintf("%s cow %d", caseDynamicOverwrite, n)] = OverwriteResult{RowsWritten: newRows, RowsRemoved: inPart, Baseline: baselineInsert}
		for _, m := range []Mode{MergeOnReadV2, MergeOnReadV3} {
			want[fmt.Sprintf("%s %s %d", caseUpdate1pct, m, n)] = OverwriteResult{RowsWritten: k7, Baseline: baselineCoW}
		}
	}
	seen := map[string]bool{}
	for _, r := range got {
		key := fmt.Sprintf("%s %s %d", r.Case, r.Mode, r.Rows)
		w, ok := want[key]
		switch {
		case !ok:
			t.Errorf("unexpected case %s", key)
		case seen[key]:
			t.Errorf("case %s reported twice", key)
		case r.RowsWritten != w.RowsWritten || r.RowsRemoved != w.RowsRemoved:
			t.Errorf("%s: wrote %d removed %d, model says %d and %d", key, r.RowsWritten, r.RowsRemoved, w.RowsWritten, w.RowsRemoved)
		case r.Baseline != w.Baseline || r.Partitions != parts:
			t.Errorf("%s: baseline %q partitions %d, want %q and %d", key, r.Baseline, r.Partitions, w.Baseline, parts)
		case len(r.Samples) != repeat || len(r.BaseSamples) != repeat:
			t.Errorf("%s: %d samples and %d baseline samples, want %d of each", key, len(r.Samples), len(r.BaseSamples), repeat)
		case r.Ms <= 0 || r.BaselineMs <= 0:
			t.Errorf("%s: times %v and %v ms: a contender did not run", key, r.Ms, r.BaselineMs)
		case r.MinMs != slices.Min(r.Samples) || r.BaselineMinMs != slices.Min(r.BaseSamples):
			t.Errorf("%s: minima %v and %v ms disagree with samples %v and %v", key, r.MinMs, r.BaselineMinMs, r.Samples, r.BaseSamples)
		}
		seen[key] = true
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("case %s did not run", key)
		}
	}
}

func TestOverwriteConfigRejects(t *testing.T) {
	for _, tc := range []struct {
		cfg  OverwriteConfig
		want string
	}{
		{OverwriteConfig{Modes: []Mode{CopyOnWrite}}, "copy-on-write is the baseline"},
		{OverwriteConfig{Cases: []string{"scattered-1pct"}}, "unknown case"},
		{OverwriteConfig{Sizes: []int64{50}, Partitions: 100}, "need at least as many rows"},
	} {
		err := RunOverwrite(context.Background(), tc.cfg, func(OverwriteResult) error {
			t.Fatal("a rejected config ran a case")
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}

func TestOwMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0}, {[]float64{5}, 5}, {[]float64{9, 1, 5}, 5}, {[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := owMedian(tc.in); got != tc.want {
			t.Errorf("median %v = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestOverwriteResultJSONAndLine(t *testing.T) {
	r := OverwriteResult{Case: caseUpdate1pct, Mode: MergeOnReadV3, Rows: 10, Ms: 50, Baseline: baselineCoW, BaselineMs: 200}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.JSON()), &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"case", "mode", "rows", "partitions", "rows_written", "rows_removed", "ms", "baseline", "baseline_ms", "samples_ms", "baseline_samples_ms", "min_ms", "baseline_min_ms", "min_ratio", "cpu_ms", "baseline_cpu_ms", "cpu_ratio"} {
		if _, ok := m[f]; !ok {
			t.Errorf("JSON lacks field %q: %v", f, m)
		}
	}
	if m["ratio"] != 0.25 {
		t.Errorf("ratio = %v, want 50/200 = 0.25", m["ratio"])
	}
	if line := r.Line(); !strings.Contains(line, "4.00x faster") {
		t.Errorf("UPDATE line %q does not give the speed-up over copy-on-write (200/50 = 4.00x)", line)
	}
	r = OverwriteResult{Case: caseDynamicOverwrite, Mode: CopyOnWrite, Ms: 120, Baseline: baselineInsert, BaselineMs: 100}
	if line := r.Line(); !strings.Contains(line, "1.20x floor") || !strings.Contains(line, "+20.0 ms") {
		t.Errorf("overwrite line %q does not give 1.20x floor and +20.0 ms", line)
	}
}

// TestExpectCountsCatchesWrongModel makes sure the run's read-back check can
// fail: a wrong expected count is an error, the right one is not.
func TestExpectCountsCatchesWrongModel(t *testing.T) {
	ctx := context.Background()
	eng := testserver.Engine(t, t.TempDir())
	wh := eng.Warehouse()
	sh := overwriteShape(500, 5)
	ident, err := writeStaging(ctx, wh, "staged", sh, 3, 120)
	if err != nil {
		t.Fatal(err)
	}
	s := newOwSession(eng)
	defer s.Close()
	q := "SELECT count(*) FROM " + owQualified(ident) + " WHERE grp = 3 AND name = '" + newRowName + "' AND id >= 500"
	if err := s.expectCounts(ctx, map[string]int64{q: 120}); err != nil {
		t.Errorf("right count rejected: %v", err)
	}
	if err := s.expectCounts(ctx, map[string]int64{q: 119}); err == nil {
		t.Error("wrong count accepted")
	}
}
