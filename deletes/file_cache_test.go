package deletes

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table/dv"
)

// TestFileCacheReplaysReads: a file read through the cache a second time
// gives the same batches at the same positions without touching storage,
// another projection of it is another entry, and the cache never holds
// more than its limit, dropping the least recently used file first.
func TestFileCacheReplaysReads(t *testing.T) {
	f := newFixture(t, 3, ModeMergeOnRead, nil)
	for from := int64(0); from < 600; from += 100 {
		f.appendRows(genRows(from, from+100))
	}
	tbl := f.table()
	fs, err := tbl.FS(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := f.liveFiles(tbl)
	plain := positionalReader{fs: fs, formatVersion: 3, batchSize: 32, mem: memory.DefaultAllocator}
	cached := plain
	cached.cache = NewFileCache(1 << 30)
	idOnly := iceberg.NewSchema(0, tbl.Schema().Field(0))
	for _, req := range []*iceberg.Schema{tbl.Schema(), idOnly} {
		for _, df := range data {
			want := readBatches(t, plain, df, req)
			for round := 0; round < 2; round++ {
				var got []arrow.RecordBatch
				var bases []int64
				n, err := cached.read(f.ctx, df.FilePath(), df.FileSizeBytes(), req, func(b arrow.RecordBatch, base int64) error {
					b.Retain()
					got = append(got, b)
					bases = append(bases, base)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if (round == 0) != (n > 0) {
					t.Fatalf("round %d read %d bytes of %s: want storage only on the first", round, n, df.FilePath())
				}
				if len(got) != len(want) || len(got) != 4 {
					t.Fatalf("round %d: %d batches, want %d (100 rows by 32)", round, len(got), len(want))
				}
				for i := range got {
					if bases[i] != int64(32*i) || !got[i].Schema().Equal(want[i].Schema()) || !array.RecordEqual(got[i], want[i]) {
						t.Fatalf("round %d batch %d at %d differs from a plain read", round, i, bases[i])
					}
				}
				releaseAll(got)
			}
			releaseAll(want)
		}
	}
	if h := cached.cache.Hits(); h != int64(2*len(data)) {
		t.Fatalf("%d hits, want one per file and projection (%d)", h, 2*len(data))
	}

	// A limit of about two files' batches: the third evicts the first.
	var one int64
	for _, b := range readBatches(t, plain, data[0], tbl.Schema()) {
		one += batchBytes(b)
		b.Release()
	}
	if one == 0 {
		t.Fatal("a file's batches measure 0 bytes")
	}
	small, limit := plain, 2*one+one/2
	small.cache = newFileCache(limit, limit)
	for _, df := range data[:3] {
		releaseAll(readBatches(t, small, df, tbl.Schema()))
		if used := small.cache.entries.Used(); used > limit || used == 0 {
			t.Fatalf("cache holds %d bytes, limit %d", used, limit)
		}
	}
	releaseAll(readBatches(t, small, data[2], tbl.Schema()))
	releaseAll(readBatches(t, small, data[0], tbl.Schema()))
	if h := small.cache.Hits(); h != 1 {
		t.Fatalf("%d hits: want the newest file kept and the oldest evicted", h)
	}
}

// TestDeletesThroughFileCache: statements planned through one cache over a
// table of small files delete exactly the model's rows, whatever earlier
// statements left cached: existing deletes are applied after the cache, so
// a row deleted since a file was cached is not deleted (or counted) again.
func TestDeletesThroughFileCache(t *testing.T) {
	forEachVariant(t, nil, func(t *testing.T, f *fixture, version int, mode Mode) {
		for from := int64(0); from < 400; from += 50 {
			f.appendRows(genRows(from, from+50))
		}
		cache := NewFileCache(1 << 30)
		opts := Options{Plan: PlanOptions{Cache: cache}}
		for _, m := range []int64{3, 5, 3, 7, 5, 2} {
			pred := idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%m == 0 })
			f.deleteAndCheck(pred, func(r row) bool { return r.id%m == 0 }, opts)
		}
		if cache.Hits() == 0 {
			t.Fatal("no statement was planned from the cache")
		}
	})
}

// TestFileCacheDeletionVectors: a DV read through the cache is the one
// dv.ReadDV reads, the second read of it is a hit, and the DV a later
// DELETE writes for the same data file is read afresh, never the old one.
func TestFileCacheDeletionVectors(t *testing.T) {
	f := newFixture(t, 3, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 200))
	cache := NewFileCache(1 << 30)
	var last int64 = -1
	for _, m := range []int64{7, 3} {
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%m == 0 }),
			func(r row) bool { return r.id%m == 0 }, Options{})
		tbl := f.table()
		fs, err := tbl.FS(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, dels := f.liveFiles(tbl)
		if len(dels) != 1 {
			t.Fatalf("%d delete files, want the data file's one DV", len(dels))
		}
		want, err := dv.ReadDV(fs, dels[0])
		if err != nil {
			t.Fatal(err)
		}
		hits := cache.Hits()
		for round := 0; round < 2; round++ {
			got, err := cache.deletionVector(fs, dels[0])
			if err != nil {
				t.Fatal(err)
			}
			if got.Cardinality() != want.Cardinality() || got.Cardinality() == last {
				t.Fatalf("round %d: %d positions, want %d (the previous DV had %d)", round, got.Cardinality(), want.Cardinality(), last)
			}
			for id := int64(0); id < 200; id++ {
				if got.Contains(uint64(id)) != want.Contains(uint64(id)) {
					t.Fatalf("round %d: position %d differs from dv.ReadDV", round, id)
				}
			}
		}
		if cache.Hits() != hits+1 {
			t.Fatalf("%d hits after two reads of a new DV, want %d", cache.Hits(), hits+1)
		}
		last = want.Cardinality()
	}
}
