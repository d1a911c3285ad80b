package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// countingAcc counts what it is fed per group: with distinctAcc in front
// of it, each group's distinct non-null values (and every NULL, which the
// aggregate itself skips).
type countingAcc struct{ fed map[int]map[string]int }

func (c *countingAcc) update(g int, arr arrow.Array, i int) error {
	if c.fed[g] == nil {
		c.fed[g] = map[string]int{}
	}
	v := "NULL"
	if !arr.IsNull(i) {
		v = arr.ValueStr(i)
	}
	c.fed[g][v]++
	return nil
}

func (c *countingAcc) result(context.Context, memory.Allocator, int) (arrow.Array, error) {
	return nil, nil
}

// TestDistinctAccFeedsEachValueOnce: over generated text values of every
// length around the 15 bytes kept inline (and NULLs), in batches, each
// group's inner accumulator is fed each distinct value exactly once, as a
// model of sets per group computed here says.
func TestDistinctAccFeedsEachValueOnce(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	inner := &countingAcc{fed: map[int]map[string]int{}}
	d := &distinctAcc{inner: inner}
	model := map[int]map[string]bool{}
	nulls := map[int]int{}
	for range 20 {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		var groups []int
		for range 500 {
			g := rnd.IntN(7)
			groups = append(groups, g)
			if rnd.IntN(20) == 0 {
				b.AppendNull()
				nulls[g]++
				continue
			}
			// Lengths 0..24 and values that differ only in their tail.
			v := strings.Repeat("x", rnd.IntN(25)) + fmt.Sprint(rnd.IntN(30))
			if rnd.IntN(3) == 0 {
				v = v[:len(v)-1]
			}
			b.Append(v)
			if model[g] == nil {
				model[g] = map[string]bool{}
			}
			model[g][v] = true
		}
		arr := b.NewArray()
		for i, g := range groups {
			if err := d.update(g, arr, i); err != nil {
				t.Fatal(err)
			}
		}
		arr.Release()
	}
	for g := range 7 {
		fed := inner.fed[g]
		if fed["NULL"] != nulls[g] {
			t.Errorf("group %d: %d NULLs fed, want %d", g, fed["NULL"], nulls[g])
		}
		delete(fed, "NULL")
		if len(fed) != len(model[g]) {
			t.Errorf("group %d: %d distinct values fed, want %d", g, len(fed), len(model[g]))
		}
		for v, n := range fed {
			if n != 1 || !model[g][v] {
				t.Errorf("group %d: %q fed %d times (in the model: %v)", g, v, n, model[g][v])
			}
		}
	}
}
