package engine

import (
	"context"
	"slices"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// index hashes the build rows on their keys a chunk at a time, last chunk
// first: only one chunk's keys are held beside the table (an encoded key
// is a string per row), the statement's context is looked at between
// chunks, and what the table holds is charged to work_mem as it grows, so
// a build of millions of rows can be cancelled and fails with 53200 as
// soon as it is too large.
func (r *joinRun) index(ctx context.Context, bkeys []sql.Expr, kind joinKeyKind) (*joinTable, error) {
	n := int(r.rows.NumRows())
	var keys keyRange
	var kept []joinKeys // the first pass's keys, when a second would differ
	if kind == keyInt {
		// The layout of integer keys depends on their range: a first
		// pass reads it. Keys that call random() are kept from it: a
		// second evaluation would give others, outside that range.
		volatile := slices.ContainsFunc(bkeys, plan.HasVolatile)
		if volatile {
			if err := r.mem.charge(9*int64(n), "hash join"); err != nil {
				return nil, err
			}
			defer r.mem.release(9 * int64(n))
		}
		for start := 0; start < n; start += r.size {
			k, err := r.chunkKeys(ctx, start, min(start+r.size, n), bkeys, kind)
			if err != nil {
				return nil, err
			}
			keys.add(k)
			if volatile {
				kept = append(kept, k)
			}
		}
	}
	t := emptyJoinTable(kind, n, keys)
	var charged int64
	for c := (n - 1) / r.size; c >= 0; c-- {
		start := c * r.size
		var k joinKeys
		var err error
		if kept != nil {
			k = kept[c]
		} else if k, err = r.chunkKeys(ctx, start, min(start+r.size, n), bkeys, kind); err != nil {
			return nil, err
		}
		t.insert(k, start)
		if err := r.mem.charge(t.bytes-charged, "hash join"); err != nil {
			return nil, err
		}
		charged = t.bytes
	}
	return t, nil
}

// chunkKeys are the keys of build rows [start, end), once the statement
// may go on.
func (r *joinRun) chunkKeys(ctx context.Context, start, end int, bkeys []sql.Expr, kind joinKeyKind) (joinKeys, error) {
	if err := canceled(ctx); err != nil {
		return joinKeys{}, err
	}
	chunk := r.rows.NewSlice(int64(start), int64(end))
	defer chunk.Release()
	return r.batchKeys(ctx, chunk, bkeys, kind)
}
