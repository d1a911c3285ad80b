package deletes

import (
	"context"
	"errors"
	"slices"
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

// TestPrefetched: with one source, batches arrive in order; the source's error arrives
// after its batches; stopping early releases every batch read ahead (the
// checked allocator ends with nothing held).
func TestPrefetched(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	boom := errors.New("boom")
	var got []int64
	var last error
	for b, err := range prefetchedAll(context.Background(), []RowSource{numbered(mem, 10, boom)}, 1, 3) {
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
	for b := range prefetchedAll(context.Background(), []RowSource{numbered(mem, 100, nil)}, 1, 4) {
		b.Release()
		break // the producer is up to 4 batches ahead
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var end error
	for b, err := range prefetchedAll(ctx, []RowSource{numbered(mem, 100, nil)}, 1, 2) {
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

// TestPrefetchedAll: several sources read at once still yield in source
// order, every batch once; an error in one ends the rows after the batches
// before it; stopping early releases everything read ahead.
func TestPrefetchedAll(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	boom := errors.New("boom")
	var srcs []RowSource
	for i := range 30 {
		srcs = append(srcs, offset(numbered(mem, i%7, nil), int64(i)*100))
	}
	var got []int64
	for b, err := range prefetchedAll(context.Background(), srcs, 3, 2) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.Column(0).(*array.Int64).Value(0))
		b.Release()
	}
	var want []int64
	for i := range 30 {
		for j := range i % 7 {
			want = append(want, int64(i)*100+int64(j))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	srcs[10] = offset(numbered(mem, 3, boom), 1000)
	n := 0
	var last error
	for b, err := range prefetchedAll(context.Background(), srcs, 3, 2) {
		if err != nil {
			last = err
			break
		}
		n++
		b.Release()
	}
	before := 3 // the failing source's own batches, then those of the ten before it
	for i := range 10 {
		before += i % 7
	}
	if n != before || !errors.Is(last, boom) {
		t.Fatalf("%d batches then %v, want %d then boom", n, last, before)
	}
	for b := range prefetchedAll(context.Background(), srcs, 3, 2) {
		b.Release()
		break
	}
	mem.AssertSize(t, 0)
}

// offset adds base to numbered's values.
func offset(src RowSource, base int64) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range src {
			if err != nil {
				yield(nil, err)
				return
			}
			v := b.Column(0).(*array.Int64).Value(0)
			b.Release()
			ib := array.NewInt64Builder(memory.DefaultAllocator)
			ib.Append(base + v)
			arr := ib.NewArray()
			ib.Release()
			rec := array.NewRecordBatch(b.Schema(), []arrow.Array{arr}, 1)
			arr.Release()
			if !yield(rec, nil) {
				return
			}
		}
	}
}
