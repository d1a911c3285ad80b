package rowruns

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/internal/arrowtest"
)

// TestKeptRuns checks the runs against the bits one by one, at every
// alignment of the batch in the mask.
func TestKeptRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mask := make([]byte, 64)
	for i := range mask {
		switch rng.IntN(3) {
		case 0:
			mask[i] = 0xFF
		case 1:
			mask[i] = byte(rng.Uint32())
		}
	}
	for base := 0; base < 40; base++ {
		for _, n := range []int{1, 7, 8, 9, 63, 200, 512 - base*8} {
			var want []int
			for i := 0; i < n; i++ {
				if bitutil.BitIsSet(mask, base+i) {
					want = append(want, i)
				}
			}
			var got []int
			for _, r := range BitmapRuns(mask, base, n) {
				if r.N <= 0 {
					t.Fatalf("base %d n %d: empty run %v", base, n, r)
				}
				for i := r.Start; i < r.Start+r.N; i++ {
					got = append(got, i)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("base %d n %d: runs give %v, bits %v", base, n, got, want)
			}
		}
	}
}

// TestMaskRunsRowByRow checks MaskRuns, Shape and Kept against the mask read
// entry by entry, for masks of every length up to 80 from slices at odd
// offsets (the word reads start anywhere), with long stretches of true and
// of false and mixed ones.
func TestMaskRunsRowByRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := range 400 {
		backing := make([]bool, 100)
		for i := 0; i < len(backing); {
			n, mode := 1+rng.IntN(20), rng.IntN(3)
			for ; n > 0 && i < len(backing); n, i = n-1, i+1 {
				backing[i] = mode == 1 || mode == 2 && rng.IntN(2) == 0
			}
		}
		off := rng.IntN(9)
		keep := backing[off : off+round%81]
		var want []int32
		for i, k := range keep {
			if k {
				want = append(want, int32(i))
			}
		}
		runs, kept := MaskRuns(keep)
		var got []int32
		for _, r := range runs {
			for i := r.Start; i < r.Start+r.N; i++ {
				got = append(got, int32(i))
			}
		}
		if kept != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: runs %v (%d kept) give %v, want %v", round, runs, kept, got, want)
		}
		if n, r := Shape(keep); n != kept || r != len(runs) {
			t.Fatalf("round %d: Shape gives %d kept in %d runs, want %d in %d", round, n, r, kept, len(runs))
		}
		if idx := Kept(keep, kept); fmt.Sprint(idx) != fmt.Sprint(want) {
			t.Fatalf("round %d: Kept gives %v, want %v", round, idx, want)
		}
		for k := 1; k < len(runs); k++ {
			if runs[k].Start <= runs[k-1].Start+runs[k-1].N {
				t.Fatalf("round %d: runs %v touch or overlap", round, runs)
			}
		}
	}
}

// TestFilterRunsLikeArrow filters random batches of every flat type (with
// nulls, sliced at odd offsets) by random masks and compares the result with
// arrow's own filter kernel; a list column takes the kernel's path.
func TestFilterRunsLikeArrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 40; round++ {
		b, off := randomSlice(rng, round, 3000, 50)
		n, fs := int(b.NumRows()), b.Schema().Fields()
		keep := make([]byte, bitutil.BytesForBits(int64(n+100)))
		base := rng.IntN(64)
		dropRate := []int{2, 10, 100, 1000}[rng.IntN(4)]
		for i := 0; i < n; i++ {
			if rng.IntN(dropRate) != 0 {
				bitutil.SetBit(keep, base+i)
			}
		}
		kept := bitutil.CountSetBits(keep, base, n)
		if kept == 0 || kept == n {
			b.Release()
			continue
		}
		got, ok := Copy(b, BitmapRuns(keep, base, n), kept)
		if ok == (round%4 == 3) {
			t.Fatalf("round %d: run copy taken %v with schema %v", round, ok, b.Schema())
		}
		if !ok { // a list column: the caller's kernel filters it
			b.Release()
			continue
		}
		want := arrowFilter(t, b, keep, base, n)
		if !array.RecordEqual(got, want) {
			for i := range got.Columns() {
				if !array.Equal(got.Column(i), want.Column(i)) {
					t.Fatalf("round %d (n %d, offset %d, base %d): column %s differs from arrow's filter", round, n, off, base, fs[i].Name)
				}
			}
		}
		for i, c := range got.Columns() {
			if c.NullN() != want.Column(i).NullN() {
				t.Fatalf("round %d: column %s null count %d, arrow's %d", round, fs[i].Name, c.NullN(), want.Column(i).NullN())
			}
		}
		got.Release()
		want.Release()
		b.Release()
	}
}

// TestFilterRowsLikeArrow: Filter of random slices of every leaf type
// (and with a list column, which takes arrow's kernel) and random masks,
// none, some, most or all rows kept, equals arrow's filter.
func TestFilterRowsLikeArrow(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 40; round++ {
		b, off := randomSlice(rng, round, 500, 20)
		n := int(b.NumRows())
		keep := make([]bool, n)
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		rate := []int{0, 1, 2, 10, 1000}[rng.IntN(5)] // 0: none kept, 1: all
		for i := range keep {
			keep[i] = rate > 0 && rng.IntN(rate) == 0
			if keep[i] {
				bitutil.SetBit(bits, i)
			}
		}
		got, err := Filter(ctx, b, keep)
		if err != nil {
			t.Fatal(err)
		}
		want := arrowFilter(t, b, bits, 0, n)
		if !array.RecordEqual(got, want) {
			t.Fatalf("round %d (n %d, offset %d, rate %d): rows differ from arrow's filter", round, n, off, rate)
		}
		got.Release()
		want.Release()
		b.Release()
	}
}

// randomSlice is 1 to maxRows random rows of every leaf type, and in every
// fourth round a list column (which no run copy handles), sliced at a
// random offset below slack, and that offset.
func randomSlice(rng *rand.Rand, round, maxRows, slack int) (arrow.RecordBatch, int) {
	fs := arrowtest.EveryLeafSchema().Fields()
	if round%4 == 3 {
		fs = append(fs, arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true})
	}
	n := 1 + rng.IntN(maxRows)
	full := arrowtest.RandomBatch(arrow.NewSchema(fs, nil), n+slack, rng)
	defer full.Release()
	off := rng.IntN(slack)
	return full.NewSlice(int64(off), int64(off+n)), off
}

func arrowFilter(t *testing.T, b arrow.RecordBatch, keep []byte, base, n int) arrow.RecordBatch {
	t.Helper()
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer bld.Release()
	for i := 0; i < n; i++ {
		bld.Append(bitutil.BitIsSet(keep, base+i))
	}
	mask := bld.NewBooleanArray()
	defer mask.Release()
	out, err := compute.FilterRecordBatch(context.Background(), b, mask, compute.DefaultFilterOptions())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkKeepUndeleted filters 64Ki-row batches of every flat type with 1%
// of the rows dropped at random, as a rewrite after scattered deletes does.
func BenchmarkKeepUndeleted(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 1 << 16
	batch := arrowtest.RandomBatch(arrowtest.EveryLeafSchema(), n, rng)
	defer batch.Release()
	keep := make([]byte, n/8)
	for i := 0; i < n; i++ {
		if rng.IntN(100) != 0 {
			bitutil.SetBit(keep, i)
		}
	}
	kept := bitutil.CountSetBits(keep, 0, n)
	b.Run("runs", func(b *testing.B) {
		for range b.N {
			out, _ := Copy(batch, BitmapRuns(keep, 0, n), kept)
			out.Release()
		}
	})
	b.Run("arrow", func(b *testing.B) {
		for range b.N {
			arrowFilter(&testing.T{}, batch, keep, 0, n).Release()
		}
	})
}

// BenchmarkMaskRuns reads masks a WHERE leaves: TPC-H Q4's
// l_commitdate < l_receiptdate (63% kept at random), a selective test (1%)
// and Q1's (98%).
func BenchmarkMaskRuns(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, share := range []float64{0.63, 0.01, 0.98} {
		keep := make([]bool, 8192)
		for i := range keep {
			keep[i] = rng.Float64() < share
		}
		b.Run(fmt.Sprint(share), func(b *testing.B) {
			for b.Loop() {
				if n, r := Shape(keep); n >= 8*r {
					MaskRuns(keep)
				} else {
					Kept(keep, n)
				}
			}
		})
	}
}
