package plan

import "github.com/magmalake/magmalake/sql"

// Keyed is the form of a correlated subquery whose only correlation is
// one equality with the enclosing row (inner.k = outer.x): it runs once
// per statement, keeping its rows by key, and each enclosing row looks
// its rows up; the hash join a correlated subquery is, instead of one run
// per distinct outer value. UPDATE ... FROM's assignments and DML's
// EXISTS take this form.
type Keyed struct {
	Build  *Query // the subquery without the equality, the key last
	Slot   int    // the outer value's slot
	KeyT   sql.Type
	OuterT sql.Type
	Domain sql.Type
	PerKey int64 // the subquery's LIMIT, per key; -1: none
}

// keyedForm recognises the form; ok is false for any other subquery.
func keyedForm(q *Query) (*Keyed, bool) {
	if q.Agg != nil || q.Win != nil || q.Distinct || q.DistinctOn != nil || len(q.Order) > 0 ||
		q.Offset != nil || q.Having != nil || q.Sets != nil || q.Where == nil || q.Visible != len(q.Outputs) {
		return nil, false
	}
	perKey := int64(-1)
	if q.Limit != nil {
		c, ok := q.Limit.(*sql.Const)
		if !ok || c.Value == nil {
			return nil, false
		}
		if perKey, ok = c.Value.(int64); !ok {
			return nil, false
		}
	}
	conj := Conjuncts(q.Where)
	for i, c := range conj {
		k, ok := keyEquality(c)
		if !ok {
			continue
		}
		rest := append(append([]sql.Expr(nil), conj[:i]...), conj[i+1:]...)
		if readsOuter(append(rest, q.Outputs...)...) {
			return nil, false
		}
		build := *q
		build.Where, build.Limit = andAll(rest), nil
		build.Outputs = append(append([]sql.Expr(nil), q.Outputs...), k.inner)
		build.Names = append(append([]string(nil), q.Names...), "__key")
		build.Visible = len(build.Outputs)
		return &Keyed{Build: &build, Slot: k.outer.Slot, KeyT: k.inner.Type(), OuterT: k.outer.Type(),
			Domain: k.domain, PerKey: perKey}, true
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
