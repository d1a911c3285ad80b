package lake

import (
	"slices"
	"testing"
)

// TestRowMovesTargets: two inputs with rows not moved, streamed into two
// outputs cut mid-way through the second input. Every moved row lands at
// the position the stream gives it, independent of how it is looked up;
// unmoved rows and unknown files have no target; counts that do not add
// up are refused.
func TestRowMovesTargets(t *testing.T) {
	m := NewRowMoves()
	g := MoveGroup{
		Inputs:  []MovedInput{{Path: "a", Dropped: []uint64{1, 3}, Count: 5}, {Path: "b", Count: 3}},
		Outputs: []MovedOutput{{Path: "x", Rows: 4}, {Path: "y", Rows: 2}},
	}
	if !m.Add(g) {
		t.Fatal("a group whose counts add up was refused")
	}
	type at struct {
		out string
		pos int64
	}
	want := map[string]map[uint64]at{
		"a": {0: {"x", 0}, 2: {"x", 1}, 4: {"x", 2}},
		"b": {0: {"x", 3}, 1: {"y", 0}, 2: {"y", 1}},
	}
	wantSeq := map[string][]at{"a": {{"x", 0}, {"x", 1}, {"x", 2}}, "b": {{"x", 3}, {"y", 0}, {"y", 1}}}
	for path, rows := range want {
		var seq []at
		m.Targets(path, func(out string, pos int64) { seq = append(seq, at{out, pos}) })
		if !slices.Equal(seq, wantSeq[path]) {
			t.Fatalf("%s: targets %v, want %v", path, seq, wantSeq[path])
		}
		for pos, w := range rows {
			out, got, ok := m.Target(path, pos)
			if !ok || out != w.out || got != w.pos {
				t.Fatalf("%s row %d went to %s:%d (%v), want %s:%d", path, pos, out, got, ok, w.out, w.pos)
			}
		}
	}
	for _, q := range []struct {
		path string
		pos  uint64
	}{{"a", 1}, {"a", 3}, {"c", 0}} {
		if out, pos, ok := m.Target(q.path, q.pos); ok {
			t.Fatalf("%s row %d has a target %s:%d, want none", q.path, q.pos, out, pos)
		}
	}
	if !m.Moved("a") || m.Moved("c") || len(m.Files()) != 2 {
		t.Fatalf("moved files %v", m.Files())
	}
	if NewRowMoves().Add(MoveGroup{Inputs: []MovedInput{{Path: "a", Count: 3}}, Outputs: []MovedOutput{{Path: "x", Rows: 2}}}) {
		t.Fatal("3 live rows into 2 were accepted")
	}
}
