package engine

import (
	"context"
	"io"
	"sync"

	"github.com/magmalake/magmalake/sql"
)

// keyedSubPlan runs a subquery whose only correlation is one equality
// with the enclosing row (inner.k = outer.x) once per statement, keeping
// its rows by key; each enclosing row then looks its rows up: the hash
// join a correlated subquery is, instead of one run per distinct outer
// value. UPDATE ... FROM's assignments and DML's EXISTS take this form.
type keyedSubPlan struct {
	*subPlan
	build  *selectQuery // the subquery without the equality, the key last
	slot   int          // the outer value's slot
	keyT   sql.Type     // the inner key's type
	outerT sql.Type
	domain sql.Type
	perKey int64 // the subquery's LIMIT, per key; -1: none

	own keyedRows // the rows when run outside a statement (keyedRowsOf)
}

// keyedRows are one statement's rows of a keyed subquery, loaded on first use.
type keyedRows struct {
	once sync.Once
	rows map[string][][]any
	err  error
}

// keyedPlan recognises the form; ok is false for any other subquery.
func keyedPlan(sp *subPlan) (*keyedSubPlan, bool) {
	q := sp.q
	if q.agg != nil || q.win != nil || q.distinct || q.distinctOn != nil || len(q.order) > 0 ||
		q.offset != nil || q.having != nil || q.sets != nil || q.where == nil || q.visible != len(q.outputs) {
		return nil, false
	}
	perKey := int64(-1)
	if q.limit != nil {
		c, ok := q.limit.(*sql.Const)
		if !ok || c.Value == nil {
			return nil, false
		}
		if perKey, ok = c.Value.(int64); !ok {
			return nil, false
		}
	}
	conj := []sql.Expr{q.where}
	if l, ok := q.where.(*sql.Logic); ok && l.And {
		conj = l.Args
	}
	for i, c := range conj {
		k, ok := keyEquality(c)
		if !ok {
			continue
		}
		rest := append(append([]sql.Expr(nil), conj[:i]...), conj[i+1:]...)
		if readsOuter(append(rest, q.outputs...)...) {
			return nil, false
		}
		build := *q
		build.where, build.limit = andAll(rest), nil
		build.outputs = append(append([]sql.Expr(nil), q.outputs...), k.inner)
		build.names = append(append([]string(nil), q.names...), "__key")
		build.visible = len(build.outputs)
		return &keyedSubPlan{subPlan: sp, build: &build, slot: k.outer.Slot, keyT: k.inner.Type(), outerT: k.outer.Type(),
			domain: k.domain, perKey: perKey}, true
	}
	return nil, false
}

type keyEq struct {
	inner  sql.Expr // over the subquery's input, reading no outer row
	outer  *sql.OuterRef
	domain sql.Type
}

// keyEquality recognises inner expression = outer reference, either way
// round (era.id + 1 = big.id).
func keyEquality(e sql.Expr) (keyEq, bool) {
	c, ok := e.(*sql.Compare)
	if !ok || c.Op != sql.OpEQ {
		return keyEq{}, false
	}
	if o, ok := c.R.(*sql.OuterRef); ok && !readsOuter(c.L) {
		return keyEq{c.L, o, c.Domain}, true
	}
	if o, ok := c.L.(*sql.OuterRef); ok && !readsOuter(c.R) {
		return keyEq{c.R, o, c.Domain}, true
	}
	return keyEq{}, false
}

// readsOuter reports whether any expression reads the enclosing row, or
// holds a subquery (whose own correlation it cannot see).
func readsOuter(es ...sql.Expr) bool {
	for _, e := range es {
		switch e.(type) {
		case *sql.OuterRef, *sql.Subquery:
			return true
		}
		if readsOuter(sql.Children(e)...) {
			return true
		}
	}
	return false
}

func andAll(es []sql.Expr) sql.Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return &sql.Logic{And: true, Args: es}
}

func (k *keyedSubPlan) Run(ctx context.Context, params []any, outer []any) ([][]any, error) {
	r := keyedRowsOf(ctx, k)
	r.once.Do(func() { r.rows, r.err = k.load(ctx, params) })
	if r.err != nil {
		return nil, r.err
	}
	v := outer[k.slot]
	if v == nil {
		return nil, nil // NULL = anything is never true
	}
	return r.rows[sql.DomainKey(v, k.outerT, k.domain)], nil
}

// load runs the subquery once and groups its rows by key; rows with a
// NULL key can match nothing and are dropped.
func (k *keyedSubPlan) load(ctx context.Context, params []any) (map[string][][]any, error) {
	rows, err := k.build.run(ctx, k.env, params)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := make([]sql.Type, len(k.build.outputs))
	for i, e := range k.build.outputs {
		types[i] = e.Type()
	}
	out := map[string][][]any{}
	keyAt := len(types) - 1
	mem := newMemBudget(k.env.Options.WorkMem)
	for {
		b, err := rows.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for _, row := range appendDatumRows(nil, b, types) {
			if row[keyAt] == nil {
				continue
			}
			key := sql.DomainKey(row[keyAt], k.keyT, k.domain)
			held, ok := out[key]
			if k.perKey >= 0 && int64(len(held)) >= k.perKey {
				continue
			}
			size := sql.RowsBytes([][]any{row[:keyAt]})
			if !ok {
				size += int64(len(key)) + mapEntryBytes
			}
			if err := mem.charge(size, "a subquery"); err != nil {
				return nil, err
			}
			out[key] = append(held, row[:keyAt])
		}
	}
}
