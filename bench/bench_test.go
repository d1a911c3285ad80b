package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestRunSmoke runs every case on a tiny table and checks that each ran and
// deleted exactly the rows a model of the generated data predicts. Timings
// are not asserted. Two runs per case exercise the repetition.
func TestRunSmoke(t *testing.T) {
	const rows, files = 20_000, 4
	var got []Result
	// However slow the machine, every case runs exactly twice: the budget
	// that stops repeating a costly case is out of reach.
	cfg := Config{Dir: t.TempDir(), Rows: rows, Files: files, MaxRuns: 2, CaseBudget: 24 * time.Hour}
	err := Run(context.Background(), cfg, func(r Result) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sh := newShape(rows, files)
	want := map[string]int64{}
	for _, l := range []Layout{Unpartitioned, Partitioned} {
		for _, p := range predicates(l, sh) {
			var n int64
			for i := range int64(rows) {
				if p.model(sh.rowAt(i)) {
					n++
				}
			}
			for _, m := range allModes {
				want[string(l)+"/"+p.name+" "+string(m)] = n
			}
		}
	}
	if len(want) != 15 {
		t.Fatalf("model has %d cases, want 2 layouts x 3 modes x (2 or 3 predicates) = 15", len(want))
	}
	seen := map[string]bool{}
	for _, r := range got {
		key := r.Case + " " + string(r.Mode)
		n, ok := want[key]
		switch {
		case !ok:
			t.Errorf("unexpected case %s", key)
		case seen[key]:
			t.Errorf("case %s reported twice", key)
		case r.RowsDeleted != n:
			t.Errorf("%s: deleted %d rows, model says %d", key, r.RowsDeleted, n)
		case r.Rows != rows:
			t.Errorf("%s: rows %d, want %d", key, r.Rows, rows)
		case r.Runs != 2:
			t.Errorf("%s: ran %d times, want 2 (MaxRuns)", key, r.Runs)
		}
		seen[key] = true
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("case %s did not run", key)
		}
	}
}

// TestModelShape pins what the cases promise about the data, independently
// of the engines: k = 7 hits about 1% of rows, the id range exactly 10%, and
// one partition is exactly its files' rows.
func TestModelShape(t *testing.T) {
	const rows, files = 40_000, 8
	sh := newShape(rows, files)
	var k7, inGrp int64
	for i := range int64(rows) {
		r := sh.rowAt(i)
		if r.k == 7 {
			k7++
		}
		if r.grp == 3 {
			inGrp++
		}
	}
	if k7 < rows/200 || k7 > rows/50 {
		t.Errorf("k = 7 matched %d of %d rows, want about 1%%", k7, rows)
	}
	var perFile int64
	for f := range files {
		lo, hi := sh.chunk(f)
		if f%sh.parts == 3 {
			perFile += hi - lo
		}
	}
	if inGrp != perFile || inGrp == 0 {
		t.Errorf("grp = 3 matched %d rows, files of partition 3 hold %d", inGrp, perFile)
	}
	for _, p := range predicates(Partitioned, sh) {
		if p.name != "range-10pct" {
			continue
		}
		var n int64
		for i := range int64(rows) {
			if p.model(sh.rowAt(i)) {
				n++
			}
		}
		if n != rows/10 {
			t.Errorf("range matched %d rows, want %d", n, rows/10)
		}
	}
}

func TestResultJSONFields(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal([]byte(Result{Case: "c", Mode: CopyOnWrite}.JSON()), &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"case", "mode", "rows", "rows_deleted", "magmalake_ms", "icebergo_ms", "floor_ms", "peak_heap_bytes"} {
		if _, ok := m[f]; !ok {
			t.Errorf("JSON lacks field %q: %v", f, m)
		}
	}
}

// TestMedianResult checks each figure is its own median over the runs (odd
// and even counts) and peak heaps are the highest seen.
func TestMedianResult(t *testing.T) {
	mk := func(ours, theirs, heap float64) Result {
		return Result{MagmalakeMs: ours, IcebergoMs: theirs, FloorMs: ours / 2, MagmalakeCPUMs: ours * 2,
			PeakHeapBytes: uint64(heap), IcebergoPeakHeapBytes: uint64(heap) * 2, RowsDeleted: 9}
	}
	odd := medianResult(Result{Case: "c"}, []Result{mk(30, 1, 5), mk(10, 3, 7), mk(20, 2, 6)})
	if odd.MagmalakeMs != 20 || odd.IcebergoMs != 2 || odd.FloorMs != 10 || odd.MagmalakeCPUMs != 40 {
		t.Errorf("odd medians: %+v", odd)
	}
	if odd.PeakHeapBytes != 7 || odd.IcebergoPeakHeapBytes != 14 || odd.Runs != 3 || odd.Case != "c" || odd.RowsDeleted != 9 {
		t.Errorf("odd heaps/runs: %+v", odd)
	}
	even := medianResult(Result{}, []Result{mk(40, 4, 1), mk(10, 1, 1), mk(30, 3, 1), mk(20, 2, 1)})
	if even.MagmalakeMs != 25 || even.IcebergoMs != 2.5 {
		t.Errorf("even medians: %+v", even)
	}
}
