package deletes

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// numbered yields n one-row batches holding 0..n-1, then err if set.
func numbered(mem memory.Allocator, n int, err error) RowSource {
	sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for i := range n {
			b := array.NewInt64Builder(mem)
			b.Append(int64(i))
			arr := b.NewArray()
			b.Release()
			rec := array.NewRecordBatch(sc, []arrow.Array{arr}, 1)
			arr.Release()
			if !yield(rec, nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

// TestPrefetched: batches arrive in order; the source's error arrives
// after its batches; stopping early releases every batch read ahead (the
// checked allocator ends with nothing held).
func TestPrefetched(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	boom := errors.New("boom")
	var got []int64
	var last error
	for b, err := range prefetched(context.Background(), numbered(mem, 10, boom), 3) {
		if err != nil {
			last = err
			break
		}
		got = append(got, b.Column(0).(*array.Int64).Value(0))
		b.Release()
	}
	if len(got) != 10 || got[0] != 0 || got[9] != 9 || !errors.Is(last, boom) {
		t.Fatalf("got %v then %v, want 0..9 then boom", got, last)
	}
	for b := range prefetched(context.Background(), numbered(mem, 100, nil), 4) {
		b.Release()
		break // the producer is up to 4 batches ahead
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var end error
	for b, err := range prefetched(ctx, numbered(mem, 100, nil), 2) {
		if err != nil {
			end = err
			break
		}
		b.Release()
		if n++; n == 3 {
			cancel()
		}
	}
	if n >= 100 || !errors.Is(end, context.Canceled) {
		t.Errorf("a cancelled prefetch delivered %d batches and ended with %v, want fewer and context.Canceled", n, end)
	}
	mem.AssertSize(t, 0)
}
