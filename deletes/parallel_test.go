package deletes

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/compute"
)

// TestForEachParallelSequentialCompute: the planner's file loop runs every
// file once, with arrow's compute kernels on the calling goroutine.
func TestForEachParallelSequentialCompute(t *testing.T) {
	const n = 50
	runs := make([]atomic.Int32, n)
	var parallelKernels atomic.Int32
	err := forEachParallel(context.Background(), n, 4, func(ctx context.Context, i int) error {
		runs[i].Add(1)
		if compute.GetExecCtx(ctx).NumParallel != 1 {
			parallelKernels.Add(1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		if c := runs[i].Load(); c != 1 {
			t.Fatalf("file %d ran %d times", i, c)
		}
	}
	if p := parallelKernels.Load(); p != 0 {
		t.Fatalf("%d files ran with parallel compute kernels", p)
	}
}
