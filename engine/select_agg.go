package engine

import (
	"context"
	"io"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// grouper assigns group ids to key tuples and keeps one copy of each tuple.
// A single key of a common type is looked up by its typed value (see
// groupIDs); other keys by a canonical byte encoding (appendKey).
type grouper struct {
	ids      map[string]int
	shortIDs map[[16]byte]int32       // one text key: values of up to 15 bytes, inline
	strIDs   map[string]int32         // one text key: longer values
	intIDs   map[int64]int32          // one integer, temporal, boolean or float key
	decIDs   map[decimal128.Num]int32 // one decimal key (a column has one scale)
	nullID   int32                    // the NULL group of a single key; -1 until seen
	keys     []array.Builder
	n        int
	buf      []byte
	prev     []byte // the key group last found, of group prevID (-1: none)
	prevID   int
	idBuf    []int32
	mem      *memBudget
	perGroup int64 // accumulator state per group, estimated
	// frozen: the groups are all there will be (the aggregation spills
	// the rows of any other); a key of no group gets id -1.
	frozen bool
}

// groupsFull is work_mem running out for a new group: an aggregation
// that can spill partitions its remaining input instead (aggregate_spill.go).
type groupsFull struct{ error }

func (e groupsFull) Unwrap() error { return e.error }

// groupOverhead is a group's map entry and accumulator state beyond its key,
// estimated per aggregate (big.Int sums, counts, slices of states).
const groupOverhead = 96

func newGrouper(types []sql.Type, mem *memBudget, aggregates int) *grouper {
	g := &grouper{ids: map[string]int{}, mem: mem, perGroup: groupOverhead * int64(1+aggregates), nullID: -1, prevID: -1}
	for _, t := range types {
		g.keys = append(g.keys, array.NewBuilder(memory.DefaultAllocator, t.ArrowType()))
	}
	return g
}

func (g *grouper) group(cols []arrow.Array, row int) (int, error) {
	g.buf = g.buf[:0]
	for _, c := range cols {
		g.buf = appendKey(g.buf, c, row)
	}
	// Neighbouring rows often share their keys (TPC-H Q1: an order's
	// lines mostly share their flags): a comparison of a few bytes
	// instead of hashing them into the map. A key's group never changes.
	if g.prevID >= 0 && string(g.buf) == string(g.prev) {
		return g.prevID, nil
	}
	id, err := g.lookup(cols, row)
	if err == nil && id >= 0 {
		g.buf, g.prev, g.prevID = g.prev, g.buf, id
	}
	return id, err
}

// lookup is group's map lookup, making the group when it is new.
func (g *grouper) lookup(cols []arrow.Array, row int) (int, error) {
	if id, ok := g.ids[string(g.buf)]; ok {
		return id, nil
	}
	if g.frozen {
		return -1, nil
	}
	// A new group holds its key twice (map and key column) and its state.
	if err := g.mem.charge(2*int64(len(g.buf))+g.perGroup, "GROUP BY"); err != nil {
		return 0, groupsFull{err}
	}
	id := g.n
	g.n++
	g.ids[string(g.buf)] = id
	for k, c := range cols {
		if err := AppendFrom(g.keys[k], c, row); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// newGroup creates the group of row's single key, charging encoded bytes
// of key (appendKey's size, so either path costs a group alike).
func (g *grouper) newGroup(col arrow.Array, row int, encoded int) (int32, error) {
	if g.frozen {
		return -1, nil
	}
	if err := g.mem.charge(2*int64(encoded)+g.perGroup, "GROUP BY"); err != nil {
		return 0, groupsFull{err}
	}
	id := int32(g.n)
	g.n++
	return id, AppendFrom(g.keys[0], col, row)
}

// groupIDs is the group of each of the n rows of the key columns (valid
// until the next call). One key of a common Arrow type is hashed by value
// straight from its array; others go row by row through group.
func (g *grouper) groupIDs(cols []arrow.Array, n int) ([]int32, error) {
	ids := growTo(g.idBuf[:0], n)[:n]
	g.idBuf = ids
	if len(cols) == 1 {
		if ok, err := g.singleKeyIDs(cols[0], ids); ok || err != nil {
			return ids, err
		}
	}
	for r := range ids {
		id, err := g.group(cols, r)
		if err != nil {
			return nil, err
		}
		ids[r] = int32(id)
	}
	return ids, nil
}

// singleKeyIDs fills ids for one key column of a type it knows; false when
// it does not (the caller encodes the keys). A grouper sees one key type,
// so a group is always found in the same map.
func (g *grouper) singleKeyIDs(col arrow.Array, ids []int32) (bool, error) {
	switch a := col.(type) {
	case *array.String:
		if g.strIDs == nil {
			g.shortIDs, g.strIDs = map[[16]byte]int32{}, map[string]int32{}
		}
		for r := range ids {
			if a.IsNull(r) {
				id, err := g.nullGroup(col, r)
				if err != nil {
					return true, err
				}
				ids[r] = id
				continue
			}
			v := a.Value(r)
			if len(v) < 16 {
				// Short values are map keys in place: a lookup compares
				// 16 bytes in the map's own slot instead of following a
				// pointer to a string elsewhere in the heap (a cache
				// miss per row with 100,000 groups). The last byte is
				// the length, so "a" and "a\x00" differ.
				var k [16]byte
				copy(k[:], v)
				k[15] = byte(len(v))
				id, err := valueGroup(g, g.shortIDs, k, col, r, 5+len(v))
				if err != nil {
					return true, err
				}
				ids[r] = id
				continue
			}
			id, ok := g.strIDs[v]
			if !ok {
				var err error
				if id, err = g.newGroup(col, r, 5+len(v)); err != nil {
					return true, err
				}
				if id >= 0 {
					g.strIDs[strings.Clone(v)] = id // v points into the batch
				}
			}
			ids[r] = id
		}
		return true, nil
	case *array.Decimal128:
		if g.decIDs == nil {
			g.decIDs = map[decimal128.Num]int32{}
		}
		return true, fixedGroups(g, g.decIDs, a.Values(), col, ids, 17)
	}
	vals, ok := int64Keys(col)
	if !ok {
		return false, nil
	}
	if g.intIDs == nil {
		g.intIDs = map[int64]int32{}
	}
	return true, fixedGroups(g, g.intIDs, vals, col, ids, 9)
}

// fixedGroups fills ids with the group of each row of col, whose values
// (fixed-width keys) are vals; size is what a new group's key costs.
func fixedGroups[K comparable](g *grouper, m map[K]int32, vals []K, col arrow.Array, ids []int32, size int) error {
	for r := range ids {
		var id int32
		var err error
		if col.IsNull(r) {
			id, err = g.nullGroup(col, r)
		} else {
			id, err = valueGroup(g, m, vals[r], col, r, size)
		}
		if err != nil {
			return err
		}
		ids[r] = id
	}
	return nil
}

// valueGroup is the group of key k in m, created on first sight; size is
// what the new group's key holds, charged to work_mem.
func valueGroup[K comparable](g *grouper, m map[K]int32, k K, col arrow.Array, r, size int) (int32, error) {
	if id, ok := m[k]; ok {
		return id, nil
	}
	id, err := g.newGroup(col, r, size)
	if err != nil || id < 0 {
		return id, err
	}
	m[k] = id
	return id, nil
}

// nullGroup is the group of a NULL single key, created on first sight.
func (g *grouper) nullGroup(col arrow.Array, row int) (int32, error) {
	if g.nullID < 0 {
		id, err := g.newGroup(col, row, 1)
		if err != nil {
			return 0, err
		}
		g.nullID = id
	}
	return g.nullID, nil
}

// int64Keys reads a key column whose values group by equality of one
// 64-bit value as int64s: integers, dates, times, timestamps, booleans, and
// floats canonicalised as appendKey does (every NaN one value, -0 as 0).
func int64Keys(col arrow.Array) ([]int64, bool) {
	out := make([]int64, col.Len())
	switch a := col.(type) {
	case *array.Int16:
		for i, v := range a.Int16Values() {
			out[i] = int64(v)
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			out[i] = int64(v)
		}
	case *array.Int64:
		copy(out, a.Int64Values())
	case *array.Uint32:
		for i, v := range a.Uint32Values() {
			out[i] = int64(v)
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			out[i] = int64(v)
		}
	case *array.Time64:
		for i, v := range a.Time64Values() {
			out[i] = int64(v)
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			out[i] = int64(v)
		}
	case *array.Boolean:
		for i := range out {
			if a.Value(i) {
				out[i] = 1
			}
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			out[i] = int64(canonicalFloatBits(v))
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			out[i] = int64(canonicalFloatBits(float64(v)))
		}
	default:
		return nil, false
	}
	return out, true
}

// canonicalFloatBits are the bits of f with every NaN and both zeros made
// one value each: PostgreSQL groups NaN with NaN and -0 with 0.
func canonicalFloatBits(f float64) uint64 {
	switch {
	case math.IsNaN(f):
		f = math.NaN()
	case f == 0:
		f = 0
	}
	return math.Float64bits(f)
}

// aggregate groups the filtered input and returns the output rows.
func (p *pipeline) aggregate(ctx context.Context) ([]arrow.RecordBatch, error) {
	grouped, err := p.countedAggregateRows(ctx)
	if err != nil {
		return nil, err
	}
	defer grouped.Release()
	out, err := Project(ctx, p.q.Outputs, p.q.Names, grouped, p.params)
	if err != nil {
		return nil, err
	}
	return []arrow.RecordBatch{out}, nil
}

// groupState is the groups of one grouping set: its grouper and
// accumulators, and which GROUP BY keys it groups by (the others are NULL
// in its rows).
type groupState struct {
	g      *grouper
	accs   []accumulator
	member []bool
}

func (p *pipeline) newGroupState(set []int) (*groupState, error) {
	agg := p.q.Agg
	types := make([]sql.Type, len(agg.GroupBy))
	for i, e := range agg.GroupBy {
		types[i] = e.Type()
	}
	st := &groupState{g: newGrouper(types, p.mem, len(agg.Calls)), accs: make([]accumulator, len(agg.Calls)),
		member: make([]bool, len(agg.GroupBy))}
	for _, k := range set {
		st.member[k] = true
	}
	for i, c := range agg.Calls {
		spec := aggSpec{Func: c.Name, Star: c.Arg == nil, Distinct: c.Distinct}
		if c.Arg != nil {
			spec.Input = c.Arg.Type()
		}
		if orderSensitive(c) {
			st.accs[i] = newOrderedAcc(c, p.mem, p.tempDir, p.batch)
			continue
		}
		if c.Name == "grouping" {
			st.accs[i] = newGroupingAcc(c.Grouping, st.member)
			continue
		}
		var err error
		if st.accs[i], err = newAccumulator(spec, c.T); err != nil {
			return nil, err
		}
		switch a := st.accs[i].(type) {
		case *distinctAcc:
			a.mem, a.canSpill, a.tempDir = p.mem, true, p.tempDir
		case *stringAggAcc:
			a.mem = p.mem
		}
	}
	return st, nil
}

// groupingSets are the query's grouping sets: GROUP BY's keys as one set
// unless ROLLUP, CUBE or GROUPING SETS said otherwise.
func (p *pipeline) groupingSets() [][]int {
	if p.oneSet {
		return [][]int{p.onlySet}
	}
	if p.q.Sets != nil {
		return p.q.Sets
	}
	all := make([]int, len(p.q.Agg.GroupBy))
	for i := range all {
		all[i] = i
	}
	return [][]int{all}
}

// aggregateRows groups the filtered input: one row per group that HAVING
// keeps, in the post-aggregation layout (group keys, then aggregates).
func (p *pipeline) aggregateRows(ctx context.Context) (arrow.RecordBatch, error) {
	states, err := p.groupStates()
	if err != nil {
		return nil, err
	}
	if p.metaCount >= 0 {
		for _, a := range states[0].accs {
			a.(*countAcc).n = []int64{p.metaCount}
		}
		states[0].g.n = 1
	}
	input := p.filteredInput(ctx)
	if p.metaCount >= 0 {
		input = nil // the snapshot's count stands for the rows
	}
	parts, err := p.aggregateFrom(ctx, input, states, 1)
	if err != nil {
		return nil, err
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	defer ReleaseAll(parts)
	return ConcatBatches(parts)
}

// filteredInput is the input batches with WHERE applied.
func (p *pipeline) filteredInput(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for {
			b, err := p.nextFiltered(ctx)
			if err == io.EOF || !yield(b, err) || err != nil {
				return
			}
		}
	}
}

// groupStates starts the groups of every grouping set.
func (p *pipeline) groupStates() ([]*groupState, error) {
	var states []*groupState
	for _, set := range p.groupingSets() {
		st, err := p.newGroupState(set)
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	return states, nil
}

// having keeps the groups HAVING is true for.
func (p *pipeline) having(ctx context.Context, grouped arrow.RecordBatch) (arrow.RecordBatch, error) {
	if p.q.Having == nil {
		return grouped, nil
	}
	mask, err := sql.Match(ctx, p.q.Having, grouped, p.params)
	if err != nil {
		grouped.Release()
		return nil, err
	}
	f, err := filterBatch(grouped, mask)
	grouped.Release()
	return f, err
}

// groupedRows is every grouping set's groups in one batch, set by set.
func (p *pipeline) groupedRows(ctx context.Context, states []*groupState) (arrow.RecordBatch, error) {
	var parts []arrow.RecordBatch
	for _, st := range states {
		// A set without keys yields one row even over no input (unless
		// it froze before its first row: its rows all spilled, and its
		// partition yields the row).
		if st.g.n == 0 && !st.g.frozen && !slices.Contains(st.member, true) {
			st.g.n = 1
			for k := range st.g.keys {
				st.g.keys[k].AppendNull()
			}
		}
		b, err := groupedBatch(ctx, p.q.Agg, st.g, st.accs)
		if err != nil {
			ReleaseAll(parts)
			return nil, err
		}
		parts = append(parts, b)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	defer ReleaseAll(parts)
	return ConcatBatches(parts)
}

// ConcatBatches is the batches' rows in one batch.
func ConcatBatches(parts []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, parts[0].NumCols())
	var n int64
	for _, b := range parts {
		n += b.NumRows()
	}
	for c := range cols {
		arrs := make([]arrow.Array, len(parts))
		for i, b := range parts {
			arrs[i] = b.Column(c)
		}
		var err error
		if cols[c], err = array.Concatenate(arrs, memory.DefaultAllocator); err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
	}
	out := array.NewRecordBatch(parts[0].Schema(), cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// fold adds one input batch to every grouping set's groups.
func (p *pipeline) fold(ctx context.Context, b arrow.RecordBatch, states []*groupState) error {
	agg := p.q.Agg
	keys := make([]arrow.Array, len(agg.GroupBy))
	args := make([]arrow.Array, len(agg.Calls))
	rows := make([][]int32, len(agg.Calls))
	var held []arrow.Array
	defer func() {
		for _, a := range append(append(keys, args...), held...) {
			if a != nil {
				a.Release()
			}
		}
	}()
	var err error
	for i, e := range agg.GroupBy {
		if keys[i], err = sql.Eval(ctx, e, b, p.params); err != nil {
			return err
		}
	}
	for i, c := range agg.Calls {
		in := b
		if c.Filter != nil {
			// FILTER's rows alone reach the call: its arguments are
			// evaluated over them only (an argument may fail on a row the
			// condition rejects, and PostgreSQL never evaluates it there).
			if in, rows[i], err = filteredRows(ctx, c.Filter, b, p.params); err != nil {
				return err
			}
			defer in.Release()
		}
		if args[i], err = p.callInputs(ctx, c, in, i, states, &held); err != nil {
			return err
		}
	}
	// Every set finds its groups before any accumulator runs: when a set
	// has no room for a new group (groupsFull), no set has folded the rows,
	// and the aggregation spills them (aggregate_spill.go).
	all := make([][]int32, len(states))
	for s, st := range states {
		if all[s], err = st.groupsOf(keys, int(b.NumRows())); err != nil {
			return err
		}
	}
	for s, st := range states {
		if err := st.fold(all[s], args, rows); err != nil {
			return err
		}
	}
	return nil
}

// filteredRows is the rows of b for which cond is true, and their
// positions in b.
func filteredRows(ctx context.Context, cond sql.Expr, b arrow.RecordBatch, params []any) (arrow.RecordBatch, []int32, error) {
	mask, err := sql.Match(ctx, cond, b, params)
	if err != nil {
		return nil, nil, err
	}
	pos := make([]int32, 0, len(mask))
	for r, keep := range mask {
		if keep {
			pos = append(pos, int32(r))
		}
	}
	out, err := takeBatch(memory.DefaultAllocator, b, pos)
	return out, pos, err
}

// callInputs evaluates call i's argument over b and hands its ORDER BY keys
// and delimiter to the accumulators that read them; the argument is nil for
// count(*). held gets the arrays the accumulators keep until the batch is
// folded.
func (p *pipeline) callInputs(ctx context.Context, c *sql.AggCall, b arrow.RecordBatch, i int, states []*groupState, held *[]arrow.Array) (arrow.Array, error) {
	eval := func(e sql.Expr) (arrow.Array, error) {
		a, err := sql.Eval(ctx, e, b, p.params)
		if err == nil {
			*held = append(*held, a)
		}
		return a, err
	}
	for _, st := range states {
		if oa, ok := st.accs[i].(*orderedAcc); ok {
			oa.setContext(ctx) // a spilled run's sort stops when the statement does
		}
	}
	if len(c.OrderBy) > 0 {
		keys := make([]arrow.Array, len(c.OrderBy))
		for k, o := range c.OrderBy {
			var err error
			if keys[k], err = eval(o.Key); err != nil {
				return nil, err
			}
		}
		for _, st := range states {
			if oa, ok := st.accs[i].(*orderedAcc); ok {
				oa.setKeys(keys)
			}
		}
	}
	if c.Sep != nil {
		sep, err := eval(c.Sep)
		if err != nil {
			return nil, err
		}
		for _, st := range states {
			if sa, ok := st.accs[i].(interface{ setSep(arrow.Array) }); ok {
				sa.setSep(sep)
			}
		}
	}
	if c.Arg == nil {
		return nil, nil
	}
	if (c.Name == "sum" || c.Name == "avg") && !c.Distinct {
		// Their accumulators add decimal128 columns as 128-bit integers:
		// an arithmetic argument stays scaled integers, never text.
		if arr, ok := sql.EvalScaled(ctx, c.Arg, b); ok {
			return arr, nil
		}
	}
	return sql.Eval(ctx, c.Arg, b, p.params)
}

// ownKeys is keys as the set groups by them: the keys it does not group by
// read as NULL (let go of the result with releaseOwn).
func (st *groupState) ownKeys(keys []arrow.Array, n int) []arrow.Array {
	if !slices.Contains(st.member, false) {
		return keys
	}
	own := make([]arrow.Array, len(keys))
	for k, a := range keys {
		if st.member[k] {
			a.Retain()
			own[k] = a
		} else {
			own[k] = array.MakeArrayOfNull(memory.DefaultAllocator, a.DataType(), n)
		}
	}
	return own
}

// releaseOwn lets go of what ownKeys made.
func (st *groupState) releaseOwn(own, keys []arrow.Array) {
	if len(own) > 0 && &own[0] == &keys[0] {
		return
	}
	releaseArrays(own)
}

// groupsOf is each of the n rows' group in the set (valid until its
// grouper's next call).
func (st *groupState) groupsOf(keys []arrow.Array, n int) ([]int32, error) {
	own := st.ownKeys(keys, n)
	defer st.releaseOwn(own, keys)
	return st.g.groupIDs(own, n)
}

// fold adds the rows to the set's groups (all[r] is row r's); rows[i], when
// not nil, are the positions of the rows call i's FILTER kept (its
// argument holds those rows alone).
func (st *groupState) fold(all []int32, args []arrow.Array, rows [][]int32) error {
	for i, acc := range st.accs {
		ids := all
		if rows[i] != nil {
			ids = make([]int32, len(rows[i]))
			for j, r := range rows[i] {
				ids[j] = all[r]
			}
		}
		if ba, ok := acc.(batchAccumulator); ok {
			if err := ba.updateBatch(ids, st.g.n, args[i]); err != nil {
				return err
			}
			continue
		}
		for r, id := range ids {
			if err := acc.update(int(id), args[i], r); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupedBatch lays out the post-aggregation batch: GROUP BY values, then
// one column per aggregate call (AggContext.Scope's layout).
func groupedBatch(ctx context.Context, agg *sql.AggContext, g *grouper, accs []accumulator) (arrow.RecordBatch, error) {
	scope := agg.Scope()
	cols := make([]arrow.Array, 0, len(scope.Columns))
	for _, kb := range g.keys {
		cols = append(cols, kb.NewArray())
		kb.Release()
	}
	for _, acc := range accs {
		arr, err := acc.result(ctx, memory.DefaultAllocator, g.n)
		if err != nil {
			return nil, err
		}
		cols = append(cols, arr)
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: scope.Columns[i].Name, Type: c.DataType(), Nullable: true}
	}
	rb := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(g.n))
	for _, c := range cols {
		c.Release()
	}
	return rb, nil
}

// countedAggregateRows is aggregateRows, counted under EXPLAIN ANALYZE.
func (p *pipeline) countedAggregateRows(ctx context.Context) (arrow.RecordBatch, error) {
	done := p.enter(stageAgg)
	grouped, err := p.aggregateRows(ctx)
	if err == nil {
		done(grouped.NumRows())
	}
	return grouped, err
}
