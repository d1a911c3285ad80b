package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// joinKind is which unmatched rows a join keeps.
type joinKind uint8

const (
	joinInner joinKind = iota
	joinLeft
	joinRight
	joinFull
)

func (k joinKind) String() string {
	return [...]string{"Inner", "Left", "Right", "Full"}[k]
}

// join plans a join of two FROM items.
func (p *planner) join(j *sql.FromJoin, outer *sql.Outer) (source, error) {
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
	js := &joinSource{left: left, right: right, kind: joinKindOf(j), env: p.env}
	js.sc = concatScopes(left.scope(), right.scope())
	using, err := usingNames(j, left.scope(), right.scope())
	if err != nil {
		return nil, err
	}
	switch {
	case j.On() != nil:
		cond, err := sql.BindCondition(j.On(), withOuter(js.sc, outer), p.params, "JOIN/ON")
		if err != nil {
			return nil, err
		}
		js.setCondition(cond)
	case using != nil:
		return p.usingJoin(js, using)
	}
	return js, nil
}

func joinKindOf(j *sql.FromJoin) joinKind {
	switch j.Kind() {
	case sql.JoinFull:
		return joinFull
	case sql.JoinLeft:
		return joinLeft
	case sql.JoinRight:
		return joinRight
	}
	return joinInner
}

func concatScopes(l, r *sql.Scope) *sql.Scope {
	sc := &sql.Scope{}
	sc.Columns = append(append(sc.Columns, l.Columns...), r.Columns...)
	for _, m := range []map[string]string{l.Aliased, r.Aliased} {
		for k, v := range m {
			if sc.Aliased == nil {
				sc.Aliased = map[string]string{}
			}
			sc.Aliased[k] = v
		}
	}
	return sc
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
func (p *planner) usingJoin(js *joinSource, names []string) (source, error) {
	ls, rs := js.left.scope(), js.right.scope()
	nl := len(ls.Columns)
	var conds, merged []sql.Expr
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
		lref := columnRef(js.sc, li)
		rref := columnRef(js.sc, nl+ri)
		eq, err := sql.BindEquality(lref, rref)
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
		first, second := sql.Expr(lref), sql.Expr(rref)
		if js.kind == joinRight {
			first, second = rref, lref
		}
		m, err := sql.BindCoalesce(first, second)
		if err != nil {
			return nil, err
		}
		merged = append(merged, m)
		mergedCols = append(mergedCols, sql.ScopeColumn{Name: name, T: m.Type()})
		hidden[li], hidden[nl+ri] = true, true
	}
	if len(conds) > 0 {
		js.setCondition(andOf(conds))
	}
	sc := &sql.Scope{Aliased: js.sc.Aliased, Columns: mergedCols}
	for i, c := range js.sc.Columns {
		c.Hidden = c.Hidden || hidden[i]
		sc.Columns = append(sc.Columns, c)
	}
	return &mergedSource{src: js, merged: merged, sc: sc}, nil
}

func columnRef(sc *sql.Scope, i int) *sql.ColumnRef {
	c := sc.Columns[i]
	return &sql.ColumnRef{Index: i, Table: c.Table, Name: c.Name, T: c.T, FieldID: c.FieldID}
}

// andOf is the conjunction of es, flattened: a join finds its hash keys
// among the top-level conjuncts.
func andOf(es []sql.Expr) sql.Expr {
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

// mergedSource is a USING join: the merged columns first, then the join's.
type mergedSource struct {
	src    source
	merged []sql.Expr // over src's scope
	sc     *sql.Scope
}

func (m *mergedSource) scope() *sql.Scope { return m.sc }

func (m *mergedSource) project(cols []int) source { return newPicked(m, cols) }

func (m *mergedSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	seq, err := m.src.batches(ctx, nil, params)
	if err != nil {
		return nil, err
	}
	return mapSeq(seq, func(b arrow.RecordBatch) (arrow.RecordBatch, error) {
		return m.withMerged(ctx, b, params)
	}), nil
}

func (m *mergedSource) withMerged(ctx context.Context, b arrow.RecordBatch, params []any) (arrow.RecordBatch, error) {
	var arrs []arrow.Array
	var fields []arrow.Field
	for i, e := range m.merged {
		a, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			for _, x := range arrs {
				x.Release()
			}
			return nil, err
		}
		arrs = append(arrs, a)
		fields = append(fields, arrow.Field{Name: m.sc.Columns[i].Name, Type: a.DataType(), Nullable: true})
	}
	for i, c := range b.Columns() {
		c.Retain()
		arrs = append(arrs, c)
		fields = append(fields, arrow.Field{Name: m.sc.Columns[len(m.merged)+i].Name, Type: c.DataType(), Nullable: true})
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, b.NumRows())
	for _, a := range arrs {
		a.Release()
	}
	return out, nil
}

// pushIntoJoins copies each conjunct of WHERE that relates the two sides of
// an inner join into that join's condition, so that FROM a, b WHERE a.k =
// b.k hashes on the key instead of filtering a cross product, and each
// conjunct that reads one side only into that side's filter, so the side is
// filtered before it is joined (the build side of a hash join then holds
// only rows that can survive WHERE). WHERE keeps the conjuncts: checking
// them twice changes nothing for the rows they let through.
func pushIntoJoins(src source, where sql.Expr) {
	if where == nil {
		return
	}
	conj := []sql.Expr{where}
	if l, ok := where.(*sql.Logic); ok && l.And {
		conj = l.Args
	}
	for _, c := range conj {
		if !hasSubquery(c) && !hasVolatile(c) {
			placeConjunct(src, c)
		}
	}
}

// placeConjunct attaches c (over s's scope) to the lowest join whose two
// sides it both reads (an inner join), or as a filter on the side it reads
// when rows that c rejects there cannot reach the output otherwise: either
// side of an inner join, the preserved side of a LEFT or RIGHT join. A NULL
// extended row of the other side may pass a conjunct that rejected every
// row it stands for (x IS NULL), so that side is never filtered.
func placeConjunct(s source, c sql.Expr) bool {
	js, ok := s.(*joinSource)
	if !ok {
		return false
	}
	cols := map[int]bool{}
	sql.CollectColumns(c, cols)
	nl := len(js.left.scope().Columns)
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
		if js.kind != joinInner {
			return false
		}
		if js.cond == nil {
			js.setCondition(c)
		} else {
			js.setCondition(andOf([]sql.Expr{js.cond, c}))
		}
		return true
	case left:
		if js.kind == joinRight || js.kind == joinFull {
			return false
		}
		if !placeConjunct(js.left, c) {
			js.lfilter = andAfter(js.lfilter, c)
		}
		return true
	case right:
		if js.kind == joinLeft || js.kind == joinFull {
			return false
		}
		shift := map[int]int{}
		for i := range cols {
			shift[i] = i - nl
		}
		rc := sql.RemapColumns(c, shift)
		if !placeConjunct(js.right, rc) {
			js.rfilter = andAfter(js.rfilter, rc)
		}
		return true
	}
	return false
}

// andAfter is prev AND c (c alone when prev is nil): conjuncts keep WHERE's
// order, so one that guards another (x <> 0 AND 1/x > 1) still runs first.
func andAfter(prev, c sql.Expr) sql.Expr {
	if prev == nil {
		return c
	}
	return andOf([]sql.Expr{prev, c})
}

// hasVolatile reports a call whose value changes from one evaluation to the
// next: such a conjunct must be evaluated once per row, by WHERE alone.
func hasVolatile(e sql.Expr) bool {
	if f, ok := e.(*sql.Func); ok {
		switch f.Name {
		case "random", "setseed", "clock_timestamp", "timeofday", "gen_random_uuid", "nextval":
			return true
		}
	}
	for _, c := range sql.Children(e) {
		if c != nil && hasVolatile(c) {
			return true
		}
	}
	return false
}
