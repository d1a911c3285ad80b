package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/sql"
)

// joinSource joins two sources: a hash join on the equalities of its
// condition (NULL keys never match), a nested loop when there are none. Its
// rows are the left columns followed by the right ones.
type joinSource struct {
	left, right source
	kind        joinKind
	cond        sql.Expr   // the whole condition over sc; nil: every pair
	lkeys       []sql.Expr // equi-join keys over the left scope
	rkeys       []sql.Expr // and over the right scope
	domains     []sql.Type
	residual    sql.Expr // what the keys leave to check, over sc
	sc          *sql.Scope
	env         *Env
}

// setCondition splits cond into hash keys and a residual.
func (j *joinSource) setCondition(cond sql.Expr) {
	j.cond, j.lkeys, j.rkeys, j.domains, j.residual = cond, nil, nil, nil, nil
	nl := len(j.left.scope().Columns)
	conj := []sql.Expr{cond}
	if l, ok := cond.(*sql.Logic); ok && l.And {
		conj = l.Args
	}
	var rest []sql.Expr
	for _, c := range conj {
		if l, r, dom, ok := equiKey(c, nl); ok {
			j.lkeys, j.rkeys, j.domains = append(j.lkeys, l), append(j.rkeys, r), append(j.domains, dom)
			continue
		}
		rest = append(rest, c)
	}
	if len(rest) > 0 {
		j.residual = andOf(rest)
	}
}

// equiKey recognises l = r with l reading only left columns and r only
// right ones (either way round); r comes back renumbered for the right side.
func equiKey(e sql.Expr, nl int) (l, r sql.Expr, dom sql.Type, ok bool) {
	c, isCmp := e.(*sql.Compare)
	if !isCmp || c.Op != sql.OpEQ {
		return nil, nil, sql.Type{}, false
	}
	side := func(x sql.Expr) int { // 1 left, 2 right, 3 both, 0 none
		cols := map[int]bool{}
		sql.CollectColumns(x, cols)
		s := 0
		for i := range cols {
			if i < nl {
				s |= 1
			} else {
				s |= 2
			}
		}
		return s
	}
	a, b := c.L, c.R
	switch {
	case side(a) == 1 && side(b) == 2:
	case side(a) == 2 && side(b) == 1:
		a, b = b, a
	default:
		return nil, nil, sql.Type{}, false
	}
	if hasSubquery(a) || hasSubquery(b) {
		return nil, nil, sql.Type{}, false
	}
	shift := map[int]int{}
	cols := map[int]bool{}
	sql.CollectColumns(b, cols)
	for i := range cols {
		shift[i] = i - nl
	}
	return a, sql.RemapColumns(b, shift), c.Domain, true
}

func hasSubquery(e sql.Expr) bool {
	if _, ok := e.(*sql.Subquery); ok {
		return true
	}
	for _, c := range sql.Children(e) {
		if c != nil && hasSubquery(c) {
			return true
		}
	}
	return false
}

func (j *joinSource) scope() *sql.Scope { return j.sc }

// project keeps cols of the join, pruning each side to what cols and the
// condition read.
func (j *joinSource) project(cols []int) source {
	nl := len(j.left.scope().Columns)
	need := map[int]bool{}
	for _, c := range cols {
		need[c] = true
	}
	if j.cond != nil {
		sql.CollectColumns(j.cond, need)
	}
	var lcols, rcols []int
	remap := map[int]int{}
	for i := range j.sc.Columns {
		if !need[i] {
			continue
		}
		if i < nl {
			remap[i] = len(lcols)
			lcols = append(lcols, i)
		} else {
			rcols = append(rcols, i-nl)
		}
	}
	for k, i := range rcols {
		remap[i+nl] = len(lcols) + k
	}
	pj := &joinSource{left: j.left.project(lcols), right: j.right.project(rcols), kind: j.kind, env: j.env}
	pj.sc = concatScopes(pj.left.scope(), pj.right.scope())
	if j.cond != nil {
		pj.setCondition(sql.RemapColumns(j.cond, remap))
	}
	out := make([]int, len(cols))
	identity := len(cols) == len(pj.sc.Columns)
	for i, c := range cols {
		out[i] = remap[c]
		identity = identity && out[i] == i
	}
	if identity {
		return pj
	}
	return newPicked(pj, out)
}

func (j *joinSource) batches(ctx context.Context, _ ice.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	run := &joinRun{j: j, params: params, mem: newMemBudget(j.env.Options.WorkMem), size: j.env.batchSize()}
	run.probeIsLeft = j.kind != joinRight
	if j.kind == joinInner {
		l, r := estimateRows(j.left), estimateRows(j.right)
		run.probeIsLeft = !(l >= 0 && r >= 0 && l < r)
	}
	run.keepProbe = j.kind != joinInner
	run.keepBuild = j.kind == joinFull
	if err := run.build(ctx); err != nil {
		return nil, err
	}
	probe := j.right
	if run.probeIsLeft {
		probe = j.left
	}
	seq, err := probe.batches(ctx, nil, params)
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
			if _, err := run.unmatchedBuild(ctx); err != nil {
				yield(nil, err)
			}
		}
	}, nil
}

// estimateRows is a source's row count from table metadata, -1 if unknown.
func estimateRows(s source) int64 {
	switch x := s.(type) {
	case *tableSource:
		n, _, ok := x.recordCount()
		if !ok {
			return -1
		}
		return n
	case *picked:
		return estimateRows(x.src)
	case *rescoped:
		return estimateRows(x.src)
	}
	return -1
}

// joinRun is one execution of a join: the build side held in memory, the
// probe side streamed past it.
type joinRun struct {
	j           *joinSource
	params      []any
	mem         *memBudget
	size        int
	probeIsLeft bool
	keepProbe   bool // emit unmatched probe rows (null-extended)
	keepBuild   bool // emit unmatched build rows at the end
	built       []arrow.RecordBatch
	table       map[string][]rowRef // nil: nested loop
	matched     [][]bool            // build rows that found a partner
	residual    *sql.Matcher
	probeTypes  []arrow.DataType // the probe side's column types, once seen
	yield       func(arrow.RecordBatch, error) bool
}

// pair is one candidate output row: a probe row and a build row; -1 (or a
// batch of -1) is the NULL row of an outer join.
type pair struct {
	probe int32
	build rowRef
}

func (r *joinRun) sides() (probe, build source) {
	if r.probeIsLeft {
		return r.j.left, r.j.right
	}
	return r.j.right, r.j.left
}

func (r *joinRun) keys() (probe, build []sql.Expr) {
	if r.probeIsLeft {
		return r.j.lkeys, r.j.rkeys
	}
	return r.j.rkeys, r.j.lkeys
}

// build reads the build side whole and hashes it on its keys.
func (r *joinRun) build(ctx context.Context) error {
	_, bs := r.sides()
	seq, err := bs.batches(ctx, nil, r.params)
	if err != nil {
		return err
	}
	for b, err := range seq {
		if err == nil {
			err = r.mem.charge(batchBytes(b), "hash join")
		}
		if err != nil {
			if b != nil {
				b.Release()
			}
			r.release()
			return err
		}
		r.built = append(r.built, b)
		r.matched = append(r.matched, make([]bool, b.NumRows()))
	}
	_, bkeys := r.keys()
	if len(bkeys) == 0 {
		return nil
	}
	r.table = map[string][]rowRef{}
	for bi, b := range r.built {
		keys, null, err := r.keyStrings(ctx, b, bkeys)
		if err != nil {
			r.release()
			return err
		}
		for row, k := range keys {
			if !null[row] {
				r.table[k] = append(r.table[k], rowRef{batch: int32(bi), row: int32(row)})
			}
		}
	}
	return nil
}

// keyStrings computes each row's hash key; null marks a row with a NULL
// key, which matches nothing.
func (r *joinRun) keyStrings(ctx context.Context, b arrow.RecordBatch, keys []sql.Expr) ([]string, []bool, error) {
	n := int(b.NumRows())
	out := make([]string, n)
	null := make([]bool, n)
	var buf []byte
	for k, e := range keys {
		arr, err := sql.Eval(ctx, e, b, r.params)
		if err != nil {
			return nil, nil, err
		}
		t, dom := e.Type(), r.j.domains[k]
		for i := 0; i < n; i++ {
			if null[i] {
				continue
			}
			v := sql.DatumAt(arr, t, i)
			if v == nil {
				null[i] = true
				continue
			}
			if len(keys) == 1 {
				out[i] = sql.DomainKey(v, t, dom)
				continue
			}
			buf = append(append(buf[:0], out[i]...), sql.DomainKey(v, t, dom)...)
			out[i] = string(append(buf, 0))
		}
		arr.Release()
	}
	return out, null, nil
}

// probe joins one probe batch with the build side; false means the
// consumer stopped.
func (r *joinRun) probe(ctx context.Context, b arrow.RecordBatch) (bool, error) {
	if r.probeTypes == nil {
		for _, c := range b.Columns() {
			r.probeTypes = append(r.probeTypes, c.DataType())
		}
	}
	n := int(b.NumRows())
	matched := make([]bool, n)
	var keys []string
	var nullKey []bool
	if r.table != nil {
		pkeys, _ := r.keys()
		var err error
		if keys, nullKey, err = r.keyStrings(ctx, b, pkeys); err != nil {
			return false, err
		}
	}
	var pairs []pair
	flush := func() (bool, error) {
		ok, err := r.emit(ctx, b, pairs, matched)
		pairs = pairs[:0]
		return ok, err
	}
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return false, sql.Canceled(err)
		}
		var cands []rowRef
		if r.table != nil {
			if nullKey[i] {
				continue
			}
			cands = r.table[keys[i]]
		}
		if r.table == nil {
			for bi, bb := range r.built {
				for row := 0; row < int(bb.NumRows()); row++ {
					pairs = append(pairs, pair{probe: int32(i), build: rowRef{batch: int32(bi), row: int32(row)}})
					if len(pairs) >= r.size {
						if ok, err := flush(); !ok || err != nil {
							return ok, err
						}
					}
				}
			}
			continue
		}
		for _, ref := range cands {
			pairs = append(pairs, pair{probe: int32(i), build: ref})
		}
		if len(pairs) >= r.size {
			if ok, err := flush(); !ok || err != nil {
				return ok, err
			}
		}
	}
	if len(pairs) > 0 {
		if ok, err := flush(); !ok || err != nil {
			return ok, err
		}
	}
	if !r.keepProbe {
		return true, nil
	}
	for i, m := range matched {
		if !m {
			pairs = append(pairs, pair{probe: int32(i), build: rowRef{batch: -1}})
		}
	}
	if len(pairs) == 0 {
		return true, nil
	}
	out, err := r.assemble(b, pairs)
	if err != nil {
		return false, err
	}
	return r.yield(out, nil), nil
}

// emit assembles candidate pairs, keeps those the residual condition
// accepts, records who matched and passes the rows on.
func (r *joinRun) emit(ctx context.Context, probe arrow.RecordBatch, pairs []pair, matched []bool) (bool, error) {
	out, err := r.assemble(probe, pairs)
	if err != nil {
		return false, err
	}
	if r.j.residual != nil {
		if r.residual == nil {
			r.residual = sql.NewMatcher(r.j.residual, r.params)
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
		for k, p := range pairs {
			if mask[k] {
				matched[p.probe] = true
				r.matched[p.build.batch][p.build.row] = true
			}
		}
	} else {
		for _, p := range pairs {
			matched[p.probe] = true
			r.matched[p.build.batch][p.build.row] = true
		}
	}
	if out.NumRows() == 0 {
		out.Release()
		return true, nil
	}
	return r.yield(out, nil), nil
}

// unmatchedBuild emits the build rows no probe row matched (FULL JOIN).
func (r *joinRun) unmatchedBuild(ctx context.Context) (bool, error) {
	var pairs []pair
	for bi, m := range r.matched {
		for row, ok := range m {
			if !ok {
				pairs = append(pairs, pair{probe: -1, build: rowRef{batch: int32(bi), row: int32(row)}})
			}
		}
	}
	for start := 0; start < len(pairs); start += r.size {
		out, err := r.assemble(nil, pairs[start:min(start+r.size, len(pairs))])
		if err != nil {
			return false, err
		}
		if !r.yield(out, nil) {
			return false, nil
		}
	}
	return true, nil
}

// assemble builds the joined rows of pairs in the join's column order.
func (r *joinRun) assemble(probe arrow.RecordBatch, pairs []pair) (arrow.RecordBatch, error) {
	nl := len(r.j.left.scope().Columns)
	cols := r.j.sc.Columns
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
		dt := r.columnType(onProbe, side, cols[c].T)
		bld := array.NewBuilder(memory.DefaultAllocator, dt)
		bld.Reserve(len(pairs))
		for _, p := range pairs {
			var err error
			switch {
			case onProbe && p.probe < 0, !onProbe && p.build.batch < 0:
				bld.AppendNull()
			case onProbe:
				err = AppendFrom(bld, probe.Column(side), int(p.probe))
			default:
				err = AppendFrom(bld, r.built[p.build.batch].Column(side), int(p.build.row))
			}
			if err != nil {
				bld.Release()
				release()
				return nil, err
			}
		}
		arrs[c] = bld.NewArray()
		bld.Release()
		fields[c] = arrow.Field{Name: cols[c].Name, Type: dt, Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(pairs)))
	release()
	return out, nil
}

// columnType is the Arrow type of a side's column as its batches carry it.
func (r *joinRun) columnType(onProbe bool, col int, t sql.Type) arrow.DataType {
	if onProbe && r.probeTypes != nil {
		return r.probeTypes[col]
	}
	if !onProbe && len(r.built) > 0 {
		return r.built[0].Column(col).DataType()
	}
	return t.ArrowType()
}

func (r *joinRun) release() {
	ReleaseAll(r.built)
	r.built = nil
}
