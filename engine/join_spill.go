package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/magmalake/magmalake/sql"
)

// A hash join whose build side does not fit in work_mem runs as a grace
// hash join: both sides are written, by a hash of their join key, to
// spillPartitions temporary files each, and each pair of partitions is
// then joined in memory on its own; rows of one key always meet in one
// pair. A row whose key is NULL matches nothing: it goes to the first
// partition when its side keeps unmatched rows (outer joins), else
// nowhere. The build side is read again from its start (a scan of the
// same snapshot); a pair whose build side still does not fit is
// partitioned again (joinPartitions).

// buildFull is work_mem running out while a hash join reads or indexes
// its build side.
type buildFull struct{ error }

func (e buildFull) Unwrap() error { return e.error }

// graceBatches runs the join partition by partition (run is the join run
// that found its build side too big; its settings carry over).
func (j *joinSource) graceBatches(ctx context.Context, run *joinRun) (iter.Seq2[arrow.RecordBatch, error], error) {
	pkeys, bkeys := run.keys()
	if j.NotIn != nil {
		pkeys, bkeys = run.notInPartitionKeys()
	}
	keys := spillKeys{probe: pkeys, build: bkeys, kind: joinKeyKindOf(pkeys, bkeys, j.Domains)}
	seed := maphash.MakeSeed()
	buildSeq, err := j.sideBatches(ctx, !run.probeIsLeft, run.params)
	if err != nil {
		return nil, err
	}
	build, err := j.partitionSide(ctx, run, buildSeq, keys.build, keys.kind, seed, run.keepBuild)
	if err != nil {
		return nil, err
	}
	if j.NotIn != nil && len(j.LKeys) == 1 {
		if build.nullKeys > 0 {
			// A NULL among NOT IN's values: no left row passes.
			build.remove()
			return func(func(arrow.RecordBatch, error) bool) {}, nil
		}
		run.notInAll = &notInAll{rows: build.rows > 0}
	}
	probeSeq, err := j.sideBatches(ctx, run.probeIsLeft, run.params)
	if err != nil {
		build.remove()
		return nil, err
	}
	probe, err := j.partitionSide(ctx, run, probeSeq, keys.probe, keys.kind, seed, run.keepProbe)
	if err != nil {
		build.remove()
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		defer build.remove()
		defer probe.remove()
		j.joinPartitions(ctx, run, build, probe, keys, 1, yield)
	}, nil
}

// spillKeys are the keys a grace join partitions its sides by.
type spillKeys struct {
	probe, build []sql.Expr
	kind         joinKeyKind
}

// joinPartitions joins each pair of partitions (depth: how many times
// these rows were partitioned). A pair whose build side does not fit in
// work_mem is partitioned again, with another hash seed, up to
// maxSpillDepth levels, as PostgreSQL doubles a hash join's batches (one
// key's rows past work_mem never split); false when the consumer stopped
// or it failed (the error went to yield).
func (j *joinSource) joinPartitions(ctx context.Context, run *joinRun, build, probe sidePartitions, keys spillKeys, depth int,
	yield func(arrow.RecordBatch, error) bool) bool {
	for i := range spillPartitions {
		if build.paths[i] == "" && (probe.paths[i] == "" || !run.keepProbe) {
			continue
		}
		ok, full := j.joinPartition(ctx, run, build.read(ctx, i), probe.read(ctx, i), depth < maxSpillDepth, yield)
		if full {
			ok = j.splitPartition(ctx, run, build, probe, i, keys, depth, yield)
		}
		if !ok {
			return false
		}
	}
	return true
}

// splitPartition partitions pair i of build and probe again and joins the
// pairs that gives.
func (j *joinSource) splitPartition(ctx context.Context, run *joinRun, build, probe sidePartitions, i int, keys spillKeys, depth int,
	yield func(arrow.RecordBatch, error) bool) bool {
	seed := maphash.MakeSeed()
	sb, err := j.partitionSide(ctx, run, build.read(ctx, i), keys.build, keys.kind, seed, run.keepBuild)
	if err != nil {
		yield(nil, err)
		return false
	}
	defer sb.remove()
	sp, err := j.partitionSide(ctx, run, probe.read(ctx, i), keys.probe, keys.kind, seed, run.keepProbe)
	if err != nil {
		yield(nil, err)
		return false
	}
	defer sp.remove()
	return j.joinPartitions(ctx, run, sb, sp, keys, depth+1, yield)
}

// joinPartition joins one pair of partitions; ok is false when the
// consumer stopped or it failed (the error went to yield). When the build
// side does not fit and split allows, nothing is yielded and full says so.
func (j *joinSource) joinPartition(ctx context.Context, proto *joinRun, build, probe iter.Seq2[arrow.RecordBatch, error], split bool,
	yield func(arrow.RecordBatch, error) bool) (ok, full bool) {
	run := &joinRun{j: j, params: proto.params, mem: budgetFor(ctx, j, j.env.Options.WorkMem), size: proto.size,
		probeIsLeft: proto.probeIsLeft, keepProbe: proto.keepProbe, keepBuild: proto.keepBuild, wantMatched: proto.wantMatched,
		notInAll: proto.notInAll, yield: yield}
	defer run.release()
	proto.mem.spilledBatch()
	if err := run.buildFrom(ctx, build); err != nil {
		if split && errors.As(err, new(buildFull)) {
			return false, true
		}
		yield(nil, err)
		return false, false
	}
	return run.probeAll(ctx, probe), false
}

// probeAll probes a partition's build side with its probe rows, then
// emits the build rows the join keeps; false when the consumer stopped or
// it failed (the error went to yield).
func (run *joinRun) probeAll(ctx context.Context, probe iter.Seq2[arrow.RecordBatch, error]) bool {
	yield := run.yield
	for b, err := range probe {
		if err != nil {
			yield(nil, err)
			return false
		}
		ok, err := run.probe(ctx, b)
		b.Release()
		if err != nil {
			yield(nil, err)
			return false
		}
		if !ok {
			return false
		}
	}
	if run.keepBuild {
		ok, err := run.finalBuild(ctx)
		if err != nil {
			yield(nil, err)
			return false
		}
		return ok
	}
	return true
}

// sidePartitions are one side's rows partitioned by key, and how many
// rows, and rows with a NULL key, there were.
type sidePartitions struct {
	*partitionFiles
	rows, nullKeys int64
}

// partitionSide writes one side's rows (seq) to partitions by their key's
// hash.
func (j *joinSource) partitionSide(ctx context.Context, run *joinRun, seq iter.Seq2[arrow.RecordBatch, error], keys []sql.Expr, kind joinKeyKind,
	seed maphash.Seed, keepNulls bool) (sidePartitions, error) {
	var out *partitionFiles
	var rows, nulls int64
	fail := func(err error) (sidePartitions, error) {
		if out != nil {
			out.remove()
		}
		return sidePartitions{}, err
	}
	for b, err := range seq {
		if err == nil {
			err = canceled(ctx)
		}
		if err != nil {
			if b != nil {
				b.Release()
			}
			return fail(err)
		}
		if out == nil {
			if out, err = newPartitionFiles(j.env.Options.TempDir, "magmalake-join-", b.Schema()); err != nil {
				b.Release()
				return fail(err)
			}
		}
		rows += b.NumRows()
		n, err := run.writePartitions(ctx, out, b, keys, kind, seed, keepNulls)
		nulls += n
		b.Release()
		if err != nil {
			return fail(err)
		}
	}
	if out == nil {
		// An empty side: no partition has rows.
		return sidePartitions{partitionFiles: &partitionFiles{}}, nil
	}
	if err := out.finish(); err != nil {
		return fail(err)
	}
	run.mem.spilledFiles(out.paths[:]...)
	return sidePartitions{out, rows, nulls}, nil
}

// writePartitions sends each row of b to the partition of its key; it
// returns how many keys were NULL.
func (r *joinRun) writePartitions(ctx context.Context, out *partitionFiles, b arrow.RecordBatch, keys []sql.Expr, kind joinKeyKind,
	seed maphash.Seed, keepNulls bool) (int64, error) {
	k, err := r.batchKeys(ctx, b, keys, kind)
	if err != nil {
		return 0, err
	}
	var nulls int64
	var parts [spillPartitions][]int32
	var buf [16]byte
	for i := range int(b.NumRows()) {
		if k.null != nil && k.null[i] {
			nulls++
			if keepNulls {
				parts[0] = append(parts[0], int32(i))
			}
			continue
		}
		var h uint64
		switch {
		case k.strs != nil:
			h = maphash.String(seed, k.strs[i])
		case k.ints2 != nil:
			binary.LittleEndian.PutUint64(buf[:8], uint64(k.ints[i]))
			binary.LittleEndian.PutUint64(buf[8:], uint64(k.ints2[i]))
			h = maphash.Bytes(seed, buf[:])
		default:
			binary.LittleEndian.PutUint64(buf[:8], uint64(k.ints[i]))
			h = maphash.Bytes(seed, buf[:8])
		}
		p := h % spillPartitions
		parts[p] = append(parts[p], int32(i))
	}
	for p, rows := range parts {
		if len(rows) > 0 {
			if err := out.write(p, b, rows); err != nil {
				return 0, err
			}
		}
	}
	return nulls, nil
}

// isBuildFull reports a build side past work_mem that partitioning can
// split: the join has keys.
func (r *joinRun) isBuildFull(err error) bool {
	_, bkeys := r.keys()
	return len(bkeys) > 0 && errors.As(err, new(buildFull))
}
