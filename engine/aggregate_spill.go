package engine

import (
	"context"
	"errors"
	"hash/maphash"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// A GROUP BY with more groups than work_mem holds spills, as PostgreSQL's
// hash aggregation does: once a new group does not fit, the groups so far
// are all the in-memory table will hold. Rows of those groups go on being
// folded; the rows of any other group are written, by a hash of their
// key, to one of spillPartitions temporary files (Arrow IPC, in one
// directory per aggregation under the temp directory). At the end of the
// input the in-memory groups are complete and are emitted; then each
// partition is aggregated the same way on its own, with a hash of another
// seed should it overflow again. Every group's rows end up in one place,
// so DISTINCT, FILTER and ordered aggregates spill alike. With grouping
// sets (ROLLUP, CUBE, GROUPING SETS) each set freezes its groups and
// spills the rows of its other groups to files of its own, hashed by the
// keys it groups by; its partitions are then aggregated as that set alone.

// maxSpillDepth bounds the re-partitioning of partitions that overflow
// again, an aggregation's or a hash join's; past it the operator fails
// with 53200.
const maxSpillDepth = 5

// aggSpill is one level of an aggregation's spilled rows.
type aggSpill struct {
	*partitionFiles
	seed maphash.Seed
}

// spillable reports whether the aggregation can spill: it has keys
// (without, there is one group).
func (p *pipeline) spillable() bool {
	return len(p.q.Agg.GroupBy) > 0 && p.metaCount < 0
}

// aggFold is one aggregation's progress through its input: each grouping
// set's spill, once there are any, and what a row added to work_mem
// lately.
type aggFold struct {
	sps    []*aggSpill // by state; nil until the groups freeze
	perRow int64
}

// remove deletes the spills' files.
func (f *aggFold) remove() {
	for _, sp := range f.sps {
		if sp != nil { // nil: its files could not be made
			sp.remove()
		}
	}
}

// foldChunk is how many rows are folded at a time near work_mem, so that
// the groups freeze before a batch's growth overruns it.
const foldChunk = 64

// foldOrSpill folds b into the groups. Once work_mem would not hold the
// next rows' growth (new groups, DISTINCT values), or holds no new group,
// the groups are frozen and the rows of any other group spill.
func (p *pipeline) foldOrSpill(ctx context.Context, b arrow.RecordBatch, states []*groupState, f *aggFold) error {
	if !p.spillable() || p.mem.limit <= 0 {
		return p.fold(ctx, b, states)
	}
	n, off := int(b.NumRows()), 0
	for off < n && f.sps == nil {
		size := n - off
		if f.perRow == 0 || !p.mem.fits(2*f.perRow*int64(size)) {
			size = min(size, foldChunk)
		}
		if f.perRow > 0 && !p.mem.fits(2*f.perRow*int64(size)) {
			break
		}
		part := b.NewSlice(int64(off), int64(off+size))
		before := p.mem.used
		err := p.fold(ctx, part, states)
		part.Release()
		f.perRow = max(1, (p.mem.used-before)/int64(size))
		if err != nil {
			if !errors.As(err, new(groupsFull)) {
				return err
			}
			// The rows reached no accumulator (groups are found first):
			// they are split below like the others.
			break
		}
		off += size
	}
	if off == n {
		return nil
	}
	if f.sps == nil {
		f.sps = make([]*aggSpill, len(states))
		for i, st := range states {
			s, err := newAggSpill(p.tempDir, b.Schema())
			if err != nil {
				return err
			}
			f.sps[i] = s
			st.g.frozen = true
		}
	}
	rest := b.NewSlice(int64(off), int64(n))
	defer rest.Release()
	return p.splitFold(ctx, rest, states, f.sps)
}

// splitFold folds the rows of b into the sets that hold their groups and
// spills the others to the partitions of the sets that do not.
func (p *pipeline) splitFold(ctx context.Context, b arrow.RecordBatch, states []*groupState, sps []*aggSpill) error {
	keys := make([]arrow.Array, len(p.q.Agg.GroupBy))
	defer releaseArrays(keys)
	for i, e := range p.q.Agg.GroupBy {
		var err error
		if keys[i], err = sql.Eval(ctx, e, b, p.params); err != nil {
			return err
		}
	}
	for i, st := range states {
		if err := p.splitSet(ctx, b, keys, st, sps[i]); err != nil {
			return err
		}
	}
	return nil
}

// splitSet folds the rows of b whose groups st holds and spills the others
// to sp, by a hash of the keys st groups by.
func (p *pipeline) splitSet(ctx context.Context, b arrow.RecordBatch, keys []arrow.Array, st *groupState, sp *aggSpill) error {
	n := int(b.NumRows())
	own := st.ownKeys(keys, n)
	defer st.releaseOwn(own, keys)
	ids, err := st.g.groupIDs(own, n)
	if err != nil {
		return err
	}
	var held []int32
	var parts [spillPartitions][]int32
	var buf []byte
	for r, id := range ids {
		if id >= 0 {
			held = append(held, int32(r))
			continue
		}
		buf = buf[:0]
		for _, k := range own {
			buf = appendKey(buf, k, r)
		}
		h := maphash.Bytes(sp.seed, buf) % spillPartitions
		parts[h] = append(parts[h], int32(r))
	}
	for i, rows := range parts {
		if len(rows) > 0 {
			if err := sp.write(i, b, rows); err != nil {
				return err
			}
		}
	}
	if len(held) == 0 {
		return nil
	}
	kb, err := takeBatch(memory.DefaultAllocator, b, held)
	if err != nil {
		return err
	}
	defer kb.Release()
	return p.fold(ctx, kb, []*groupState{st})
}

func newAggSpill(root string, schema *arrow.Schema) (*aggSpill, error) {
	pf, err := newPartitionFiles(root, "magmalake-agg-", schema)
	if err != nil {
		return nil, err
	}
	return &aggSpill{partitionFiles: pf, seed: maphash.MakeSeed()}, nil
}

// spilledGroups aggregates each partition of sp on its own (spilling
// again, a level deeper, when one overflows), returning its groups that
// HAVING keeps.
func (p *pipeline) spilledGroups(ctx context.Context, sp *aggSpill, depth int) ([]arrow.RecordBatch, error) {
	if err := sp.finish(); err != nil {
		return nil, err
	}
	p.mem.spilledFiles(sp.paths[:]...)
	var out []arrow.RecordBatch
	for i := range sp.paths {
		if sp.paths[i] == "" {
			continue
		}
		p.mem.spilledBatch()
		parts, err := p.aggregatePartition(ctx, sp.read(ctx, i), depth)
		if err != nil {
			ReleaseAll(out)
			return nil, err
		}
		out = append(out, parts...)
	}
	return out, nil
}

// aggregatePartition aggregates the rows of one partition.
func (p *pipeline) aggregatePartition(ctx context.Context, rows iter.Seq2[arrow.RecordBatch, error], depth int) ([]arrow.RecordBatch, error) {
	if depth > maxSpillDepth {
		return nil, pgerr.Errorf(pgerr.OutOfMemory, "out of memory: GROUP BY needs more than work_mem even after spilling its rows %d times", maxSpillDepth)
	}
	used := p.mem.used
	defer func() { p.mem.resetTo(used) }()
	states, err := p.groupStates()
	if err != nil {
		return nil, err
	}
	return p.aggregateFrom(ctx, rows, states, depth+1)
}

// aggregateFrom folds rows (none: nil) into states and returns their groups
// that HAVING keeps, then those of the partitions it spilled (aggregated
// at depth), each part one batch.
func (p *pipeline) aggregateFrom(ctx context.Context, rows iter.Seq2[arrow.RecordBatch, error], states []*groupState, depth int) ([]arrow.RecordBatch, error) {
	used := p.mem.used
	var fold aggFold
	defer func() {
		fold.remove()
		removeAccSpills(states)
	}()
	if rows != nil {
		for b, err := range rows {
			if err == nil {
				err = p.foldOrSpill(ctx, b, states, &fold)
				b.Release()
			}
			if err != nil {
				return nil, err
			}
		}
	}
	grouped, err := p.groupedRows(ctx, states)
	if err != nil {
		return nil, err
	}
	if grouped, err = p.having(ctx, grouped); err != nil {
		return nil, err
	}
	out := []arrow.RecordBatch{grouped}
	if fold.sps == nil {
		return out, nil
	}
	// The in-memory groups are out: their memory serves the partitions.
	p.mem.resetTo(used)
	sets := p.groupingSets()
	for i, sp := range fold.sps {
		more, err := p.setSpilledGroups(ctx, sp, sets[i], depth)
		if err != nil {
			ReleaseAll(out)
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// setSpilledGroups aggregates a grouping set's partitions as that set
// alone.
func (p *pipeline) setSpilledGroups(ctx context.Context, sp *aggSpill, set []int, depth int) ([]arrow.RecordBatch, error) {
	if p.q.Sets == nil {
		return p.spilledGroups(ctx, sp, depth)
	}
	outer, one := p.onlySet, p.oneSet
	p.onlySet, p.oneSet = set, true
	defer func() { p.onlySet, p.oneSet = outer, one }()
	return p.spilledGroups(ctx, sp, depth)
}
