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
// A probe side that groups its rows (a keyed aggregate subquery, a
// derived table with GROUP BY) takes longer lists: there the list decides
// how many groups are made (Q20 at SF 10: 86,000 partsupp rows of 21,000
// parts, against all of a year's lineitems grouped by part and supplier
// when only their range got there). A plain scan gets the short ones: a
// long list it mostly passes costs more than the hash probe it precedes.
const (
	keySetRows = 1 << 16
	keySetMax  = 4096

	groupedKeySetRows = 1 << 18
	groupedKeySetMax  = 1 << 15
)

// keySetLimits are the build rows and distinct keys up to which the keys
// are listed for a probe side src.
func keySetLimits(src source) (rows int64, keys int) {
	if groupsRows(src) {
		return groupedKeySetRows, groupedKeySetMax
	}
	return keySetRows, keySetMax
}

// groupsRows reports a probe side that is a query grouping its rows,
// under the wrappers a filter passes through (pushFilter).
func groupsRows(src source) bool {
	switch s := src.(type) {
	case *picked:
		return groupsRows(s.src)
	case *rescoped:
		return groupsRows(s.src)
	case *derivedSource:
		return s.q.Agg != nil
	}
	return false
}

// dynamicFilter is the filter the build side implies for the probe side's
// rows; nil when it says nothing.
func (r *joinRun) dynamicFilter(ctx context.Context) sql.Expr {
	probe := r.j.right
	if r.probeIsLeft {
		probe = r.j.left
	}
	maxRows, maxKeys := keySetLimits(probe)
	if r.rows == nil || r.rows.NumRows() > maxRows {
		return r.keyRangeFilter()
	}
	pkeys, bkeys := r.keys()
	var conj []sql.Expr
	for k, pk := range pkeys {
		col, ok := probeColumn(pk, r.j.Domains[k])
		if !ok || !prunableKind(col.T.Kind) {
			continue
		}
		if f := r.keyValuesFilter(ctx, col, bkeys[k], r.j.Domains[k], maxKeys); f != nil {
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
