package plan

import "github.com/magmalake/magmalake/sql"

// PushDown copies each conjunct of WHERE that relates the two sides of
// an inner join into that join's condition, so that FROM a, b WHERE a.k =
// b.k hashes on the key instead of filtering a cross product, and each
// conjunct that reads one side only into that side's filter, so the side is
// filtered before it is joined (the build side of a hash join then holds
// only rows that can survive WHERE). placed reports the conjuncts now
// enforced below, which WHERE need not check again over the joined rows
// (where the general evaluator would compare column with column per row).
func PushDown(src Node, where sql.Expr) (placed []bool) {
	if where == nil {
		return nil
	}
	conj := whereConjuncts(where)
	placed = make([]bool, len(conj))
	for i, c := range conj {
		parts := factorOr(c)
		for _, f := range parts {
			if !HasSubquery(f) && !HasVolatile(f) && PlaceConjunct(src, f) {
				// A conjunct a join or a side's filter now enforces need
				// not be evaluated again over the joined rows. One that
				// reads the enclosing row stays: a subquery run once
				// (keyed, or as a join) takes its correlation from WHERE.
				placed[i] = len(parts) == 1 && !readsOuter(c)
			}
		}
	}
	return placed
}

// whereConjuncts are WHERE's top-level AND arguments, as PushDown numbers them.
func whereConjuncts(where sql.Expr) []sql.Expr {
	if l, ok := where.(*sql.Logic); ok && l.And {
		return l.Args
	}
	return []sql.Expr{where}
}

// withoutPlaced is where without the conjuncts PushDown placed (placed
// numbers where's conjuncts, from a binding of the same WHERE); nil when
// none is left.
func withoutPlaced(where sql.Expr, placed []bool) sql.Expr {
	conj := whereConjuncts(where)
	if where == nil || len(conj) != len(placed) {
		return where
	}
	var kept []sql.Expr
	for i, c := range conj {
		if !placed[i] {
			kept = append(kept, c)
		}
	}
	switch {
	case len(kept) == len(conj):
		return where
	case len(kept) == 0:
		return nil
	}
	return AndOf(kept)
}

// PlaceConjunct attaches c (over s's scope) to the lowest join whose two
// sides it both reads (an inner join), or as a filter on the side it reads
// when rows that c rejects there cannot reach the output otherwise: either
// side of an inner join, the preserved side of a LEFT or RIGHT join. A NULL
// extended row of the other side may pass a conjunct that rejected every
// row it stands for (x IS NULL), so that side is never filtered.
func PlaceConjunct(s Node, c sql.Expr) bool {
	switch x := s.(type) {
	case *Using:
		return x.place(c)
	case *Lateral:
		return x.place(c)
	case *Derived:
		return x.place(c)
	case *Rename:
		return PlaceConjunct(x.Input, c)
	case *Pick:
		m := map[int]int{}
		for i, col := range x.Cols {
			m[i] = col
		}
		return PlaceConjunct(x.Input, sql.RemapColumns(c, m))
	}
	js, ok := s.(*Join)
	if !ok {
		return false
	}
	cols := map[int]bool{}
	sql.CollectColumns(c, cols)
	nl := len(js.Left.Scope().Columns)
	left, right := false, false
	for i := range cols {
		if i < nl {
			left = true
		} else {
			right = true
		}
	}
	switch {
	case left && right:
		if js.Kind != JoinInner {
			return false
		}
		if js.Cond == nil {
			js.SetCondition(c)
		} else {
			js.SetCondition(AndOf([]sql.Expr{js.Cond, c}))
		}
		js.restrictSides(c, nl)
		return true
	case left:
		if js.Kind == JoinRight || js.Kind == JoinFull {
			return false
		}
		if !PlaceConjunct(js.Left, c) {
			js.LFilter = AndAfter(js.LFilter, c)
		}
		return true
	case right:
		if js.Kind == JoinLeft || js.Kind == JoinFull {
			return false
		}
		shift := map[int]int{}
		for i := range cols {
			shift[i] = i - nl
		}
		rc := sql.RemapColumns(c, shift)
		if !PlaceConjunct(js.Right, rc) {
			js.RFilter = AndAfter(js.RFilter, rc)
		}
		return true
	}
	return false
}

// AndAfter is prev AND c (c alone when prev is nil): conjuncts keep WHERE's
// order, so one that guards another (x <> 0 AND 1/x > 1) still runs first.
func AndAfter(prev, c sql.Expr) sql.Expr {
	if prev == nil {
		return c
	}
	return AndOf([]sql.Expr{prev, c})
}

// HasVolatile reports a call whose value changes from one evaluation to the
// next: such a conjunct must be evaluated once per row, by WHERE alone.
func HasVolatile(e sql.Expr) bool {
	if f, ok := e.(*sql.Func); ok {
		switch f.Name {
		case "random", "setseed", "clock_timestamp", "timeofday", "gen_random_uuid", "nextval":
			return true
		}
	}
	for _, c := range sql.Children(e) {
		if c != nil && HasVolatile(c) {
			return true
		}
	}
	return false
}

// HasSubquery reports a subquery in e.
func HasSubquery(e sql.Expr) bool {
	if _, ok := e.(*sql.Subquery); ok {
		return true
	}
	for _, c := range sql.Children(e) {
		if c != nil && HasSubquery(c) {
			return true
		}
	}
	return false
}

// Conjuncts are the top-level conjuncts of e: e itself unless it is an AND.
func Conjuncts(e sql.Expr) []sql.Expr {
	if l, ok := e.(*sql.Logic); ok && l.And {
		return l.Args
	}
	return []sql.Expr{e}
}

// markReread flags the table scans under n as read again per outer value
// (a correlated subquery's, a LATERAL subquery's).
func markReread(n Node) {
	switch s := n.(type) {
	case *Scan:
		s.Reread = true
	case *Pick:
		markReread(s.Input)
	case *Rename:
		markReread(s.Input)
	case *Using:
		markReread(s.Input)
	case *Filter:
		markReread(s.Input)
	case *Join:
		markReread(s.Left)
		markReread(s.Right)
	case *Derived:
		markReread(s.Query.From)
	case *SetOp:
		markSetReread(s.Root)
	}
}

func markSetReread(t *SetTree) {
	if t.Leaf != nil {
		markReread(t.Leaf.From)
		return
	}
	markSetReread(t.Left)
	markSetReread(t.Right)
}

// restrictSides filters each side of an inner join by what condition c
// (an OR of ANDs over both sides) implies about that side alone.
func (js *Join) restrictSides(c sql.Expr, nl int) {
	left := orRestriction(c, func(cols map[int]bool) bool {
		for i := range cols {
			if i >= nl {
				return false
			}
		}
		return true
	})
	if left != nil && !PlaceConjunct(js.Left, left) {
		js.LFilter = AndAfter(js.LFilter, left)
	}
	right := orRestriction(c, func(cols map[int]bool) bool {
		for i := range cols {
			if i < nl {
				return false
			}
		}
		return true
	})
	if right != nil {
		rc := shiftColumns(right, nl)
		if !PlaceConjunct(js.Right, rc) {
			js.RFilter = AndAfter(js.RFilter, rc)
		}
	}
}

// place puts c (over the USING join's scope) into the join below, its
// merged columns read as the join column each equals.
func (u *Using) place(c sql.Expr) bool {
	cols := map[int]bool{}
	sql.CollectColumns(c, cols)
	n := len(u.Merged)
	m := make(map[int]int, len(cols))
	for i := range cols {
		switch {
		case i >= n:
			m[i] = i - n
		case u.Same[i] >= 0:
			m[i] = u.Same[i]
		default:
			return false
		}
	}
	return PlaceConjunct(u.Input, sql.RemapColumns(c, m))
}

// place filters a LATERAL join's left side by c when c reads it alone:
// the subquery then runs only for the rows that can pass.
func (l *Lateral) place(c sql.Expr) bool {
	if readsOuter(c) {
		return false
	}
	cols := map[int]bool{}
	sql.CollectColumns(c, cols)
	nl := len(l.Left.Scope().Columns)
	for i := range cols {
		if i >= nl {
			return false
		}
	}
	if !PlaceConjunct(l.Left, c) {
		l.Left = withFilter(l.Left, c)
	}
	return true
}

// place adds c (over a derived table's columns) to the derived query's
// WHERE, read through its outputs, when each column c reads is an input
// column passed through and nothing between its WHERE and its outputs
// (grouping, windows, DISTINCT ON, LIMIT) could see the rows it drops.
func (d *Derived) place(c sql.Expr) bool {
	if readsOuter(c) {
		// Correlation stays in joins, where stripOuter finds it.
		return false
	}
	q := d.Query
	if q.Shared || q.Agg != nil || q.Win != nil || len(q.DistinctOn) > 0 || q.Limit != nil || q.Offset != nil || q.Having != nil {
		return false
	}
	cols := map[int]bool{}
	sql.CollectColumns(c, cols)
	for i := range cols {
		ref, ok := q.Outputs[i].(*sql.ColumnRef)
		if !ok || ref.T != d.Sc.Columns[i].T {
			return false
		}
	}
	inner := sql.MapColumns(c, func(x *sql.ColumnRef) sql.Expr {
		ref := *q.Outputs[x.Index].(*sql.ColumnRef)
		return &ref
	})
	q.Where = AndAfter(q.Where, inner)
	PlaceConjunct(q.From, inner)
	return true
}

// stripOuter takes out of the joins under n every conjunct that reads the
// enclosing query's row (a copy of its WHERE's correlation, which PushDown
// placed there): a subquery that runs once, keyed or as a join, has no
// enclosing row to read, and its WHERE's correlation is dealt with apart.
func stripOuter(n Node) {
	switch x := n.(type) {
	case *Join:
		stripOuter(x.Left)
		stripOuter(x.Right)
		x.LFilter, x.RFilter = withoutOuter(x.LFilter), withoutOuter(x.RFilter)
		if x.Cond != nil {
			if cond := withoutOuter(x.Cond); cond != x.Cond {
				x.SetCondition(cond)
			}
		}
	case *Pick:
		stripOuter(x.Input)
	case *Rename:
		stripOuter(x.Input)
	case *Using:
		stripOuter(x.Input)
	}
}

// withoutOuter is e's conjuncts that read no enclosing row (nil: none; e
// itself when it has none to drop).
func withoutOuter(e sql.Expr) sql.Expr {
	if e == nil || !readsOuter(e) {
		return e
	}
	var kept []sql.Expr
	for _, c := range Conjuncts(e) {
		if !readsOuter(c) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return AndOf(kept)
}
