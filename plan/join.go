package plan

import (
	"github.com/magmalake/magmalake/sql"
)

// JoinKind is which unmatched rows a join keeps.
type JoinKind uint8

const (
	JoinInner JoinKind = iota
	JoinLeft
	JoinRight
	JoinFull
	// JoinSemi keeps each left row that some right row matches, once;
	// JoinAnti each left row no right row matches (EXISTS, NOT EXISTS).
	// Their rows are null-extended on the right, which a Pick drops.
	JoinSemi
	JoinAnti
)

func (k JoinKind) String() string {
	return [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti"}[k]
}

// Join joins two relations; its rows are the left columns followed by the
// right ones.
type Join struct {
	Left, Right Node
	Kind        JoinKind
	Cond        sql.Expr // the whole condition over Sc; nil: every pair
	// LKeys and RKeys are Cond's equalities of a left expression and a
	// right one (over each side's scope), Domains the types they compare
	// in; Residual is what they leave to check, over Sc.
	LKeys, RKeys []sql.Expr
	Domains      []sql.Type
	Residual     sql.Expr
	// NotIn, on an anti join, is the test of x NOT IN (SELECT y ...)
	// (not_in.go): a left row is dropped when a right row of its group
	// (the rows its keys find; all of them without keys) has y = x, or
	// when the group has a row and x or one of its ys is NULL.
	NotIn *NotInTest
	// LFilter and RFilter are WHERE conjuncts that read only one side, over
	// that side's scope (PushDown): that side's rows are filtered before
	// they are joined (and its scan pruned by them), so a selective WHERE
	// on the build side shrinks the hash table and the joined rows. WHERE
	// still checks them on the joined rows.
	LFilter, RFilter sql.Expr
	// Skip marks the columns no one reads of the joined rows (set when a
	// projection picks the others): they are NULL-typed placeholders.
	Skip []bool
	Sc   *sql.Scope
}

// NewJoin is left joined with right, on no condition yet.
func NewJoin(left, right Node, kind JoinKind) *Join {
	return &Join{Left: left, Right: right, Kind: kind, Sc: ConcatScopes(left.Scope(), right.Scope())}
}

// SetCondition splits cond into equi-join keys and a residual.
func (j *Join) SetCondition(cond sql.Expr) {
	j.Cond, j.LKeys, j.RKeys, j.Domains, j.Residual = cond, nil, nil, nil, nil
	nl := len(j.Left.Scope().Columns)
	var rest []sql.Expr
	for _, c := range factored(cond) {
		if l, r, dom, ok := equiKey(c, nl); ok {
			j.LKeys, j.RKeys, j.Domains = append(j.LKeys, l), append(j.RKeys, r), append(j.Domains, dom)
			continue
		}
		rest = append(rest, c)
	}
	if len(rest) > 0 {
		j.Residual = AndOf(rest)
	}
}

// onSideFilters moves the conjuncts of an ON condition that read one side
// only into that side's filter where that changes no answer: the right
// side of an inner or LEFT join (a row it drops could only have been
// NULL-extended, which the left row is anyway), the left side of an inner
// or RIGHT join. TPC-H Q13's `o_comment NOT LIKE ...` then filters the
// orders before the join, not every joined pair.
func (j *Join) onSideFilters() {
	if j.Cond == nil {
		return
	}
	nl := len(j.Left.Scope().Columns)
	var kept []sql.Expr
	moved := false
	for _, c := range Conjuncts(j.Cond) {
		side := sides(c, nl)
		switch {
		case HasSubquery(c) || HasVolatile(c) || readsOuter(c):
		case side == 2 && (j.Kind == JoinInner || j.Kind == JoinLeft):
			j.RFilter, moved = AndAfter(j.RFilter, shiftColumns(c, nl)), true
			continue
		case side == 1 && (j.Kind == JoinInner || j.Kind == JoinRight):
			j.LFilter, moved = AndAfter(j.LFilter, c), true
			continue
		}
		kept = append(kept, c)
	}
	if !moved {
		return
	}
	if len(kept) == 0 {
		j.Cond, j.LKeys, j.RKeys, j.Domains, j.Residual = nil, nil, nil, nil, nil
		return
	}
	j.SetCondition(AndOf(kept))
}

// equiKey recognises l = r with l reading only left columns and r only
// right ones (either way round); r comes back renumbered for the right side.
func equiKey(e sql.Expr, nl int) (l, r sql.Expr, dom sql.Type, ok bool) {
	c, isCmp := e.(*sql.Compare)
	if !isCmp || c.Op != sql.OpEQ {
		return nil, nil, sql.Type{}, false
	}
	a, b := c.L, c.R
	switch {
	case sides(a, nl) == 1 && sides(b, nl) == 2:
	case sides(a, nl) == 2 && sides(b, nl) == 1:
		a, b = b, a
	default:
		return nil, nil, sql.Type{}, false
	}
	if HasSubquery(a) || HasSubquery(b) {
		return nil, nil, sql.Type{}, false
	}
	return a, shiftColumns(b, nl), c.Domain, true
}

// sides says which sides of a join whose left has nl columns x reads: 1
// left, 2 right, 3 both, 0 none.
func sides(x sql.Expr, nl int) int {
	cols := map[int]bool{}
	sql.CollectColumns(x, cols)
	s := 0
	for i := range cols {
		if i < nl {
			s |= 1
		} else {
			s |= 2
		}
	}
	return s
}

// shiftColumns renumbers e, over a join's columns, for its right side.
func shiftColumns(e sql.Expr, nl int) sql.Expr {
	cols := map[int]bool{}
	sql.CollectColumns(e, cols)
	shift := map[int]int{}
	for i := range cols {
		shift[i] = i - nl
	}
	return sql.RemapColumns(e, shift)
}

func (j *Join) Scope() *sql.Scope { return j.Sc }

// BuildLeft reports whether the left side, after its filter, is estimated
// smaller than the right: an inner join holds that side in its hash table.
func (j *Join) BuildLeft() bool {
	l := EstimateRows(j.Left) * Selectivity(j.LFilter)
	r := EstimateRows(j.Right) * Selectivity(j.RFilter)
	return l < r
}

// Project keeps cols of the join, pruning each side to what cols and the
// condition read.
func (j *Join) Project(cols []int) Node {
	nl := len(j.Left.Scope().Columns)
	need := map[int]bool{}
	for _, c := range cols {
		need[c] = true
	}
	if j.Cond != nil {
		sql.CollectColumns(j.Cond, need)
	}
	if j.NotIn != nil {
		sql.CollectColumns(j.NotIn.L, need)
		rneed := map[int]bool{}
		sql.CollectColumns(j.NotIn.R, rneed)
		for i := range rneed {
			need[i+nl] = true
		}
	}
	if j.LFilter != nil {
		sql.CollectColumns(j.LFilter, need)
	}
	if j.RFilter != nil {
		rneed := map[int]bool{}
		sql.CollectColumns(j.RFilter, rneed)
		for i := range rneed {
			need[i+nl] = true
		}
	}
	var lcols, rcols []int
	remap := map[int]int{}
	for i := range j.Sc.Columns {
		if !need[i] {
			continue
		}
		if i < nl {
			remap[i] = len(lcols)
			lcols = append(lcols, i)
		} else {
			rcols = append(rcols, i-nl)
		}
	}
	for k, i := range rcols {
		remap[i+nl] = len(lcols) + k
	}
	pj := NewJoin(j.Left.Project(lcols), j.Right.Project(rcols), j.Kind)
	if j.Cond != nil {
		pj.SetCondition(sql.RemapColumns(j.Cond, remap))
	}
	if j.LFilter != nil {
		pj.LFilter = sql.RemapColumns(j.LFilter, remap)
	}
	shift := map[int]int{}
	for k, i := range rcols {
		shift[i] = k
	}
	if j.RFilter != nil {
		pj.RFilter = sql.RemapColumns(j.RFilter, shift)
	}
	if j.NotIn != nil {
		pj.NotIn = &NotInTest{L: sql.RemapColumns(j.NotIn.L, remap), R: sql.RemapColumns(j.NotIn.R, shift), Domain: j.NotIn.Domain}
	}
	out := make([]int, len(cols))
	identity := len(cols) == len(pj.Sc.Columns)
	for i, c := range cols {
		out[i] = remap[c]
		identity = identity && out[i] == i
	}
	if identity {
		return pj
	}
	// Columns read only by the hash keys or a side's filter are read by
	// the sides but not wanted of the joined rows: assemble leaves them
	// out (the pick drops them).
	wanted := map[int]bool{}
	for _, i := range out {
		wanted[i] = true
	}
	if pj.Residual != nil {
		sql.CollectColumns(pj.Residual, wanted)
	}
	pj.Skip = make([]bool, len(pj.Sc.Columns))
	for i := range pj.Skip {
		pj.Skip[i] = !wanted[i]
	}
	return NewPick(pj, out)
}

// ConcatScopes is the scope of l's columns followed by r's.
func ConcatScopes(l, r *sql.Scope) *sql.Scope {
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

// Using is a join with USING or NATURAL: the merged columns first, then
// the join's.
type Using struct {
	Input  Node
	Merged []sql.Expr // over Input's scope
	// Same is, per merged column, the column of Input it equals on every
	// row (-1: none), through which a condition on it reaches the join.
	Same []int
	Sc   *sql.Scope
}

func (u *Using) Scope() *sql.Scope { return u.Sc }

func (u *Using) Project(cols []int) Node { return NewPick(u, cols) }

// Lateral is a join with a LATERAL subquery: the subquery runs for each
// distinct value of the left columns it reads, and its rows join the left
// row they ran for.
type Lateral struct {
	Left  Node
	Right *Query
	Refs  []sql.Expr // the left values the subquery reads, over left's scope
	Kind  JoinKind   // inner or left
	Cond  sql.Expr   // ON, over Sc; nil: every pair
	Sc    *sql.Scope
}

func (l *Lateral) Scope() *sql.Scope { return l.Sc }

func (l *Lateral) Project(cols []int) Node { return NewPick(l, cols) }
