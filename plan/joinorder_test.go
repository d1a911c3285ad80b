package plan

import (
	"fmt"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/magmalake/magmalake/sql"
)

// rowsLeaf is a relation of n rows and two int columns, qualified by name.
func rowsLeaf(name string, n int64) *Rows {
	b := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, n)
	sc := &sql.Scope{Columns: []sql.ScopeColumn{{Table: name, Name: "id", T: sql.Int64}, {Table: name, Name: "k", T: sql.Int64}}}
	return &Rows{Sc: sc, Data: []arrow.RecordBatch{b}, Cols: []int{0, 0}}
}

func colRef(i int) *sql.ColumnRef { return &sql.ColumnRef{Index: i, T: sql.Int64} }

func eq(l, r int) sql.Expr {
	return &sql.Compare{Op: sql.OpEQ, L: colRef(l), R: colRef(r), Domain: sql.Int64}
}

// randomRegion is a region of n relations of random sizes connected by a
// random tree of key conditions (relation i's k = relation j's id) and a
// few extra ones.
func randomRegion(rng *rand.Rand, n int) *region {
	r := &region{}
	for i := 0; i < n; i++ {
		r.leaves = append(r.leaves, regionLeaf{node: rowsLeaf(fmt.Sprintf("t%d", i), int64(1+rng.Intn(100000))), offset: 2 * i, width: 2})
	}
	for i := 1; i < n; i++ {
		j := rng.Intn(i)
		r.conds = append(r.conds, r.cond(eq(2*i+1, 2*j)))
	}
	for e := rng.Intn(3); e > 0; e-- {
		i, j := rng.Intn(n), rng.Intn(n)
		if i != j {
			r.conds = append(r.conds, r.cond(eq(2*i+1, 2*j+1)))
		}
	}
	r.estimate()
	return r
}

// TestJoinOrderSearch: on random connected join graphs of 3 to 16
// relations, both searches join every relation once, never through a
// cross product, and at most at the cost (intermediate rows) of joining
// in FROM order (when that has no cross product); the exhaustive search is
// never worse than the greedy one.
func TestJoinOrderSearch(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 300; trial++ {
		n := 3 + rng.Intn(14)
		r := randomRegion(rng, n)
		all := uint64(1)<<n - 1
		greedy := r.greedyOrFrom()
		searches := []*joinTree{greedy}
		if n <= maxExhaustive {
			best := r.exhaustive()
			if best.cost > greedy.cost*(1+1e-9) {
				t.Fatalf("%d relations: exhaustive cost %g above greedy's %g", n, best.cost, greedy.cost)
			}
			searches = append(searches, best)
		}
		for _, tree := range searches {
			if tree.set != all || countLeaves(tree) != n {
				t.Fatalf("%d relations: the tree joins %b in %d leaves", n, tree.set, countLeaves(tree))
			}
			if c := r.crossProducts(tree); c != 0 {
				t.Fatalf("%d relations: %d cross products", n, c)
			}
		}
		for _, best := range searches {
			if best.cost > r.leftDeep().cost*(1+1e-9) && r.crossProducts(r.leftDeep()) == 0 {
				t.Fatalf("%d relations: cost %g above FROM order's %g", n, best.cost, r.leftDeep().cost)
			}
		}
	}
}

func countLeaves(t *joinTree) int {
	if t.left == nil {
		return 1
	}
	return countLeaves(t.left) + countLeaves(t.right)
}

// TestJoinOrderBuildKeepsColumns: the rebuilt tree places every condition
// once — at a join, or as a side's filter — and the Pick over it gives the
// region's columns in their original order.
func TestJoinOrderBuildKeepsColumns(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 100; trial++ {
		n := 3 + rng.Intn(8)
		r := randomRegion(rng, n)
		r.conds = append(r.conds, r.cond(&sql.Compare{Op: sql.OpLT, L: colRef(0), R: &sql.Const{Value: int64(5), T: sql.Int64}}))
		top, cols := r.build(r.exhaustive(), true)
		if len(cols) != 2*n || bits.OnesCount64(r.maskOf(colRef(0))) != 1 {
			t.Fatalf("%d columns", len(cols))
		}
		placed := 0
		var walk func(Node)
		walk = func(nd Node) {
			j, ok := nd.(*Join)
			if !ok {
				return
			}
			placed += len(Conjuncts(j.Cond)) * b2i(j.Cond != nil)
			placed += len(Conjuncts(j.LFilter))*b2i(j.LFilter != nil) + len(Conjuncts(j.RFilter))*b2i(j.RFilter != nil)
			walk(j.Left)
			walk(j.Right)
		}
		walk(top)
		if placed != len(r.conds) {
			t.Fatalf("%d conditions placed, the region has %d", placed, len(r.conds))
		}
		seen := map[int]bool{}
		for _, c := range cols {
			if seen[c] || c < 0 || c >= 2*n {
				t.Fatalf("columns %v", cols)
			}
			seen[c] = true
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
