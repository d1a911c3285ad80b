package lake

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCancellableReturnsBeforeTheReaderStops: once the statement's context
// ends, a scan's consumer gets the cancellation at once, while the reader
// below is still busy with a batch (iceberg-go's workers finish theirs
// before they stop); the reader's cleanup runs when it does stop. A
// consumer that stops of its own accord still waits for the cleanup.
func TestCancellableReturnsBeforeTheReaderStops(t *testing.T) {
	batch := func() arrow.RecordBatch {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.Append(1)
		col := b.NewArray()
		defer col.Release()
		return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 1)
	}
	// busy yields one batch, then decodes "forever": until release closes.
	busy := func(decoding, release chan struct{}) func(func(arrow.RecordBatch, error) bool) {
		return func(yield func(arrow.RecordBatch, error) bool) {
			if !yield(batch(), nil) {
				return
			}
			close(decoding)
			<-release
			b := batch()
			if !yield(b, nil) {
				return
			}
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	decoding, release, cleaned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var got []error
	n := 0
	for rec, err := range cancellable(ctx, busy(decoding, release), func() { close(cleaned) }) {
		if err != nil {
			got = append(got, err)
			continue
		}
		rec.Release()
		n++
		<-decoding
		cancel()
	}
	if n != 1 || len(got) != 1 || !errors.Is(got[0], context.Canceled) {
		t.Fatalf("%d batches, errors %v: want 1 batch, then the cancellation", n, got)
	}
	select {
	case <-cleaned:
		t.Fatal("the reader cleaned up before it stopped decoding")
	default:
	}
	close(release)
	<-cleaned // the reader stops, and cleans up, in the background

	decoding, release, cleaned = make(chan struct{}), make(chan struct{}), make(chan struct{})
	close(release)
	for rec, err := range cancellable(context.Background(), busy(decoding, release), func() { close(cleaned) }) {
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		break
	}
	select {
	case <-cleaned:
	default:
		t.Fatal("a consumer that stopped returned before the reader's cleanup")
	}
}
