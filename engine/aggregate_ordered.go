package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// orderedAcc is array_agg, and string_agg with ORDER BY or DISTINCT: a
// group's values are kept with their sort keys and folded in key order
// (input order without keys) when the group is done. DISTINCT sorts by the
// values, as PostgreSQL's does, and keeps the first of each run of equal
// ones.
type orderedAcc struct {
	call     *sql.AggCall
	sep      arrow.Array   // string_agg's delimiter column of the batch being folded
	keys     []arrow.Array // the ORDER BY key columns of that batch
	groups   [][]orderedRow
	distinct bool
	mem      *memBudget // charged for every value kept
}

type orderedRow struct {
	val, sep any
	keys     []any
}

// orderSensitive names the aggregates whose result depends on the order of
// their values: string_agg(DISTINCT x, ',') is in x's order.
func orderSensitive(c *sql.AggCall) bool {
	return c.Name == "array_agg" || c.Name == "string_agg" && (len(c.OrderBy) > 0 || c.Distinct)
}

func newOrderedAcc(c *sql.AggCall, mem *memBudget) *orderedAcc {
	return &orderedAcc{call: c, distinct: c.Distinct, mem: mem}
}

// orderedRowBytes is what a kept value costs beyond its own bytes: the row,
// its boxed value and delimiter, and a key slice.
const orderedRowBytes = 64

func (o *orderedAcc) setSep(sep arrow.Array)     { o.sep = sep }
func (o *orderedAcc) setKeys(keys []arrow.Array) { o.keys = keys }

func (o *orderedAcc) update(g int, arr arrow.Array, i int) error {
	for len(o.groups) <= g {
		o.groups = append(o.groups, nil)
	}
	r := orderedRow{val: sql.DatumAt(arr, o.call.Arg.Type(), i)}
	size := orderedRowBytes + sql.DatumBytes(r.val)
	if o.sep != nil {
		r.sep = sql.DatumAt(o.sep, o.call.Sep.Type(), i)
		size += sql.DatumBytes(r.sep)
	}
	for k, key := range o.keys {
		r.keys = append(r.keys, sql.DatumAt(key, o.call.OrderBy[k].Key.Type(), i))
		size += 16 + sql.DatumBytes(r.keys[k])
	}
	if err := o.mem.charge(size, o.call.Name+"()"); err != nil {
		return err
	}
	o.groups[g] = append(o.groups[g], r)
	return nil
}

func (o *orderedAcc) result(ctx context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, o.call.T.ArrowType())
	defer b.Release()
	for g := 0; g < n; g++ {
		var rows []orderedRow
		if g < len(o.groups) {
			rows = o.groups[g]
		}
		rows, err := o.sorted(ctx, rows)
		if err != nil {
			return nil, err
		}
		if err := sql.AppendDatum(b, o.call.T, o.fold(rows)); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// sorted orders a group's rows by the keys (stable: ties keep input order)
// and drops repeated values under DISTINCT, whose keys (if any) are the
// value: equal values are neighbours once sorted.
func (o *orderedAcc) sorted(ctx context.Context, rows []orderedRow) (_ []orderedRow, err error) {
	order := o.call.OrderBy
	if o.distinct && len(order) == 0 {
		order = []sql.AggOrder{{Key: o.call.Arg}}
	}
	key := func(r orderedRow, k int) any {
		if len(o.call.OrderBy) == 0 {
			return r.val
		}
		return r.keys[k]
	}
	stop := newSortStop(ctx)
	defer stop.catch(&err)
	slices.SortStableFunc(rows, func(a, b orderedRow) int {
		stop.look()
		for k, ord := range order {
			if c := compareKey(ord, key(a, k), key(b, k)); c != 0 {
				return c
			}
		}
		if o.distinct && o.call.Sep != nil {
			// DISTINCT is over both arguments of string_agg.
			return compareKey(sql.AggOrder{Key: o.call.Sep}, a.sep, b.sep)
		}
		return 0
	})
	if !o.distinct {
		return rows, nil
	}
	out := rows[:0]
	for i, r := range rows {
		if i == 0 || !o.sameValue(out[len(out)-1], r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// sameValue reports whether DISTINCT takes b for a repeat of a.
func (o *orderedAcc) sameValue(a, b orderedRow) bool {
	equal := func(t sql.Type, x, y any) bool {
		return x == nil && y == nil || x != nil && y != nil && sql.CompareDatums(t, x, y) == 0
	}
	if !equal(o.call.Arg.Type(), a.val, b.val) {
		return false
	}
	return o.call.Sep == nil || equal(o.call.Sep.Type(), a.sep, b.sep)
}

// compareKey orders two key values as ORDER BY does.
func compareKey(o sql.AggOrder, a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		if o.NullsFirst {
			return -1
		}
		return 1
	case b == nil:
		if o.NullsFirst {
			return 1
		}
		return -1
	}
	c := sql.CompareDatums(o.Key.Type(), a, b)
	if o.Desc {
		return -c
	}
	return c
}

// fold is the aggregate over a group's rows in order; NULL for no rows
// (and for string_agg over only NULLs).
func (o *orderedAcc) fold(rows []orderedRow) any {
	if len(rows) == 0 {
		return nil
	}
	if o.call.Name == "array_agg" {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r.val
		}
		return sql.FormatArrayDatums(o.call.T.ElemType(), vals)
	}
	var sb strings.Builder
	seen := false
	for _, r := range rows {
		if r.val == nil {
			continue
		}
		if seen && r.sep != nil {
			sb.WriteString(r.sep.(string))
		}
		sb.WriteString(r.val.(string))
		seen = true
	}
	if !seen {
		return nil
	}
	return sb.String()
}
