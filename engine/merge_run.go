package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// MergeRun is one execution of a MERGE: the source read and hashed once;
// the delete engine's pass over the target's files asks it which rows
// change (Match), what replaces them (Replace) and at the end which source
// rows are inserted (Added). Match runs on several files at once; the
// rest of the state belongs to one attempt (Start).
type MergeRun struct {
	m      *MergePlan
	join   *joinRun
	params []any
	conds  []*sql.Matcher // per clause; nil: no condition
	schema *arrow.Schema  // the target's rows as the statement writes them

	mu       sync.Mutex
	matched  []bool // source rows some live target row joined
	counts   [4]int64
	returned []arrow.RecordBatch
}

// mergeDecision is what happens to one target row: the clause acting on
// it (-1: none) and the source row it acts with (-1: none, a NOT MATCHED
// BY SOURCE clause).
type mergeDecision struct{ clause, src int32 }

// Run reads the source into memory (work_mem applies) and hashes it on the
// ON condition's keys.
func (m *MergePlan) Run(ctx context.Context, params []any) (*MergeRun, error) {
	ctx = WithStatement(ctx, m.env)
	jr := &joinRun{j: m.join, params: params, mem: newMemBudget(ctx, m.env.Options.WorkMem), size: m.env.batchSize(), probeIsLeft: true}
	if err := jr.build(ctx); err != nil {
		return nil, err
	}
	if m.join.Residual != nil {
		jr.residual = sql.NewMatcher(m.join.Residual, params)
	}
	r := &MergeRun{m: m, join: jr, params: params, conds: make([]*sql.Matcher, len(m.clauses))}
	for i, cl := range m.clauses {
		if cl.condE != nil {
			r.conds[i] = sql.NewMatcher(cl.condE, params)
		}
	}
	fields := make([]arrow.Field, len(m.target.Columns))
	for i, c := range m.target.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
	}
	r.schema = arrow.NewSchema(fields, nil)
	r.Start()
	return r, nil
}

// Close releases the source rows and what the last attempt returned.
func (r *MergeRun) Close() {
	r.join.release()
	ReleaseAll(r.returned)
	r.returned = nil
}

// Start begins an attempt: nothing matched, counted or returned yet.
func (r *MergeRun) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.matched = make([]bool, r.sourceRows())
	r.counts = [4]int64{}
	ReleaseAll(r.returned)
	r.returned = nil
}

func (r *MergeRun) sourceRows() int {
	if r.join.rows == nil {
		return 0
	}
	return int(r.join.rows.NumRows())
}

// Counts are the rows the attempt inserted, updated and deleted.
func (r *MergeRun) Counts() (inserted, updated, deleted int64) {
	return r.counts[sql.MergeInsert], r.counts[sql.MergeUpdate], r.counts[sql.MergeDelete]
}

// Returned hands over the RETURNING rows of the attempt.
func (r *MergeRun) Returned() []arrow.RecordBatch {
	out := r.returned
	r.returned = nil
	return out
}

// Match tells, for each row of a target batch (every target column, the
// engine's types), whether the MERGE updates or deletes it, and records
// the source rows that joined it. A target row two source rows would each
// change is an error (21000), as in PostgreSQL.
func (r *MergeRun) Match(ctx context.Context, tb arrow.RecordBatch) ([]bool, error) {
	dec, err := r.decide(ctx, tb, true)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(dec))
	for i, d := range dec {
		out[i] = d.clause >= 0 && r.changes(d.clause)
	}
	return out, nil
}

func (r *MergeRun) changes(clause int32) bool {
	a := r.m.clauses[clause].action
	return a == sql.MergeUpdate || a == sql.MergeDelete
}

// decide finds the clause acting on each row of tb. mark records the
// source rows that joined one.
func (r *MergeRun) decide(ctx context.Context, tb arrow.RecordBatch, mark bool) ([]mergeDecision, error) {
	n := int(tb.NumRows())
	dec := make([]mergeDecision, n)
	for i := range dec {
		dec[i] = mergeDecision{-1, -1}
	}
	joined := make([]bool, n)
	var srcRows []int32
	err := r.pairs(ctx, tb, func(pIdx, bIdx []int32, pair arrow.RecordBatch) error {
		acts, err := r.firstClause(ctx, pair, sql.MergeMatched)
		if err != nil {
			return err
		}
		for k, t := range pIdx {
			joined[t] = true
			if mark {
				srcRows = append(srcRows, bIdx[k])
			}
			c := acts[k]
			if c < 0 || !r.changes(c) {
				continue
			}
			if dec[t].clause >= 0 {
				if r.m.anyMatch {
					continue
				}
				return r.cardinalityError(tb, int(t))
			}
			dec[t] = mergeDecision{c, bIdx[k]}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if mark && len(srcRows) > 0 {
		r.mu.Lock()
		for _, s := range srcRows {
			r.matched[s] = true
		}
		r.mu.Unlock()
	}
	if r.m.bySource {
		if err := r.decideUnjoined(ctx, tb, joined, dec); err != nil {
			return nil, err
		}
	}
	return dec, nil
}

// decideUnjoined applies the NOT MATCHED BY SOURCE clauses to the target
// rows no source row joined.
func (r *MergeRun) decideUnjoined(ctx context.Context, tb arrow.RecordBatch, joined []bool, dec []mergeDecision) error {
	var pIdx, bIdx []int32
	for i, j := range joined {
		if !j {
			pIdx, bIdx = append(pIdx, int32(i)), append(bIdx, -1)
		}
	}
	if len(pIdx) == 0 {
		return nil
	}
	rows, err := r.join.assemble(tb, pIdx, bIdx)
	if err != nil {
		return err
	}
	defer rows.Release()
	acts, err := r.firstClause(ctx, rows, sql.MergeNotMatchedBySource)
	if err != nil {
		return err
	}
	for k, t := range pIdx {
		if acts[k] >= 0 {
			dec[t] = mergeDecision{acts[k], -1}
		}
	}
	return nil
}

// pairs calls fn with the pairs of tb's rows and source rows that satisfy
// the ON condition, a chunk at a time: their indices and the joined rows.
func (r *MergeRun) pairs(ctx context.Context, tb arrow.RecordBatch, fn func(pIdx, bIdx []int32, pair arrow.RecordBatch) error) error {
	jr := r.join
	nb := r.sourceRows()
	if nb == 0 {
		return nil
	}
	var pIdx, bIdx []int32
	flush := func() error {
		if len(pIdx) == 0 {
			return nil
		}
		defer func() { pIdx, bIdx = nil, nil }()
		return r.joinPairs(ctx, tb, pIdx, bIdx, fn)
	}
	n := int(tb.NumRows())
	if jr.table == nil {
		for i := 0; i < n; i++ {
			for row := 0; row < nb; row++ {
				pIdx, bIdx = append(pIdx, int32(i)), append(bIdx, int32(row))
				if len(pIdx) >= jr.size {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		return flush()
	}
	pkeys, _ := jr.keys()
	keys, err := jr.batchKeys(ctx, tb, pkeys, jr.table.kind)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if keys.null != nil && keys.null[i] {
			continue
		}
		for h := jr.table.head(keys, i); h >= 0; h = jr.table.next[h] {
			pIdx, bIdx = append(pIdx, int32(i)), append(bIdx, h)
		}
		if len(pIdx) >= jr.size {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// joinPairs assembles candidate pairs, keeps those the residual condition
// accepts and hands them to fn.
func (r *MergeRun) joinPairs(ctx context.Context, tb arrow.RecordBatch, pIdx, bIdx []int32, fn func(pIdx, bIdx []int32, pair arrow.RecordBatch) error) error {
	if err := ctx.Err(); err != nil {
		return pgerr.Canceled(err)
	}
	out, err := r.join.assemble(tb, pIdx, bIdx)
	if err != nil {
		return err
	}
	defer func() { out.Release() }()
	if r.join.residual == nil {
		return fn(pIdx, bIdx, out)
	}
	mask, err := r.join.residual.Match(ctx, out)
	if err != nil {
		return err
	}
	var keptP, keptB []int32
	for k, ok := range mask {
		if ok {
			keptP, keptB = append(keptP, pIdx[k]), append(keptB, bIdx[k])
		}
	}
	if len(keptP) == 0 {
		return nil
	}
	f, err := filterBatch(out, mask)
	if err != nil {
		return err
	}
	out.Release()
	out = f
	return fn(keptP, keptB, out)
}

// firstClause is, per row of joined rows, the first clause of kind when
// whose condition holds (-1: none), as PostgreSQL tries them in order. A
// condition is evaluated only over the rows no earlier clause took.
func (r *MergeRun) firstClause(ctx context.Context, rows arrow.RecordBatch, when sql.MergeWhen) ([]int32, error) {
	n := int(rows.NumRows())
	acts := make([]int32, n)
	open := make([]int32, n) // rows of cur: their index in rows
	for i := range acts {
		acts[i], open[i] = -1, int32(i)
	}
	cur := rows
	cur.Retain()
	defer func() { cur.Release() }()
	for ci, cl := range r.m.clauses {
		if cl.when != when || len(open) == 0 {
			continue
		}
		if r.conds[ci] == nil {
			for _, i := range open {
				acts[i] = int32(ci)
			}
			return acts, nil
		}
		mask, err := r.conds[ci].Match(ctx, cur)
		if err != nil {
			return nil, err
		}
		var rest, restPos []int32
		for k, ok := range mask {
			if ok {
				acts[open[k]] = int32(ci)
			} else {
				rest, restPos = append(rest, open[k]), append(restPos, int32(k))
			}
		}
		if len(rest) < len(open) && len(rest) > 0 {
			next, err := takeBatch(memory.DefaultAllocator, cur, restPos)
			if err != nil {
				return nil, err
			}
			cur.Release()
			cur = next
		}
		open = rest
	}
	return acts, nil
}

// cardinalityError is PostgreSQL's 21000, naming the target row by the
// columns the ON condition reads.
func (r *MergeRun) cardinalityError(tb arrow.RecordBatch, row int) error {
	nt := len(r.m.target.Columns)
	used := map[int]bool{}
	sql.CollectColumns(r.m.join.Cond, used)
	var names, values []string
	for i := 0; i < nt; i++ {
		if !used[i] {
			continue
		}
		c := r.m.target.Columns[i]
		names = append(names, c.Name)
		if tb.Column(i).IsNull(row) {
			values = append(values, "null")
		} else {
			values = append(values, string(sql.AppendText(nil, c.T, tb.Column(i), row)))
		}
	}
	return &pgerr.Error{Code: pgerr.CardinalityViolation,
		Message: "MERGE command cannot affect row a second time",
		Detail:  fmt.Sprintf("The target row (%s)=(%s) is matched by more than one source row.", strings.Join(names, ", "), strings.Join(values, ", ")),
		Hint:    "Ensure that not more than one source row matches any one target row."}
}

// Replace returns the new versions of the rows Match picked (old: every
// target column, the engine's types): UPDATE's rows; DELETE's rows have
// none. from[i] is the row of old that new row i is the new version of. It
// counts them and keeps their RETURNING rows.
func (r *MergeRun) Replace(ctx context.Context, old arrow.RecordBatch) (fresh arrow.RecordBatch, from []int32, err error) {
	dec, err := r.decide(ctx, old, false)
	if err != nil {
		return nil, nil, err
	}
	byClause := map[int32][2][]int32{}
	var order []int32
	for i, d := range dec {
		if d.clause < 0 || !r.changes(d.clause) {
			return nil, nil, pgerr.Errorf(pgerr.InternalError, "MERGE decided differently for a row on its second look")
		}
		g, seen := byClause[d.clause]
		if !seen {
			order = append(order, d.clause)
		}
		byClause[d.clause] = [2][]int32{append(g[0], int32(i)), append(g[1], d.src)}
	}
	var parts []arrow.RecordBatch
	defer func() { ReleaseAll(parts) }()
	for _, c := range order {
		g := byClause[c]
		nb, err := r.act(ctx, c, old, g[0], g[1])
		if err != nil {
			return nil, nil, err
		}
		if nb != nil {
			if int(nb.NumRows()) != len(g[0]) {
				nb.Release()
				return nil, nil, pgerr.Errorf(pgerr.InternalError, "MERGE wrote %d rows for %d updated ones", nb.NumRows(), len(g[0]))
			}
			parts = append(parts, nb)
			from = append(from, g[0]...)
		}
	}
	fresh, err = r.concat(parts)
	return fresh, from, err
}

// Added returns the rows the NOT MATCHED clauses insert for the source rows
// no target row joined.
func (r *MergeRun) Added(ctx context.Context) ([]arrow.RecordBatch, error) {
	var unmatched []int32
	for s, ok := range r.matched {
		if !ok {
			unmatched = append(unmatched, int32(s))
		}
	}
	var out []arrow.RecordBatch
	for start := 0; start < len(unmatched); start += r.join.size {
		part := unmatched[start:min(start+r.join.size, len(unmatched))]
		nb, err := r.insertRows(ctx, part)
		if err != nil {
			ReleaseAll(out)
			return nil, err
		}
		if nb.NumRows() == 0 {
			nb.Release()
			continue
		}
		out = append(out, nb)
	}
	return out, nil
}

// insertRows applies the NOT MATCHED clauses to some unmatched source rows.
func (r *MergeRun) insertRows(ctx context.Context, src []int32) (arrow.RecordBatch, error) {
	none := make([]int32, len(src))
	for i := range none {
		none[i] = -1
	}
	rows, err := r.join.assemble(nil, none, src)
	if err != nil {
		return nil, err
	}
	acts, err := r.firstClause(ctx, rows, sql.MergeNotMatched)
	rows.Release()
	if err != nil {
		return nil, err
	}
	byClause := map[int32][]int32{}
	var order []int32
	for k, c := range acts {
		if c < 0 || r.m.clauses[c].action != sql.MergeInsert {
			continue
		}
		if _, seen := byClause[c]; !seen {
			order = append(order, c)
		}
		byClause[c] = append(byClause[c], src[k])
	}
	var parts []arrow.RecordBatch
	defer func() { ReleaseAll(parts) }()
	for _, c := range order {
		s := byClause[c]
		t := make([]int32, len(s))
		for i := range t {
			t[i] = -1
		}
		nb, err := r.act(ctx, c, nil, t, s)
		if err != nil {
			return nil, err
		}
		parts = append(parts, nb)
	}
	return r.concat(parts)
}

// act runs clause c's action on target rows tIdx of tb (-1: none) paired
// with source rows sIdx (-1: none): the rows it writes (nil for DELETE),
// counted, with their RETURNING rows kept.
func (r *MergeRun) act(ctx context.Context, c int32, tb arrow.RecordBatch, tIdx, sIdx []int32) (arrow.RecordBatch, error) {
	cl := r.m.clauses[c]
	joined, err := r.join.assemble(tb, tIdx, sIdx)
	if err != nil {
		return nil, err
	}
	defer joined.Release()
	r.counts[cl.action] += int64(len(tIdx))
	var written arrow.RecordBatch
	if cl.action != sql.MergeDelete {
		if written, err = r.newRows(ctx, cl, joined); err != nil {
			return nil, err
		}
	}
	if r.m.returning != nil {
		shown := joined
		if written != nil {
			shown = withTarget(joined, written)
			defer shown.Release()
		}
		if err := r.keepReturning(ctx, cl.action, shown); err != nil {
			if written != nil {
				written.Release()
			}
			return nil, err
		}
	}
	return written, nil
}

// newRows evaluates a clause's row over the joined rows.
func (r *MergeRun) newRows(ctx context.Context, cl mergeClause, joined arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(cl.values))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, e := range cl.values {
		arr, err := sql.Eval(ctx, e, joined, r.params)
		if err != nil {
			return nil, err
		}
		cols[i] = arr
		if want := r.schema.Field(i).Type; !arrow.TypeEqual(arr.DataType(), want) {
			return nil, fmt.Errorf("column %s: value of type %s for %s", r.schema.Field(i).Name, arr.DataType(), want)
		}
	}
	return array.NewRecordBatch(r.schema, cols, joined.NumRows()), nil
}

// withTarget is joined with its target columns replaced by written's.
func withTarget(joined, written arrow.RecordBatch) arrow.RecordBatch {
	cols := append([]arrow.Array(nil), joined.Columns()...)
	fields := append([]arrow.Field(nil), joined.Schema().Fields()...)
	for i := range written.NumCols() {
		cols[i] = written.Column(int(i))
		fields[i] = arrow.Field{Name: fields[i].Name, Type: cols[i].DataType(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, joined.NumRows())
}

// keepReturning projects RETURNING over the rows an action showed, with
// merge_action() reading the action's name.
func (r *MergeRun) keepReturning(ctx context.Context, action sql.MergeAction, shown arrow.RecordBatch) error {
	n := int(shown.NumRows())
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	for range n {
		sb.Append(action.String())
	}
	act := sb.NewArray()
	defer act.Release()
	cols := append(append([]arrow.Array(nil), shown.Columns()...), act)
	fields := append(append([]arrow.Field(nil), shown.Schema().Fields()...), arrow.Field{Name: "merge_action", Type: act.DataType(), Nullable: true})
	in := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	defer in.Release()
	out, err := Project(ctx, r.m.returning, r.m.names, in, r.params)
	if err != nil {
		return err
	}
	r.returned = append(r.returned, out)
	return nil
}

// concat is parts as one batch of the target's rows (an empty one for
// none).
func (r *MergeRun) concat(parts []arrow.RecordBatch) (arrow.RecordBatch, error) {
	switch len(parts) {
	case 0:
		cols := emptyColumns(r.schema)
		defer func() {
			for _, c := range cols {
				c.Release()
			}
		}()
		return array.NewRecordBatch(r.schema, cols, 0), nil
	case 1:
		parts[0].Retain()
		return parts[0], nil
	}
	return ConcatBatches(parts)
}

func emptyColumns(sc *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		b := array.NewBuilder(memory.DefaultAllocator, f.Type)
		cols[i] = b.NewArray()
		b.Release()
	}
	return cols
}

// filterListMax is the most distinct source keys a target filter lists
// (key IN (...)); above it the filter is their range. Iceberg's metrics
// evaluation gives up on longer IN lists, so a range prunes better there.
const filterListMax = 200

// TargetFilter is implied by "this target row joins some source row",
// over the target's columns: the ON conjuncts that read only the target,
// and from each ON equality of a target column and the source, the
// source's distinct key values (or their range). nil when every target row
// is a candidate (a NOT MATCHED BY SOURCE clause, or nothing to say).
func (r *MergeRun) TargetFilter() sql.Expr {
	if r.m.bySource {
		return nil
	}
	if r.sourceRows() == 0 {
		return &sql.Const{Value: false, T: sql.Bool}
	}
	jr := r.join
	conj := append([]sql.Expr(nil), r.m.targetOnly...)
	for k, lk := range jr.j.LKeys {
		col, ok := lk.(*sql.ColumnRef)
		if !ok || !prunableKind(col.T.Kind) {
			continue
		}
		if f := r.keyFilter(col, jr.j.RKeys[k], jr.j.Domains[k]); f != nil {
			conj = append(conj, f)
		}
	}
	if len(conj) == 0 {
		return nil
	}
	return plan.AndOf(conj)
}

// prunableKind: types whose Iceberg bounds order as the SQL values do.
func prunableKind(k sql.Kind) bool {
	switch k {
	case sql.KindInt16, sql.KindInt32, sql.KindInt64, sql.KindDate, sql.KindTimestamp, sql.KindTimestampTZ,
		sql.KindText, sql.KindVarchar, sql.KindNumeric, sql.KindBool:
		return true
	}
	return false
}

// keyFilter is col IN (the source's values of key) or their range; nil
// when the values cannot be read.
func (r *MergeRun) keyFilter(col *sql.ColumnRef, key sql.Expr, dom sql.Type) sql.Expr {
	ctx := WithStatement(context.Background(), r.m.env)
	return r.join.keyValuesFilter(ctx, col, key, dom, filterListMax)
}
