package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// join plans a join of two FROM items.
func (p *Builder) join(j *sql.FromJoin, outer *sql.Outer) (Node, error) {
	if ts, ok := j.LateralRight(); ok {
		return p.lateral(j, ts, outer)
	}
	left, err := p.fromItem(j.Left(), outer)
	if err != nil {
		return nil, err
	}
	right, err := p.fromItem(j.Right(), outer)
	if err != nil {
		return nil, err
	}
	js := NewJoin(left, right, joinKindOf(j))
	using, err := usingNames(j, left.Scope(), right.Scope())
	if err != nil {
		return nil, err
	}
	switch {
	case j.On() != nil:
		cond, err := sql.BindCondition(j.On(), withOuter(js.Sc, outer), p.params, "JOIN/ON")
		if err != nil {
			return nil, err
		}
		js.SetCondition(cond)
		js.onSideFilters()
	case using != nil:
		return p.usingJoin(js, using)
	}
	return js, nil
}

func joinKindOf(j *sql.FromJoin) JoinKind {
	switch j.Kind() {
	case sql.JoinFull:
		return JoinFull
	case sql.JoinLeft:
		return JoinLeft
	case sql.JoinRight:
		return JoinRight
	}
	return JoinInner
}

// usingNames lists the columns of USING (...), or of NATURAL: those both
// sides have. nil means neither.
func usingNames(j *sql.FromJoin, l, r *sql.Scope) ([]string, error) {
	if j.Natural() {
		names := []string{}
		for _, c := range l.Columns {
			if !c.Hidden && !c.System && visibleIndex(r, c.Name) >= 0 {
				names = append(names, c.Name)
			}
		}
		return names, nil
	}
	return j.Using(), nil
}

// visibleIndex is the column an unqualified name means in sc: -1 for none,
// -2 for more than one.
func visibleIndex(sc *sql.Scope, name string) int {
	found := -1
	for i, c := range sc.Columns {
		if c.Name == name && !c.Hidden {
			if found >= 0 {
				return -2
			}
			found = i
		}
	}
	return found
}

// usingJoin joins on equality of the named columns and merges each pair
// into one unqualified column, listed first, as PostgreSQL does.
func (p *Builder) usingJoin(js *Join, names []string) (Node, error) {
	ls, rs := js.Left.Scope(), js.Right.Scope()
	nl := len(ls.Columns)
	var conds, merged []sql.Expr
	var same []int
	var mergedCols []sql.ScopeColumn
	hidden := map[int]bool{}
	for _, name := range names {
		li, ri := visibleIndex(ls, name), visibleIndex(rs, name)
		switch {
		case li == -2:
			return nil, pgerr.Errorf(pgerr.AmbiguousColumn, "common column name %q appears more than once in left table", name)
		case ri == -2:
			return nil, pgerr.Errorf(pgerr.AmbiguousColumn, "common column name %q appears more than once in right table", name)
		case li < 0 || ri < 0:
			side := "left"
			if li >= 0 {
				side = "right"
			}
			return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
		}
		lref := columnRef(js.Sc, li)
		rref := columnRef(js.Sc, nl+ri)
		eq, err := sql.BindEquality(lref, rref)
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
		first, second := sql.Expr(lref), sql.Expr(rref)
		if js.Kind == JoinRight {
			first, second = rref, lref
		}
		m, err := sql.BindCoalesce(first, second)
		if err != nil {
			return nil, err
		}
		merged = append(merged, m)
		same = append(same, sameColumn(js.Kind, m.Type(), lref, rref))
		mergedCols = append(mergedCols, sql.ScopeColumn{Name: name, T: m.Type()})
		hidden[li], hidden[nl+ri] = true, true
	}
	if len(conds) > 0 {
		js.SetCondition(AndOf(conds))
	}
	sc := &sql.Scope{Aliased: js.Sc.Aliased, Columns: mergedCols}
	for i, c := range js.Sc.Columns {
		c.Hidden = c.Hidden || hidden[i]
		sc.Columns = append(sc.Columns, c)
	}
	return &Using{Input: js, Merged: merged, Same: same, Sc: sc}, nil
}

// sameColumn is the column of the join a merged USING column equals on
// every row: the left one of an inner or left join (a left row without a
// match has NULL on the right), the right one of a right join; -1 for a
// full join, or when the merged type is another (the column is converted).
func sameColumn(kind JoinKind, merged sql.Type, l, r *sql.ColumnRef) int {
	c := l
	switch kind {
	case JoinFull:
		return -1
	case JoinRight:
		c = r
	}
	if c.T != merged {
		return -1
	}
	return c.Index
}

func columnRef(sc *sql.Scope, i int) *sql.ColumnRef {
	c := sc.Columns[i]
	return &sql.ColumnRef{Index: i, Table: c.Table, Name: c.Name, T: c.T, FieldID: c.FieldID}
}

// andOf is the conjunction of es, flattened: a join finds its hash keys
// among the top-level conjuncts.
func AndOf(es []sql.Expr) sql.Expr {
	var flat []sql.Expr
	for _, e := range es {
		if l, ok := e.(*sql.Logic); ok && l.And {
			flat = append(flat, l.Args...)
			continue
		}
		flat = append(flat, e)
	}
	if len(flat) == 1 {
		return flat[0]
	}
	return &sql.Logic{And: true, Args: flat}
}
