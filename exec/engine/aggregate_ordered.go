package engine

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// orderedAcc is array_agg, and string_agg with ORDER BY: a group's values
// are kept with their sort keys and folded in key order (input order
// without keys) when the group is done.
type orderedAcc struct {
	call     *sql.AggCall
	sep      arrow.Array   // string_agg's delimiter column of the batch being folded
	keys     []arrow.Array // the ORDER BY key columns of that batch
	groups   [][]orderedRow
	distinct bool
}

type orderedRow struct {
	val, sep any
	keys     []any
}

// orderSensitive names the aggregates whose result depends on input order
// (string_agg over DISTINCT too: its values come sorted, as PostgreSQL's
// sort-based DISTINCT gives them).
func orderSensitive(c *sql.AggCall) bool {
	return c.Name == "array_agg" || c.Name == "string_agg" && (len(c.OrderBy) > 0 || c.Distinct)
}

func newOrderedAcc(c *sql.AggCall) *orderedAcc { return &orderedAcc{call: c, distinct: c.Distinct} }

func (o *orderedAcc) setSep(sep arrow.Array)     { o.sep = sep }
func (o *orderedAcc) setKeys(keys []arrow.Array) { o.keys = keys }

func (o *orderedAcc) update(g int, arr arrow.Array, i int) error {
	for len(o.groups) <= g {
		o.groups = append(o.groups, nil)
	}
	r := orderedRow{val: sql.DatumAt(arr, o.call.Arg.Type(), i)}
	if o.sep != nil {
		r.sep = sql.DatumAt(o.sep, o.call.Sep.Type(), i)
	}
	for k, key := range o.keys {
		r.keys = append(r.keys, sql.DatumAt(key, o.call.OrderBy[k].Key.Type(), i))
	}
	o.groups[g] = append(o.groups[g], r)
	return nil
}

func (o *orderedAcc) result(mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, o.call.T.ArrowType())
	defer b.Release()
	for g := 0; g < n; g++ {
		var rows []orderedRow
		if g < len(o.groups) {
			rows = o.groups[g]
		}
		v := o.fold(o.sorted(rows))
		if err := sql.AppendDatum(b, o.call.T, v); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// sorted orders a group's rows by the keys (stable: ties keep input order)
// and drops repeated values under DISTINCT.
func (o *orderedAcc) sorted(rows []orderedRow) []orderedRow {
	if o.distinct && len(o.call.OrderBy) == 0 {
		// DISTINCT without ORDER BY: PostgreSQL sorts the values to drop
		// repeats, and folds them in that order.
		byValue := sql.AggOrder{Key: o.call.Arg}
		slices.SortStableFunc(rows, func(a, b orderedRow) int { return compareKey(byValue, a.val, b.val) })
	}
	slices.SortStableFunc(rows, func(a, b orderedRow) int {
		for k, ord := range o.call.OrderBy {
			if c := compareKey(ord, a.keys[k], b.keys[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	if !o.distinct {
		return rows
	}
	t := o.call.Arg.Type()
	var out []orderedRow
	for _, r := range rows {
		dup := slices.ContainsFunc(out, func(s orderedRow) bool {
			return s.val == nil && r.val == nil || s.val != nil && r.val != nil && sql.CompareDatums(t, s.val, r.val) == 0
		})
		if !dup {
			out = append(out, r)
		}
	}
	return out
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
