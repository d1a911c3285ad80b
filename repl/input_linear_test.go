package repl

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/stmt"
)

// scriptLines is a script of n lines: one INSERT ... VALUES with a row per
// line (values), or a one-row INSERT per line (statements); bench/script.sh
// times the same two.
func scriptLines(kind string, n int) []string {
	lines := make([]string, 0, n)
	if kind == "values" {
		lines = append(lines, "INSERT INTO t VALUES")
		for i := 1; i < n-1; i++ {
			lines = append(lines, fmt.Sprintf("(%d, 'name-%d'),", i, i))
		}
		return append(lines, fmt.Sprintf("(%d, 'name-%d');", n-1, n-1))
	}
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf("INSERT INTO t VALUES (%d, 'name-%d');", i, i))
	}
	return lines
}

// TestInputSplitterLinear: the input buffer does the same work per input
// byte for 10,000 lines as for 100,000, for both kinds of script. The work
// is counted as the bytes it allocates: every scan copies the bytes it
// looks at into a string, so rescanning the pending statement from its
// start at every line (as the shell did before inputBuffer) makes them
// grow tenfold with the pending statement (5,000 bytes per input byte at
// 10,000 lines, 50,000 at 100,000), where linear scanning stays at a few.
func TestInputSplitterLinear(t *testing.T) {
	for _, kind := range []string{"values", "statements"} {
		var perByte [2]float64
		for i, n := range []int{10_000, 100_000} {
			lines := scriptLines(kind, n)
			var b inputBuffer
			input, stmts := 0, 0
			alloc := allocated(func() {
				for _, l := range lines {
					input += len(l) + 1
					stmts += len(b.add(l + "\n"))
				}
			})
			if want := map[string]int{"values": 1, "statements": n}[kind]; stmts != want || !b.empty() {
				t.Fatalf("%s %d: %d statements, %d bytes left, want %d and none", kind, n, stmts, len(b.buf), want)
			}
			perByte[i] = float64(alloc) / float64(input)
			t.Logf("%s, %d lines: %.2f bytes allocated per input byte", kind, n, perByte[i])
		}
		if perByte[1] > 1.5*perByte[0] {
			t.Errorf("%s: %.1f bytes allocated per input byte at 100,000 lines, %.1f at 10,000", kind, perByte[1], perByte[0])
		}
	}
}

// TestScriptInputLinear: the whole script path (reading lines, variables,
// the buffer, handing statements to the session) allocates as much per
// input byte for 100,000 lines as for 10,000.
func TestScriptInputLinear(t *testing.T) {
	for _, kind := range []string{"values", "statements"} {
		var perByte [2]float64
		for i, n := range []int{10_000, 100_000} {
			script := strings.Join(scriptLines(kind, n), "\n") + "\n"
			s := &acceptSession{}
			var out, errOut strings.Builder
			sh := New(s, &out, &errOut)
			var err error
			alloc := allocated(func() { err = sh.RunScript(context.Background(), strings.NewReader(script)) })
			if err != nil || errOut.Len() > 0 {
				t.Fatalf("%s %d: %v %s", kind, n, err, errOut.String())
			}
			if want := map[string]int{"values": 1, "statements": n}[kind]; s.statements != want {
				t.Fatalf("%s %d: %d statements run, want %d", kind, n, s.statements, want)
			}
			perByte[i] = float64(alloc) / float64(len(script))
			t.Logf("%s, %d lines: %.1f bytes allocated per input byte", kind, n, perByte[i])
		}
		if perByte[1] > 1.5*perByte[0] {
			t.Errorf("%s: %.1f bytes allocated per input byte at 100,000 lines, %.1f at 10,000", kind, perByte[1], perByte[0])
		}
	}
}

// allocated is the heap bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// acceptSession runs every statement as an INSERT of one row.
type acceptSession struct{ statements int }

func (s *acceptSession) Prepare(_ context.Context, query string, _ []uint32) (*stmt.Prepared, error) {
	return &stmt.Prepared{Query: query}, nil
}

func (s *acceptSession) Execute(context.Context, *stmt.Prepared, []stmt.Param) (*stmt.Result, error) {
	s.statements++
	return &stmt.Result{Tag: "INSERT 0 1"}, nil
}

func (s *acceptSession) TxStatus() byte { return stmt.TxIdle }
