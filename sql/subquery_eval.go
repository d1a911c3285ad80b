package sql

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/magmalake/magmalake/pgerr"
)

// maxCachedSubqueryRuns bounds how many results of one correlated subquery
// a statement keeps (one per distinct outer value): past it the cache starts
// over rather than growing with the outer table.
const maxCachedSubqueryRuns = 1 << 16

// maxCachedSubqueryBytes bounds what the results a statement keeps hold
// (RowsBytes): past it the cache starts over, as it does past
// maxCachedSubqueryRuns. One run's rows are bounded by work_mem where the
// subquery runs.
const maxCachedSubqueryBytes = 64 << 20

type subqueryCacheKey struct{}

// subqueryCache holds a statement's subquery results: an uncorrelated
// subquery runs once per statement, a correlated one once per distinct
// outer value.
type subqueryCache struct {
	mu    sync.Mutex // DML evaluates its WHERE on several files at once
	runs  map[*Subquery]map[string]*subResult
	bytes int64 // what the results kept hold
}

// WithSubqueryCache starts a statement's subquery cache.
func WithSubqueryCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, subqueryCacheKey{}, &subqueryCache{runs: map[*Subquery]map[string]*subResult{}})
}

func (ev *evaluator) subqueryCache() *subqueryCache {
	if c, ok := ev.ctx.Value(subqueryCacheKey{}).(*subqueryCache); ok {
		return c
	}
	if ev.subqueries == nil {
		ev.subqueries = &subqueryCache{runs: map[*Subquery]map[string]*subResult{}}
	}
	return ev.subqueries
}

// subResult is one run's rows, with the set of ANY's values built on first use.
type subResult struct {
	rows    [][]any
	set     map[string]struct{}
	sawNull bool
	hashed  sync.Once
}

func (c *subqueryCache) result(ctx context.Context, x *Subquery, params, outer []any) (*subResult, error) {
	key := ValuesKey(outer)
	c.mu.Lock()
	r, ok := c.runs[x][key]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	// Run unlocked: two goroutines missing at once both run it, alike.
	rows, err := x.Plan.Run(ctx, params, outer)
	if err != nil {
		return nil, err
	}
	r = &subResult{rows: rows}
	size := RowsBytes(rows)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+size > maxCachedSubqueryBytes {
		c.runs, c.bytes = map[*Subquery]map[string]*subResult{}, 0
	}
	runs := c.runs[x]
	if runs == nil || len(runs) >= maxCachedSubqueryRuns {
		runs = map[string]*subResult{}
		c.runs[x] = runs
	}
	runs[key] = r
	c.bytes += size
	return r, nil
}

// subqueryCheckSteps is how many rows of subquery results evalSubquery goes
// through between two looks at the statement's context.
const subqueryCheckSteps = 4096

// ValuesKey encodes values with their Go types, so that equal keys mean
// equal inputs to a subquery run for them.
func ValuesKey(vals []any) string {
	if len(vals) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, v := range vals {
		fmt.Fprintf(&sb, "%T:%v\x00", v, v)
	}
	return sb.String()
}

func (ev *evaluator) evalSubquery(x *Subquery, sel []int, out []any) ([]any, error) {
	refs := make([][]any, len(x.Refs))
	for k, r := range x.Refs {
		var err error
		if refs[k], err = ev.eval(r, sel); err != nil {
			return nil, err
		}
	}
	var test []any
	if x.Test != nil {
		var err error
		if test, err = ev.eval(x.Test, sel); err != nil {
			return nil, err
		}
	}
	row := make([][]any, len(x.Row))
	for k, e := range x.Row {
		var err error
		if row[k], err = ev.eval(e, sel); err != nil {
			return nil, err
		}
	}
	cache := ev.subqueryCache()
	outer := make([]any, len(refs))
	steps := 0
	for _, i := range sel {
		for k := range refs {
			outer[k] = refs[k][i]
		}
		res, err := cache.result(ev.ctx, x, ev.params, append([]any(nil), outer...))
		if err != nil {
			return nil, err
		}
		// A row compares its value with every row of the result (x >
		// ALL, row comparisons, arrays): a batch against a large result
		// is billions of steps, between which the statement may end.
		if steps += 1 + len(res.rows); steps >= subqueryCheckSteps {
			steps = 0
			if err := ev.ctx.Err(); err != nil {
				return nil, err
			}
		}
		var t any
		if test != nil {
			t = test[i]
		}
		if x.Row != nil {
			vals := make([]any, len(row))
			for k := range row {
				vals[k] = row[k][i]
			}
			out[i] = res.rowValue(x, vals)
			continue
		}
		if out[i], err = res.value(x, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// value is what the subquery expression yields for one row.
func (r *subResult) value(x *Subquery, test any) (any, error) {
	switch x.Kind {
	case SubScalar:
		switch len(r.rows) {
		case 0:
			return nil, nil
		case 1:
			return r.rows[0][0], nil
		}
		return nil, pgerr.Errorf(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
	case SubExists:
		return len(r.rows) > 0, nil
	case SubArray:
		ds := make([]any, len(r.rows))
		for i, row := range r.rows {
			ds[i] = row[0]
		}
		return formatArrayDatums(x.T.ElemType(), ds), nil
	}
	if len(r.rows) == 0 {
		// x op ANY (empty) is false and x op ALL (empty) true, even for NULL x.
		return x.Kind == SubAll, nil
	}
	if test == nil {
		return nil, nil
	}
	if x.Kind == SubAny && x.Op == OpEQ {
		return r.contains(x, test), nil
	}
	return r.quantified(x, test), nil
}

// rowValue is (a, b) op ANY|ALL (rows) under three-valued logic.
func (r *subResult) rowValue(x *Subquery, vals []any) any {
	sawNull := false
	for _, row := range r.rows {
		switch v := r.rowCompare(x, vals, row); {
		case v == nil:
			sawNull = true
		case v.(bool) == (x.Kind == SubAny):
			return v // ANY found a true one, ALL a false one
		}
	}
	if sawNull {
		return nil
	}
	return x.Kind == SubAll
}

// rowCompare is (vals) op (row) as PostgreSQL compares rows: = holds when
// every pair is equal and fails when a non-NULL pair differs; an ordering
// is decided by the first pair, left to right, that is not equal, and is
// unknown when a NULL comes first.
func (r *subResult) rowCompare(x *Subquery, vals, row []any) any {
	cols := x.Plan.Columns()
	unknown := false
	for k, v := range vals {
		if v == nil || row[k] == nil {
			if x.Op != OpEQ && x.Op != OpNE {
				return nil
			}
			unknown = true
			continue
		}
		dom := x.RowDomains[k]
		c := compareDatums(dom, toDomain(v, x.Row[k].Type(), dom), toDomain(row[k], cols[k], dom))
		if c == 0 {
			continue
		}
		if x.Op == OpEQ || x.Op == OpNE {
			return x.Op == OpNE
		}
		return cmpHolds(x.Op, c)
	}
	switch {
	case unknown:
		return nil
	case x.Op == OpEQ || x.Op == OpNE:
		return x.Op == OpEQ
	}
	return cmpHolds(x.Op, 0)
}

// contains is x = ANY (rows) through a hash set of the rows' values.
func (r *subResult) contains(x *Subquery, test any) any {
	col := x.Plan.Columns()[0]
	r.hashed.Do(func() {
		r.set = make(map[string]struct{}, len(r.rows))
		for _, row := range r.rows {
			if row[0] == nil {
				r.sawNull = true
				continue
			}
			r.set[domainKey(toDomain(row[0], col, x.Domain))] = struct{}{}
		}
	})
	if _, ok := r.set[domainKey(toDomain(test, x.Test.Type(), x.Domain))]; ok {
		return true
	}
	if r.sawNull {
		return nil
	}
	return false
}

// quantified is x op ANY|ALL (rows) under three-valued logic.
func (r *subResult) quantified(x *Subquery, test any) any {
	col := x.Plan.Columns()[0]
	tv := toDomain(test, x.Test.Type(), x.Domain)
	sawNull := false
	for _, row := range r.rows {
		if row[0] == nil {
			sawNull = true
			continue
		}
		holds := cmpHolds(x.Op, compareDatums(x.Domain, tv, toDomain(row[0], col, x.Domain)))
		if x.Kind == SubAny && holds {
			return true
		}
		if x.Kind == SubAll && !holds {
			return false
		}
	}
	if sawNull {
		return nil
	}
	return x.Kind == SubAll
}

// domainKey is a hash key under which datums equal in their comparison
// domain coincide: -0 and 0, every NaN, 1.50 and 1.5.
func domainKey(v any) string {
	switch x := v.(type) {
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "fNaN"
		case x == 0:
			return "f0"
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case Decimal:
		return "n" + x.Rat().RatString()
	case string:
		return "s" + x
	case bool:
		return "b" + strconv.FormatBool(x)
	case []byte:
		return "x" + string(x)
	}
	return fmt.Sprintf("%T:%v", v, v)
}
