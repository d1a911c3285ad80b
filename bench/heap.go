package bench

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapSampleEvery is how often the sampler looks at the heap; runtime/metrics
// reads do not stop the world, so sampling often costs little.
const heapSampleEvery = 2 * time.Millisecond

const heapMetric = "/memory/classes/heap/objects:bytes"

// heapPeak samples the live-and-unswept heap while a contender runs. It
// starts after a GC so the previous case's garbage does not count.
type heapPeak struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func startHeapPeak() *heapPeak {
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{})}
	h.peak = readHeap()
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		t := time.NewTicker(heapSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.peak = max(h.peak, readHeap())
			}
		}
	}()
	return h
}

// Stop ends sampling and returns the peak heap in bytes.
func (h *heapPeak) Stop() uint64 {
	close(h.stop)
	h.done.Wait()
	return max(h.peak, readHeap())
}

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
