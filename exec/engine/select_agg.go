package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// grouper assigns group ids to key tuples and keeps one copy of each tuple.
type grouper struct {
	ids      map[string]int
	keys     []array.Builder
	n        int
	buf      []byte
	mem      *memBudget
	perGroup int64 // accumulator state per group, estimated
}

// groupOverhead is a group's map entry and accumulator state beyond its key,
// estimated per aggregate (big.Int sums, counts, slices of states).
const groupOverhead = 96

func newGrouper(types []sql.Type, mem *memBudget, aggregates int) *grouper {
	g := &grouper{ids: map[string]int{}, mem: mem, perGroup: groupOverhead * int64(1+aggregates)}
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
	if id, ok := g.ids[string(g.buf)]; ok {
		return id, nil
	}
	// A new group holds its key twice (map and key column) and its state.
	if err := g.mem.charge(2*int64(len(g.buf))+g.perGroup, "GROUP BY"); err != nil {
		return 0, err
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

// aggregate groups the filtered input and returns the output rows.
func (p *pipeline) aggregate(ctx context.Context) ([]arrow.RecordBatch, error) {
	grouped, err := p.aggregateRows(ctx)
	if err != nil {
		return nil, err
	}
	defer grouped.Release()
	out, err := Project(ctx, p.q.outputs, p.q.names, grouped, p.params)
	if err != nil {
		return nil, err
	}
	return []arrow.RecordBatch{out}, nil
}

// aggregateRows groups the filtered input: one row per group that HAVING
// keeps, in the post-aggregation layout (group keys, then aggregates).
func (p *pipeline) aggregateRows(ctx context.Context) (arrow.RecordBatch, error) {
	agg := p.q.agg
	types := make([]sql.Type, len(agg.GroupBy))
	for i, e := range agg.GroupBy {
		types[i] = e.Type()
	}
	g := newGrouper(types, p.mem, len(agg.Calls))
	accs := make([]accumulator, len(agg.Calls))
	for i, c := range agg.Calls {
		spec := aggSpec{Func: c.Name, Star: c.Arg == nil, Distinct: c.Distinct}
		if c.Arg != nil {
			spec.Input = c.Arg.Type()
		}
		var err error
		if accs[i], err = newAccumulator(spec, c.T); err != nil {
			return nil, err
		}
		if d, ok := accs[i].(*distinctAcc); ok {
			d.mem = p.mem
		}
	}
	if p.metaCount >= 0 {
		for _, a := range accs {
			a.(*countAcc).n = []int64{p.metaCount}
		}
		g.n = 1
	}
	for p.metaCount < 0 {
		b, err := p.nextFiltered(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		err = p.fold(ctx, b, g, accs)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	// An aggregate without GROUP BY yields one row even over no input.
	if len(agg.GroupBy) == 0 && g.n == 0 {
		g.n = 1
	}
	grouped, err := groupedBatch(agg, g, accs)
	if err != nil {
		return nil, err
	}
	if p.q.having != nil {
		mask, err := sql.Match(ctx, p.q.having, grouped, p.params)
		if err != nil {
			grouped.Release()
			return nil, err
		}
		f, err := filterBatch(grouped, mask)
		grouped.Release()
		if err != nil {
			return nil, err
		}
		grouped = f
	}
	return grouped, nil
}

// fold adds one input batch to the groups and accumulators.
func (p *pipeline) fold(ctx context.Context, b arrow.RecordBatch, g *grouper, accs []accumulator) error {
	agg := p.q.agg
	keys := make([]arrow.Array, len(agg.GroupBy))
	args := make([]arrow.Array, len(agg.Calls))
	defer func() {
		for _, a := range append(keys, args...) {
			if a != nil {
				a.Release()
			}
		}
	}()
	var err error
	for i, e := range agg.GroupBy {
		if keys[i], err = evalColumn(ctx, e, b, p.params); err != nil {
			return err
		}
	}
	for i, c := range agg.Calls {
		if c.Arg != nil {
			if args[i], err = evalColumn(ctx, c.Arg, b, p.params); err != nil {
				return err
			}
		}
		if c.Sep != nil {
			sep, err := evalColumn(ctx, c.Sep, b, p.params)
			if err != nil {
				return err
			}
			defer sep.Release()
			if sa, ok := accs[i].(interface{ setSep(arrow.Array) }); ok {
				sa.setSep(sep)
			}
		}
	}
	for r := 0; r < int(b.NumRows()); r++ {
		id, err := g.group(keys, r)
		if err != nil {
			return err
		}
		for i, acc := range accs {
			if err := acc.update(id, args[i], r); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupedBatch lays out the post-aggregation batch: GROUP BY values, then
// one column per aggregate call (AggContext.Scope's layout).
func groupedBatch(agg *sql.AggContext, g *grouper, accs []accumulator) (arrow.RecordBatch, error) {
	scope := agg.Scope()
	cols := make([]arrow.Array, 0, len(scope.Columns))
	for _, kb := range g.keys {
		cols = append(cols, kb.NewArray())
		kb.Release()
	}
	for _, acc := range accs {
		arr, err := acc.result(memory.DefaultAllocator, g.n)
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
