package plan

import (
	"math/bits"

	"github.com/magmalake/magmalake/sql"
)

// Join ordering: a tree of inner joins is a set of relations and the
// conditions between them, whatever order FROM wrote them in. The order
// that builds the smallest intermediate results is found by dynamic
// programming over subsets of the relations (every split of every subset,
// so bushy trees too) up to maxExhaustive relations, and greedily beyond:
// repeatedly join the two trees whose join is estimated smallest. A cross
// product is considered only where no condition connects the relations.

// maxExhaustive bounds the exhaustive search, which weighs 3^n splits.
const maxExhaustive = 12

// maxRelations bounds the relations a region may have to be reordered
// (subsets are bit sets).
const maxRelations = 64

// region is a tree of inner joins taken apart: its relations (leaves, in
// the tree's column order) and its conditions over the region's columns.
type region struct {
	leaves []regionLeaf
	conds  []regionCond
	// counts gives what a scan's table tells of its columns' distinct
	// values (nil: nothing known).
	counts func(*Scan) ColumnCounts
}

// ColumnCounts is what a table tells of its columns' distinct values, by
// field id: the integer bounds its files record (a column holds at most
// hi-lo+1 values) and the distinct counts ANALYZE's sketches estimated.
type ColumnCounts struct {
	Ranges map[int][2]int64
	NDV    map[int]int64
}

type regionLeaf struct {
	node          Node
	offset, width int     // its columns in the region's
	rows          float64 // estimated, after its filters
	base          float64 // estimated, before them
}

// regionCond is one conjunct of the region's conditions and the
// relations it reads; key marks an equality of one relation's expression
// with another's (an equi-join key between two relations).
type regionCond struct {
	e    sql.Expr
	mask uint64
	key  bool
	// sel is the condition's selectivity, set by estimate.
	sel float64
}

// ReorderJoins puts each tree of inner joins in n (n itself, or inside an
// outer join) in the order of least estimated work. n's columns keep their
// order: a Pick over a reordered tree restores it, so expressions bound
// over n stay valid.
func ReorderJoins(n Node, counts func(*Scan) ColumnCounts) Node {
	if u, ok := n.(*Using); ok {
		u.Input = ReorderJoins(u.Input, counts)
		return u
	}
	j, ok := n.(*Join)
	if !ok {
		return n
	}
	if j.Kind != JoinInner {
		j.Left, j.Right = ReorderJoins(j.Left, counts), ReorderJoins(j.Right, counts)
		return j
	}
	r := &region{counts: counts}
	if !r.flatten(j, 0) || len(r.leaves) < 3 || len(r.leaves) > maxRelations {
		return n
	}
	for i := range r.leaves {
		r.leaves[i].node = ReorderJoins(r.leaves[i].node, counts)
	}
	r.restrictLeaves()
	r.estimate()
	var best *joinTree
	if len(r.leaves) <= maxExhaustive {
		best = r.exhaustive()
	} else {
		best = r.greedyOrFrom()
	}
	top, cols := r.build(best, true)
	perm := make([]int, len(cols))
	identity := true
	for pos, c := range cols {
		perm[c] = pos
		identity = identity && c == pos
	}
	if identity {
		return top
	}
	return NewPick(top, perm)
}

// flatten collects the relations and conditions of the inner joins at n;
// false when a condition must stay where it is (it holds a subquery or a
// volatile call, whose evaluations a new order would change).
func (r *region) flatten(n Node, offset int) bool {
	j, ok := n.(*Join)
	if !ok || j.Kind != JoinInner || j.Skip != nil {
		r.leaves = append(r.leaves, regionLeaf{node: n, offset: offset, width: len(n.Scope().Columns)})
		return true
	}
	nl := len(j.Left.Scope().Columns)
	if !r.flatten(j.Left, offset) || !r.flatten(j.Right, offset+nl) {
		return false
	}
	for _, part := range []struct {
		e   sql.Expr
		off int
	}{{j.Cond, offset}, {j.LFilter, offset}, {j.RFilter, offset + nl}} {
		if part.e == nil {
			continue
		}
		for _, c := range factored(part.e) {
			if HasSubquery(c) || HasVolatile(c) {
				return false
			}
			r.conds = append(r.conds, r.cond(shiftColumnsBy(c, part.off)))
		}
	}
	return true
}

// restrictLeaves adds, for each OR of ANDs over several relations, what it
// implies about each of them alone (orRestriction), unless already there.
func (r *region) restrictLeaves() {
	for _, c := range r.conds {
		if bits.OnesCount64(c.mask) < 2 {
			continue
		}
		for i, l := range r.leaves {
			if c.mask&(1<<i) == 0 {
				continue
			}
			implied := orRestriction(c.e, func(cols map[int]bool) bool {
				for col := range cols {
					if col < l.offset || col >= l.offset+l.width {
						return false
					}
				}
				return true
			})
			if implied != nil && !r.has(implied) {
				r.conds = append(r.conds, r.cond(implied))
			}
		}
	}
}

// has reports a condition of the region with e's text and type.
func (r *region) has(e sql.Expr) bool {
	for _, c := range r.conds {
		if c.e.String() == e.String() && c.e.Type() == e.Type() {
			return true
		}
	}
	return false
}

// cond classifies a conjunct over the region's columns.
func (r *region) cond(e sql.Expr) regionCond {
	c := regionCond{e: e, mask: r.maskOf(e)}
	if cmp, ok := e.(*sql.Compare); ok && cmp.Op == sql.OpEQ && bits.OnesCount64(c.mask) == 2 {
		l, rt := r.maskOf(cmp.L), r.maskOf(cmp.R)
		c.key = bits.OnesCount64(l) == 1 && bits.OnesCount64(rt) == 1 && l != rt
	}
	return c
}

// maskOf is the set of relations e reads.
func (r *region) maskOf(e sql.Expr) uint64 {
	cols := map[int]bool{}
	sql.CollectColumns(e, cols)
	var m uint64
	for c := range cols {
		for i, l := range r.leaves {
			if c >= l.offset && c < l.offset+l.width {
				m |= 1 << i
			}
		}
	}
	return m
}

// shiftColumnsBy renumbers e's columns by off.
func shiftColumnsBy(e sql.Expr, off int) sql.Expr {
	if off == 0 {
		return e
	}
	cols := map[int]bool{}
	sql.CollectColumns(e, cols)
	m := make(map[int]int, len(cols))
	for c := range cols {
		m[c] = c + off
	}
	return sql.RemapColumns(e, m)
}

// estimate sizes each relation, after the conditions that read it alone.
func (r *region) estimate() {
	for i := range r.leaves {
		l := &r.leaves[i]
		l.base = max(EstimateRows(l.node), 1)
		l.rows = l.base
		for _, c := range r.conds {
			if c.mask == 1<<i {
				l.rows *= conjunctSelectivity(c.e)
			}
		}
		l.rows = max(l.rows, 1)
	}
	for i := range r.conds {
		c := &r.conds[i]
		if c.key {
			c.sel = 1 / r.keyDistinct(c.e.(*sql.Compare))
		} else {
			c.sel = conjunctSelectivity(c.e)
		}
	}
}

// rows estimates the join of the relations in set: their sizes times the
// selectivity of the conditions within it. An equi-join key counts once
// per pair of relations (a composite key is one key), its selectivity one
// over its distinct values (keyDistinct).
func (r *region) rows(set uint64) float64 {
	rows := 1.0
	for i, l := range r.leaves {
		if set&(1<<i) != 0 {
			rows *= l.rows
		}
	}
	keyed := map[uint64]bool{}
	for _, c := range r.conds {
		if bits.OnesCount64(c.mask) < 2 || c.mask&set != c.mask {
			continue
		}
		if !c.key {
			rows *= c.sel
			continue
		}
		if keyed[c.mask] {
			continue
		}
		keyed[c.mask] = true
		rows *= c.sel
	}
	return max(rows, 1)
}

// keyDistinct is the number of distinct values an equi-join key is taken
// to have: the larger side's distinct values, each side's counted as its
// relation's rows or, for an integer column, the span its files' bounds
// allow if smaller (c_nationkey = s_nationkey: 25 values, not a key of
// either table); at most the smaller relation's rows (a key joined to a
// foreign key).
func (r *region) keyDistinct(eq *sql.Compare) float64 {
	l, lbase := r.distinct(eq.L)
	rt, rbase := r.distinct(eq.R)
	return max(min(max(l, rt), min(lbase, rbase)), 1)
}

// distinct estimates e's distinct values over its relation, and the
// relation's rows before its filters.
func (r *region) distinct(e sql.Expr) (float64, float64) {
	m := r.maskOf(e)
	leaf := r.leaves[bits.TrailingZeros64(m)]
	n := leaf.base
	ref, ok := e.(*sql.ColumnRef)
	if !ok || r.counts == nil {
		return n, leaf.base
	}
	scan, ok := leaf.node.(*Scan)
	col := ref.Index - leaf.offset
	if !ok || col < 0 || col >= len(scan.Sc.Columns) || scan.Sc.Columns[col].FieldID == 0 {
		return n, leaf.base
	}
	counts, id := r.counts(scan), scan.Sc.Columns[col].FieldID
	if span, ok := counts.Ranges[id]; ok {
		n = min(n, float64(span[1]-span[0])+1)
	}
	if d, ok := counts.NDV[id]; ok && d > 0 {
		n = min(n, float64(d))
	}
	return n, leaf.base
}

// connected reports a condition between a and b.
func (r *region) connected(a, b uint64) bool {
	for _, c := range r.conds {
		if c.mask&a != 0 && c.mask&b != 0 && c.mask&^(a|b) == 0 {
			return true
		}
	}
	return false
}

// joinTree is a join order: a relation, or the join of two trees.
type joinTree struct {
	set         uint64
	leaf        int
	left, right *joinTree
	rows, cost  float64
}

func (r *region) join(a, b *joinTree, rows float64) *joinTree {
	return &joinTree{set: a.set | b.set, left: a, right: b, rows: rows, cost: a.cost + b.cost + rows}
}

func (r *region) leafTrees() []*joinTree {
	out := make([]*joinTree, len(r.leaves))
	for i, l := range r.leaves {
		out[i] = &joinTree{set: 1 << i, leaf: i, rows: l.rows}
	}
	return out
}

// exhaustive finds the cheapest tree (least total intermediate rows) over
// every split of every subset.
func (r *region) exhaustive() *joinTree {
	n := len(r.leaves)
	best := make([]*joinTree, 1<<n)
	// conn marks the sets a condition connects throughout: their trees
	// hold no cross product.
	conn := make([]bool, 1<<n)
	for i, t := range r.leafTrees() {
		best[1<<i], conn[1<<i] = t, true
	}
	for set := uint64(1); set < 1<<n; set++ {
		if bits.OnesCount64(set) < 2 {
			continue
		}
		rows := r.rows(set)
		for pass := 0; pass < 2 && best[set] == nil; pass++ {
			// First only joins of connected sets a condition connects;
			// a cross product only where the set has no such split.
			for a := (set - 1) & set; a > 0; a = (a - 1) & set {
				b := set &^ a
				if a < b || best[a] == nil || best[b] == nil || pass == 0 && !(conn[a] && conn[b] && r.connected(a, b)) {
					continue
				}
				if t := r.join(best[a], best[b], rows); best[set] == nil || t.cost < best[set].cost {
					best[set] = t
				}
			}
			conn[set] = pass == 0 && best[set] != nil
		}
	}
	return best[1<<n-1]
}

// greedy joins, while more than one tree is left, the two connected trees
// whose join is estimated smallest (any two when none is connected).
func (r *region) greedy() *joinTree {
	trees := r.leafTrees()
	for len(trees) > 1 {
		bi, bj, bestRows, bestConn := -1, -1, 0.0, false
		for i := range trees {
			for j := i + 1; j < len(trees); j++ {
				conn := r.connected(trees[i].set, trees[j].set)
				rows := r.rows(trees[i].set | trees[j].set)
				if bi < 0 || conn && !bestConn || conn == bestConn && rows < bestRows {
					bi, bj, bestRows, bestConn = i, j, rows, conn
				}
			}
		}
		t := r.join(trees[bi], trees[bj], bestRows)
		trees[bi] = t
		trees = append(trees[:bj], trees[bj+1:]...)
	}
	return trees[0]
}

// greedyOrFrom is the greedy order, or FROM's when that is cheaper and
// has no cross product: the heuristic never does worse than the query.
func (r *region) greedyOrFrom() *joinTree {
	g, from := r.greedy(), r.leftDeep()
	if from.cost < g.cost && r.crossProducts(from) == 0 {
		return from
	}
	return g
}

// leftDeep is the FROM order's tree, relation by relation.
func (r *region) leftDeep() *joinTree {
	trees := r.leafTrees()
	t := trees[0]
	for _, next := range trees[1:] {
		t = r.join(t, next, r.rows(t.set|next.set))
	}
	return t
}

// crossProducts counts the joins of t whose sides no condition connects.
func (r *region) crossProducts(t *joinTree) int {
	if t.left == nil {
		return 0
	}
	n := r.crossProducts(t.left) + r.crossProducts(t.right)
	if !r.connected(t.left.set, t.right.set) {
		n++
	}
	return n
}

// build makes the join tree t: each condition at the lowest join that
// reads all it reads, each relation's own conditions as its side's filter
// (top: conditions that read no relation go to the top join). It returns
// the node and the region columns it gives, in its order.
func (r *region) build(t *joinTree, top bool) (Node, []int) {
	if t.left == nil {
		l := r.leaves[t.leaf]
		cols := make([]int, l.width)
		for k := range cols {
			cols[k] = l.offset + k
		}
		return l.node, cols
	}
	a, b := t.left, t.right
	if a.rows < b.rows {
		// The smaller side is built into the hash table.
		a, b = b, a
	}
	ln, lcols := r.build(a, false)
	rn, rcols := r.build(b, false)
	j := NewJoin(ln, rn, JoinInner)
	cols := append(append([]int(nil), lcols...), rcols...)
	pos := make(map[int]int, len(cols))
	for k, c := range cols {
		pos[c] = k
	}
	var conds []sql.Expr
	for _, c := range r.conds {
		switch {
		case c.mask == 0 && top, c.mask&t.set == c.mask && c.mask&a.set != c.mask && c.mask&b.set != c.mask:
			conds = append(conds, sql.RemapColumns(c.e, pos))
		case a.left == nil && c.mask == a.set:
			j.LFilter = AndAfter(j.LFilter, r.onLeaf(c.e, a.leaf))
		case b.left == nil && c.mask == b.set:
			j.RFilter = AndAfter(j.RFilter, r.onLeaf(c.e, b.leaf))
		}
	}
	if len(conds) > 0 {
		j.SetCondition(AndOf(conds))
	}
	return j, cols
}

// onLeaf renumbers a condition over the region's columns for relation i.
func (r *region) onLeaf(e sql.Expr, i int) sql.Expr {
	return shiftColumnsBy(e, -r.leaves[i].offset)
}
