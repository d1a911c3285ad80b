package bench

import (
	"context"
	"testing"
)

// TestCancelBenchRuns: the cancel bench drives a server through every
// shape, each running to its end once and then cancelled (or missed: at
// this size a statement may end before its CancelRequest), and every
// cancelled statement ends with 57014 and nothing else. Latencies are the
// bench's to report, not the test's to judge.
func TestCancelBenchRuns(t *testing.T) {
	bin := buildServer(t)
	rep, err := RunCancel(context.Background(), CancelConfig{Binary: bin, Rows: 20000, Tries: 2, WorkMem: "1MB", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(cancelShapes) || rep.WorkMem != "1MB" {
		t.Fatalf("%d results for %d shapes, work_mem %s", len(rep.Results), len(cancelShapes), rep.WorkMem)
	}
	for _, r := range rep.Results {
		if len(r.Latencies)+r.Missed != 2 || len(r.Errors) > 0 {
			t.Errorf("%s: %d cancelled, %d missed, errors %v", r.Shape, len(r.Latencies), r.Missed, r.Errors)
		}
	}
	for _, l := range rep.Lines() {
		t.Log(l)
	}
}
