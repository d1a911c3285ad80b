package engine

import (
	"fmt"

	"github.com/magmalake/magmalake/plan"
)

// compiler turns a logical plan into the operators that run it. It makes
// no choice the plan has not made, apart from how each node executes (a
// hash join's build side is chosen when it runs, from the sides' sizes).
type compiler struct {
	env *Env
	// work maps a recursive query's working table to the one its
	// Recursive operator and the WorkRefs of its step share.
	work map[*plan.WorkTable]*workTable
	// nodes are the plan nodes the operators run, for EXPLAIN's estimates.
	nodes map[source]plan.Node
}

func newCompiler(env *Env) *compiler {
	return &compiler{env: env, work: map[*plan.WorkTable]*workTable{}, nodes: map[source]plan.Node{}}
}

// subqueries compiles the expression subqueries a builder planned, each
// into what runs it for the evaluator, and gives each its Exec.
func (c *compiler) subqueries(subs []*plan.Subquery) {
	for _, s := range subs {
		if s.Exec != nil {
			continue
		}
		sp := &subPlan{q: c.query(s.Query), env: c.env}
		if s.Keyed != nil {
			k := &keyedSubPlan{subPlan: sp, Keyed: s.Keyed, build: c.query(s.Keyed.Build)}
			if s.Keyed.Empty != nil {
				k.empty = c.query(s.Keyed.Empty)
			}
			s.Exec = k
			continue
		}
		s.Exec = sp
	}
}

// query compiles a query level.
func (c *compiler) query(q *plan.Query) *selectQuery {
	return &selectQuery{Query: q, src: c.source(q.From)}
}

// source compiles a relation.
func (c *compiler) source(n plan.Node) source {
	s := c.operator(n)
	c.nodes[s] = n
	return s
}

func (c *compiler) operator(n plan.Node) source {
	switch x := n.(type) {
	case *plan.Scan:
		return &tableSource{rt: x.Table, sc: x.Sc, cols: x.Columns, snapshotID: x.SnapshotID, reuse: x.Reread, manifests: c.env.Options.Manifests}
	case *plan.Rows:
		return &metaSource{sc: x.Sc, data: x.Data, cols: x.Cols}
	case plan.OneRow:
		return noSource{}
	case *plan.Files:
		return &fileSource{rel: x.Rel, cols: x.Cols, sc: x.Sc}
	case *plan.Series:
		return &seriesSource{args: x.Args, t: x.T, sc: x.Sc, env: c.env}
	case *plan.SRF:
		return &srfSource{input: c.source(x.Input), calls: x.Calls, sc: x.Sc, env: c.env}
	case *plan.Derived:
		return &derivedSource{q: c.query(x.Query), env: c.env, sc: x.Sc}
	case *plan.Pick:
		return &picked{src: c.source(x.Input), cols: x.Cols, sc: x.Sc}
	case *plan.Rename:
		return &rescoped{src: c.source(x.Input), sc: x.Sc}
	case *plan.Join:
		return &joinSource{Join: notInKeys(x), left: c.source(x.Left), right: c.source(x.Right), env: c.env}
	case *plan.Using:
		return &mergedSource{src: c.source(x.Input), merged: x.Merged, sc: x.Sc}
	case *plan.Lateral:
		return &lateralSource{left: c.source(x.Left), right: c.query(x.Right), refs: x.Refs, kind: x.Kind, cond: x.Cond, sc: x.Sc, env: c.env}
	case *plan.SetOp:
		return &setSource{root: c.setTree(x.Root), sc: x.Sc, env: c.env}
	case *plan.Recursive:
		return &recursiveSource{start: c.query(x.Start), step: c.query(x.Step), distinct: x.Distinct, work: c.workTable(x.Work), sc: x.Sc, env: c.env}
	case *plan.WorkRef:
		return &workSource{work: c.workTable(x.Work), sc: x.Sc}
	case *plan.Filter:
		return &filterSource{src: c.source(x.Input), cond: x.Cond}
	case *plan.Given:
		return &scopeOnly{sc: x.Sc}
	}
	panic(fmt.Sprintf("engine: no operator for plan node %T", n))
}

func (c *compiler) setTree(t *plan.SetTree) *setNode {
	if t.Leaf != nil {
		return &setNode{leaf: c.query(t.Leaf)}
	}
	return &setNode{op: t.Op, left: c.setTree(t.Left), right: c.setTree(t.Right)}
}

func (c *compiler) workTable(w *plan.WorkTable) *workTable {
	if wt, ok := c.work[w]; ok {
		return wt
	}
	wt := &workTable{sc: w.Sc}
	c.work[w] = wt
	return wt
}
