package engine

import (
	"context"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// A join whose unmatched probe rows give nothing filters its probe side
// by what the build side's keys allow (probeBatches): a small build side
// lists its distinct values of each key (TPC-H Q17: the 200 keys of a few
// parts, against all lines grouped by part, which the list reaches through
// the grouping, derived_push.go), a larger one gives the range of a single
// integer key (keyRangeFilter), read from its hash table at no cost.

// keySetRows is the most build rows whose keys are listed; keySetMax the
// most distinct values of one key a list holds (past it, their range).
// The probe side tests a list through a hash set, or a bitmap for dense
// integers, so a long one costs little per row; and a list that reaches
// an aggregate under the probe side decides how many groups it makes (Q20
// at SF 10: 86,000 partsupp rows of 21,000 parts, against all of a year's
// lineitems grouped by part and supplier when only their range got there).
const (
	keySetRows = 1 << 18
	keySetMax  = 1 << 15
)

// dynamicFilter is the filter the build side implies for the probe side's
// rows; nil when it says nothing.
func (r *joinRun) dynamicFilter(ctx context.Context) sql.Expr {
	if r.rows == nil || r.rows.NumRows() > keySetRows {
		return r.keyRangeFilter()
	}
	pkeys, bkeys := r.keys()
	var conj []sql.Expr
	for k, pk := range pkeys {
		col, ok := probeColumn(pk, r.j.Domains[k])
		if !ok || !prunableKind(col.T.Kind) {
			continue
		}
		if f := r.keyValuesFilter(ctx, col, bkeys[k], r.j.Domains[k], keySetMax); f != nil {
			conj = append(conj, f)
		}
	}
	if len(conj) == 0 {
		return r.keyRangeFilter()
	}
	return plan.AndOf(conj)
}

// probeColumn is the probe column a key reads, when the key is that
// column or an integer column widened to an integer domain (same values).
func probeColumn(key sql.Expr, dom sql.Type) (*sql.ColumnRef, bool) {
	if c, ok := key.(*sql.Cast); ok && isIntegerKind(c.X.Type().Kind) && isIntegerKind(dom.Kind) {
		key = c.X
	}
	col, ok := key.(*sql.ColumnRef)
	return col, ok
}

// keyValuesFilter is col IN (the build rows' distinct values of key) when
// there are at most listMax, else col BETWEEN their least and greatest;
// false when every value is NULL, nil when the values cannot be read.
func (r *joinRun) keyValuesFilter(ctx context.Context, col *sql.ColumnRef, key sql.Expr, dom sql.Type, listMax int) sql.Expr {
	arr, err := sql.Eval(ctx, key, r.rows, r.params)
	if err != nil {
		return nil
	}
	defer arr.Release()
	t := key.Type()
	if !prunableKind(t.Kind) {
		return nil
	}
	seen := map[any]bool{}
	var vals []any
	var lo, hi any
	for i := range arr.Len() {
		v := sql.DatumAt(arr, t, i)
		if v == nil {
			continue
		}
		if lo == nil || sql.CompareDatums(t, v, lo) < 0 {
			lo = v
		}
		if hi == nil || sql.CompareDatums(t, v, hi) > 0 {
			hi = v
		}
		if len(vals) <= listMax {
			if k := sql.DomainKey(v, t, dom); !seen[k] {
				seen[k] = true
				vals = append(vals, v)
			}
		}
	}
	if lo == nil {
		return &sql.Const{Value: false, T: sql.Bool}
	}
	if len(vals) <= listMax {
		in := &sql.InList{X: col}
		for _, v := range vals {
			in.List, in.Domains = append(in.List, &sql.Const{Value: v, T: t}), append(in.Domains, dom)
		}
		return in
	}
	return plan.AndOf([]sql.Expr{
		&sql.Compare{Op: sql.OpGE, L: col, R: &sql.Const{Value: lo, T: t}, Domain: dom},
		&sql.Compare{Op: sql.OpLE, L: col, R: &sql.Const{Value: hi, T: t}, Domain: dom},
	})
}
