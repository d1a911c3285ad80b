package engine

import (
	"context"
	"hash/maphash"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
)

// An aggregate's DISTINCT (count(DISTINCT x), sum(DISTINCT x) ...) holds
// every distinct value of every group. Past work_mem the values it holds
// are frozen: a repeat of a (group, value) pair already fed is dropped, and
// every other pair is written, by a hash of its value, to one of
// spillPartitions temporary files. A pair never fed before the freeze goes
// on to the same partition each time it recurs, so once the input is over
// each partition is deduplicated on its own (spilling again, with another
// seed, when one overflows) and its distinct pairs are fed to the inner
// accumulator: each distinct pair reaches it exactly once, wherever it was
// found, and counts, sums and averages come out as without the spill. This
// serves an aggregate without GROUP BY (one group, all its values) and a
// group with more distinct values than work_mem holds, which the GROUP BY
// spill (aggregate_spill.go) cannot split.

// distinctSpilling is a distinctAcc's spill state.
type distinctSpilling struct {
	// canSpill: the aggregation may write to temporary files (under
	// tempDir); otherwise work_mem is a hard bound, as at the last depth.
	canSpill bool
	tempDir  string
	depth    int
	held     int64 // bytes of work_mem the map and bitmaps hold
	spill    *distinctSpill
	drained  bool
}

// distinctWhat names the operator in 53200's detail.
const distinctWhat = "an aggregate's DISTINCT"

// distinctPending is how many spilled pairs are gathered before they are
// written to their partitions.
const distinctPending = 4096

// take counts n more bytes for the values held; full when they do not fit
// and the pairs from here on should spill instead. Whatever work_mem holds
// already (the groups of a GROUP BY), a quarter of it is always granted, so
// that each spill level holds some values and makes headway.
func (d *distinctAcc) take(n int64) (full bool, err error) {
	if !d.canSpill || d.mem == nil || d.mem.limit <= 0 {
		return false, d.mem.charge(n, distinctWhat)
	}
	if !d.mem.fits(n) && d.held+n > d.mem.limit/4 {
		return true, nil
	}
	d.mem.hold(n)
	d.held += n
	return false, nil
}

// spillFrom starts spilling with the pair (g, value i of arr), unless err.
func (d *distinctAcc) spillFrom(err error, g int, arr arrow.Array, i int) error {
	if err != nil {
		return err
	}
	sp, err := newDistinctSpill(d.tempDir, arr.DataType())
	if err != nil {
		return err
	}
	d.spill = sp
	return sp.add(g, arr, i, d.key)
}

// drain feeds the inner accumulator the distinct pairs of the partitions
// spilled, once the input is over; the files are gone afterwards.
func (d *distinctAcc) drain(ctx context.Context) error {
	if d.spill == nil || d.drained {
		return nil
	}
	d.drained = true
	sp := d.spill
	defer sp.remove()
	if err := sp.flush(); err != nil {
		return err
	}
	if err := sp.finish(); err != nil {
		return err
	}
	d.mem.spilledFiles(sp.paths[:]...)
	// What is held only kept repeats of fed pairs out: the partitions
	// hold none of those, so its memory serves them.
	d.short, d.long, d.seen = nil, nil, nil
	d.mem.release(d.held)
	d.held = 0
	for i := range sp.paths {
		if sp.paths[i] == "" {
			continue
		}
		d.mem.spilledBatch()
		if err := d.drainPartition(ctx, sp.read(ctx, i)); err != nil {
			return err
		}
	}
	return nil
}

// drainPartition deduplicates one partition's pairs into the inner
// accumulator, a level deeper.
func (d *distinctAcc) drainPartition(ctx context.Context, rows iter.Seq2[arrow.RecordBatch, error]) error {
	part := &distinctAcc{inner: d.inner, mem: d.mem, distinctSpilling: distinctSpilling{
		canSpill: d.depth < maxSpillDepth, tempDir: d.tempDir, depth: d.depth + 1}}
	defer func() {
		part.removeSpill()
		d.mem.release(part.held)
	}()
	for b, err := range rows {
		if err != nil {
			return err
		}
		err = part.updateAll(b.Column(0).(*array.Int32), b.Column(1))
		b.Release()
		if err != nil {
			return err
		}
	}
	return part.drain(ctx)
}

// updateAll folds the pairs (groups[r], values[r]).
func (d *distinctAcc) updateAll(groups *array.Int32, values arrow.Array) error {
	for r := range groups.Len() {
		if err := d.update(int(groups.Value(r)), values, r); err != nil {
			return err
		}
	}
	return nil
}

// removeSpill deletes the files of a spill not drained (the statement
// failed or was cancelled first).
func (d *distinctAcc) removeSpill() {
	if d.spill != nil {
		d.spill.remove()
	}
}

// removeAccSpills deletes what the states' accumulators spilled
// (aggregates' DISTINCT, ordered aggregates' runs) and did not drain.
func removeAccSpills(states []*groupState) {
	for _, st := range states {
		for _, a := range st.accs {
			if d, ok := a.(interface{ removeSpill() }); ok {
				d.removeSpill()
			}
		}
	}
}

// distinctSpill is the (group, value) pairs a distinctAcc could not hold,
// by a hash of the value.
type distinctSpill struct {
	*partitionFiles
	seed   maphash.Seed
	groups *array.Int32Builder
	values array.Builder
	parts  []int32 // each pending pair's partition
}

func newDistinctSpill(root string, value arrow.DataType) (*distinctSpill, error) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "g", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: value, Nullable: true}}, nil)
	pf, err := newPartitionFiles(root, "magmalake-distinct-", schema)
	if err != nil {
		return nil, err
	}
	return &distinctSpill{partitionFiles: pf, seed: maphash.MakeSeed(),
		groups: array.NewInt32Builder(memory.DefaultAllocator), values: array.NewBuilder(memory.DefaultAllocator, value)}, nil
}

// add gathers the pair (g, value i of arr), whose key is key.
func (s *distinctSpill) add(g int, arr arrow.Array, i int, key []byte) error {
	if !arrow.TypeEqual(arr.DataType(), s.schema.Field(1).Type) {
		return pgerr.Errorf(pgerr.InternalError, "an aggregate's DISTINCT spills values of type %s and %s", s.schema.Field(1).Type, arr.DataType())
	}
	s.groups.Append(int32(g))
	if err := AppendFrom(s.values, arr, i); err != nil {
		return err
	}
	s.parts = append(s.parts, int32(maphash.Bytes(s.seed, key)%spillPartitions))
	if len(s.parts) < distinctPending {
		return nil
	}
	return s.flush()
}

// flush writes the pending pairs to their partitions.
func (s *distinctSpill) flush() error {
	if len(s.parts) == 0 {
		return nil
	}
	g, v := s.groups.NewArray(), s.values.NewArray()
	b := array.NewRecordBatch(s.schema, []arrow.Array{g, v}, int64(len(s.parts)))
	g.Release()
	v.Release()
	defer b.Release()
	var rows [spillPartitions][]int32
	for r, p := range s.parts {
		rows[p] = append(rows[p], int32(r))
	}
	s.parts = s.parts[:0]
	for i := range rows {
		if len(rows[i]) > 0 {
			if err := s.write(i, b, rows[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// remove deletes the files and lets go of the pending pairs.
func (s *distinctSpill) remove() {
	s.partitionFiles.remove()
	if s.groups != nil {
		s.groups.Release()
		s.values.Release()
		s.groups, s.values = nil, nil
	}
}
