package engine

import (
	"context"
	"errors"
	"iter"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// joinSource runs a plan.Join: a hash join on the join's equi-join keys
// (NULL keys never match), a nested loop when there are none.
type joinSource struct {
	*plan.Join
	left, right source
	env         *Env
}

func (j *joinSource) scope() *sql.Scope { return j.Sc }

func (j *joinSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	run := &joinRun{j: j, params: params, mem: budgetFor(ctx, j, j.env.Options.WorkMem).spilling(), size: j.env.batchSize()}
	run.setRoles()
	if err := run.build(ctx); err != nil {
		if run.isBuildFull(err) {
			run.release() // what the build held before it was full
			return j.graceBatches(ctx, run)
		}
		return nil, err
	}
	seq, err := j.probeBatches(ctx, run, params)
	if err != nil {
		run.release()
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		defer run.release()
		run.yield = yield
		for b, err := range seq {
			if err != nil {
				yield(nil, err)
				return
			}
			ok, err := run.probe(ctx, b)
			b.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				return
			}
		}
		if run.keepBuild {
			if _, err := run.finalBuild(ctx); err != nil {
				yield(nil, err)
			}
		}
	}, nil
}

// setRoles picks the side held in the hash table and which unmatched rows
// the join emits. The side estimated smaller is held, except by RIGHT and
// FULL joins and NOT IN. A semi or anti join that holds its left side
// marks the rows the right side's rows find, and emits them (or the
// others) at the end: TPC-H Q4 holds a quarter's orders, not the
// lineitems. A LEFT JOIN that holds its left side emits its unmatched
// rows at the end, and its right side is read past the left's keys
// (TPC-H Q17: a few parts' lines against all lines grouped by part).
func (r *joinRun) setRoles() {
	j := r.j
	r.probeIsLeft = true
	switch j.Kind {
	case plan.JoinInner, plan.JoinSemi, plan.JoinLeft:
		r.probeIsLeft = !j.BuildLeft()
	case plan.JoinAnti:
		r.probeIsLeft = !j.BuildLeft() || j.NotIn != nil
	case plan.JoinRight:
		r.probeIsLeft = false
	}
	switch j.Kind {
	case plan.JoinLeft:
		r.keepProbe, r.keepBuild = r.probeIsLeft, !r.probeIsLeft
	case plan.JoinRight:
		r.keepProbe = true
	case plan.JoinFull:
		r.keepProbe, r.keepBuild = true, true
	case plan.JoinSemi:
		r.keepBuild, r.wantMatched = !r.probeIsLeft, true
	case plan.JoinAnti:
		r.keepProbe, r.keepBuild = r.probeIsLeft, !r.probeIsLeft
	}
}

// probeBatches streams the probe side's rows. When a probe row that finds
// no build row gives no output (an inner join, a semi join probing with
// its left side, an existence or LEFT join holding its left side), the
// build side's keys filter it: none at all when the build side is empty,
// else a dynamic filter (join_key_filter.go), which prunes the probe
// side's files and row groups by their bounds (a few orders' keys against
// lineitem, clustered by them) and reaches into a grouped subquery.
func (j *joinSource) probeBatches(ctx context.Context, run *joinRun, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	unmatchedDropped := j.Kind == plan.JoinInner || j.Kind == plan.JoinSemi && run.probeIsLeft ||
		(j.Kind == plan.JoinSemi || j.Kind == plan.JoinAnti || j.Kind == plan.JoinLeft) && !run.probeIsLeft
	if !unmatchedDropped {
		return j.sideBatches(ctx, run.probeIsLeft, params)
	}
	if run.rows == nil {
		return func(func(arrow.RecordBatch, error) bool) {}, nil
	}
	return j.filteredSide(ctx, run.probeIsLeft, run.dynamicFilter(ctx), params)
}

// keyRangeFilter is probe key BETWEEN the build keys' least and greatest,
// for one integer key read straight from a probe column; nil otherwise.
func (r *joinRun) keyRangeFilter() sql.Expr {
	pkeys, _ := r.keys()
	if r.table == nil || r.table.kind != keyInt || !r.table.keys.seen || len(pkeys) != 1 || len(r.j.Domains) != 1 {
		return nil
	}
	key := pkeys[0]
	if c, ok := key.(*sql.Cast); ok && isIntegerKind(c.X.Type().Kind) {
		key = c.X // widened to the domain: same values
	}
	col, ok := key.(*sql.ColumnRef)
	dom := r.j.Domains[0]
	if !ok || !isIntegerKind(col.T.Kind) || !isIntegerKind(dom.Kind) {
		return nil
	}
	// The bounds in the column's own range: its scan's filter compares in it.
	lo, hi := r.table.keys.lo, r.table.keys.hi
	switch col.T.Kind {
	case sql.KindInt16:
		lo, hi = max(lo, math.MinInt16), min(hi, math.MaxInt16)
	case sql.KindInt32:
		lo, hi = max(lo, math.MinInt32), min(hi, math.MaxInt32)
	}
	if lo > hi {
		return &sql.Const{Value: false, T: sql.Bool}
	}
	bound := func(op sql.CmpOp, v int64) sql.Expr {
		return &sql.Compare{Op: op, L: col, R: &sql.Const{Value: v, T: col.T}, Domain: col.T}
	}
	return plan.AndOf([]sql.Expr{bound(sql.OpGE, lo), bound(sql.OpLE, hi)})
}

// isIntegerKind: smallint, integer or bigint.
func isIntegerKind(k sql.Kind) bool {
	return k == sql.KindInt16 || k == sql.KindInt32 || k == sql.KindInt64
}

// sideBatches streams one side's rows (left or right) with its pushed-down
// WHERE conjuncts applied; a table scan also prunes files and row groups by
// them.
func (j *joinSource) sideBatches(ctx context.Context, left bool, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return j.filteredSide(ctx, left, nil, params)
}

// filteredSide is sideBatches with the conjunct extra (nil: none) added to
// the side's filter.
func (j *joinSource) filteredSide(ctx context.Context, left bool, extra sql.Expr, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	src, filter := j.right, j.RFilter
	if left {
		src, filter = j.left, j.LFilter
	}
	if extra != nil {
		filter = plan.AndAfter(filter, extra)
		ctx = pushFilter(ctx, src, extra)
	}
	seq, err := filteredBatches(ctx, src, filter, params)
	if err != nil || filter == nil {
		return seq, err
	}
	// EXPLAIN ANALYZE shows the side's rows after the filter too.
	return analysisOf(ctx).stats(sideKey{j, left}).counted(seq, 0), nil
}

// joinRun is one execution of a join: the build side held in memory as one
// batch, the probe side streamed past it. Matches are index vectors (probe
// row, build row) and the joined rows are taken column by column from both
// sides (takeArray), not assembled value by value.
type joinRun struct {
	j           *joinSource
	params      []any
	mem         *memBudget
	size        int
	probeIsLeft bool
	keepProbe   bool              // emit unmatched probe rows (null-extended)
	keepBuild   bool              // emit build rows at the end: unmatched ones, or
	wantMatched bool              // matched ones (a semi join holding its left side)
	rows        arrow.RecordBatch // the build side's rows; nil when it has none
	table       *joinTable        // nil: nested loop
	matched     []bool            // build rows that found a partner
	residual    *sql.Matcher
	probeTypes  []arrow.DataType // the probe side's column types, once seen
	notIn       *notInGroups     // a NOT IN anti join's groups (join_not_in.go)
	notInAll    *notInAll        // a partitioned one's whole build side, without group keys
	yield       func(arrow.RecordBatch, error) bool
}

func (r *joinRun) keys() (probe, build []sql.Expr) {
	if r.probeIsLeft {
		return r.j.LKeys, r.j.RKeys
	}
	return r.j.RKeys, r.j.LKeys
}

// build reads the build side whole, into one batch, and hashes it on its
// keys.
func (r *joinRun) build(ctx context.Context) error {
	seq, err := r.j.sideBatches(ctx, !r.probeIsLeft, r.params)
	if err != nil {
		return err
	}
	return r.buildFrom(ctx, seq)
}

// buildFrom builds from the given rows of the build side; past work_mem
// the error is a buildFull.
func (r *joinRun) buildFrom(ctx context.Context, seq iter.Seq2[arrow.RecordBatch, error]) error {
	if err := r.buildRows(ctx, seq); err != nil || r.j.NotIn == nil {
		return err
	}
	if err := r.indexNotIn(ctx); err != nil {
		r.release()
		return asBuildFull(err)
	}
	return nil
}

// asBuildFull is err, a buildFull when it is work_mem running out.
func asBuildFull(err error) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Code == pgerr.OutOfMemory {
		return buildFull{err}
	}
	return err
}

// buildRows reads the build side's rows and indexes them on the keys.
func (r *joinRun) buildRows(ctx context.Context, seq iter.Seq2[arrow.RecordBatch, error]) error {
	var err error
	var parts []arrow.RecordBatch
	for b, err := range seq {
		if err == nil {
			err = canceled(ctx)
		}
		if err == nil {
			if err = r.mem.charge(BatchBytes(b), "hash join"); err != nil {
				err = buildFull{err}
			}
		}
		if err != nil {
			if b != nil {
				b.Release()
			}
			ReleaseAll(parts)
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		parts = append(parts, b)
	}
	switch len(parts) {
	case 0:
	case 1:
		r.rows = parts[0]
	default:
		// One batch: a build row is one index, and a join column one take.
		r.rows, err = ConcatBatches(parts)
		ReleaseAll(parts)
		if err != nil {
			return err
		}
	}
	if r.rows != nil {
		r.matched = make([]bool, r.rows.NumRows())
	}
	pkeys, bkeys := r.keys()
	if len(bkeys) == 0 {
		return nil
	}
	kind := joinKeyKindOf(pkeys, bkeys, r.j.Domains)
	if r.rows == nil {
		r.table = newJoinTable(kind, joinKeys{})
		return nil
	}
	if r.table, err = r.index(ctx, bkeys, kind); err != nil {
		r.release()
		return asBuildFull(err)
	}
	return nil
}

// probe joins one probe batch with the build side; false means the
// consumer stopped.
func (r *joinRun) probe(ctx context.Context, b arrow.RecordBatch) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, pgerr.Canceled(err)
	}
	if r.probeTypes == nil {
		for _, c := range b.Columns() {
			r.probeTypes = append(r.probeTypes, c.DataType())
		}
	}
	n := int(b.NumRows())
	matched := make([]bool, n)
	var pIdx, bIdx []int32
	flush := func() (bool, error) {
		ok, err := r.emit(ctx, b, pIdx, bIdx, matched)
		pIdx, bIdx = pIdx[:0], bIdx[:0]
		return ok, err
	}
	nb := 0
	if r.rows != nil {
		nb = int(r.rows.NumRows())
	}
	if r.notIn != nil {
		// Rows NULLs drop count as matched: the anti join leaves them out.
		if err := r.notInDropped(ctx, b, matched); err != nil {
			return false, err
		}
	}
	switch {
	case r.table != nil && nb > 0:
		pkeys, _ := r.keys()
		keys, err := r.batchKeys(ctx, b, pkeys, r.table.kind)
		if err != nil {
			return false, err
		}
		for i := 0; i < n; i++ {
			if keys.null != nil && keys.null[i] || matched[i] {
				continue
			}
			for h := r.table.head(keys, i); h >= 0; h = r.table.next[h] {
				if !r.probeIsLeft && r.existence() && r.matched[h] {
					continue // that left row's fate is settled
				}
				pIdx, bIdx = append(pIdx, int32(i)), append(bIdx, h)
				if r.j.Residual == nil && r.existence() && r.probeIsLeft {
					break // one match settles a semi or anti join's row
				}
			}
			if len(pIdx) >= r.size {
				if ok, err := flush(); !ok || err != nil {
					return ok, err
				}
			}
		}
	case r.table == nil:
		for i := 0; i < n; i++ {
			for row := 0; row < nb; row++ {
				pIdx, bIdx = append(pIdx, int32(i)), append(bIdx, int32(row))
				if len(pIdx) >= r.size {
					if ok, err := flush(); !ok || err != nil {
						return ok, err
					}
				}
			}
		}
	}
	if len(pIdx) > 0 {
		if ok, err := flush(); !ok || err != nil {
			return ok, err
		}
	}
	if !r.keepProbe && (r.j.Kind != plan.JoinSemi || !r.probeIsLeft) {
		return true, nil
	}
	// Unmatched rows null-extended (outer and anti joins), or a semi
	// join's matched rows once.
	for i, m := range matched {
		if m == (r.j.Kind == plan.JoinSemi) {
			pIdx, bIdx = append(pIdx, int32(i)), append(bIdx, -1)
		}
	}
	if len(pIdx) == 0 {
		return true, nil
	}
	out, err := r.assemble(b, pIdx, bIdx)
	if err != nil {
		return false, err
	}
	return r.yield(out, nil), nil
}

// emit assembles candidate pairs (probe row pIdx[k] with build row
// bIdx[k]), keeps those the residual condition accepts, records who matched
// and passes the rows on.
func (r *joinRun) emit(ctx context.Context, probe arrow.RecordBatch, pIdx, bIdx []int32, matched []bool) (bool, error) {
	// Every batch of candidate pairs: a probe row may meet millions of
	// build rows, and a residual that rejects them all yields nothing
	// the consumer could stop at.
	if err := canceled(ctx); err != nil {
		return false, err
	}
	out, err := r.assemble(probe, pIdx, bIdx)
	if err != nil {
		return false, err
	}
	if r.j.Residual != nil {
		if r.residual == nil {
			r.residual = sql.NewMatcher(r.j.Residual, r.params)
		}
		mask, err := r.residual.Match(ctx, out)
		if err != nil {
			out.Release()
			return false, err
		}
		f, err := filterBatch(out, mask)
		out.Release()
		if err != nil {
			return false, err
		}
		out = f
		for k, p := range pIdx {
			if mask[k] {
				matched[p] = true
				r.matched[bIdx[k]] = true
			}
		}
	} else {
		for k, p := range pIdx {
			matched[p] = true
			r.matched[bIdx[k]] = true
		}
	}
	if out.NumRows() == 0 || r.existence() {
		// A semi or anti join emits its probe rows once it has seen them all.
		out.Release()
		return true, nil
	}
	return r.yield(out, nil), nil
}

// existence: the join keeps left rows by whether a match exists (a semi or
// anti join), not the matched pairs.
func (r *joinRun) existence() bool {
	return r.j.Kind == plan.JoinSemi || r.j.Kind == plan.JoinAnti
}

// finalBuild emits the build rows no probe row matched (FULL JOIN, or an
// anti join holding its left side), or those one did (a semi join holding
// its left side).
func (r *joinRun) finalBuild(ctx context.Context) (bool, error) {
	var bIdx []int32
	for row, ok := range r.matched {
		if ok == r.wantMatched {
			bIdx = append(bIdx, int32(row))
		}
	}
	for start := 0; start < len(bIdx); start += r.size {
		if err := ctx.Err(); err != nil {
			return false, pgerr.Canceled(err)
		}
		part := bIdx[start:min(start+r.size, len(bIdx))]
		pIdx := make([]int32, len(part))
		for k := range pIdx {
			pIdx[k] = -1
		}
		out, err := r.assemble(nil, pIdx, part)
		if err != nil {
			return false, err
		}
		if !r.yield(out, nil) {
			return false, nil
		}
	}
	return true, nil
}

// assemble builds the joined rows in the join's column order: probe row
// pIdx[k] beside build row bIdx[k], an index below zero (or a missing side)
// giving NULLs.
func (r *joinRun) assemble(probe arrow.RecordBatch, pIdx, bIdx []int32) (arrow.RecordBatch, error) {
	nl := len(r.j.left.scope().Columns)
	cols := r.j.Sc.Columns
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	release := func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}
	for c := range cols {
		side := c
		if c >= nl {
			side = c - nl
		}
		onProbe := (c < nl) == r.probeIsLeft
		idx, from := bIdx, r.rows
		if onProbe {
			idx, from = pIdx, probe
		}
		var err error
		switch {
		case r.j.Skip != nil && r.j.Skip[c]:
			arrs[c] = array.NewNull(len(idx))
		case from == nil:
			arrs[c], err = nullArray(r.columnType(onProbe, side, cols[c].T), len(idx))
		default:
			arrs[c], err = takeArray(memory.DefaultAllocator, from.Column(side), idx)
		}
		if err != nil {
			release()
			return nil, err
		}
		fields[c] = arrow.Field{Name: cols[c].Name, Type: arrs[c].DataType(), Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(pIdx)))
	release()
	return out, nil
}

// nullArray is n NULLs of type dt.
func nullArray(dt arrow.DataType, n int) (arrow.Array, error) {
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	b.AppendNulls(n)
	return b.NewArray(), nil
}

// columnType is the Arrow type of a side's column as its batches carry it.
func (r *joinRun) columnType(onProbe bool, col int, t sql.Type) arrow.DataType {
	if onProbe && r.probeTypes != nil {
		return r.probeTypes[col]
	}
	if !onProbe && r.rows != nil {
		return r.rows.Column(col).DataType()
	}
	return t.ArrowType()
}

func (r *joinRun) release() {
	if r.rows != nil {
		r.rows.Release()
		r.rows = nil
	}
	r.mem.close()
}
