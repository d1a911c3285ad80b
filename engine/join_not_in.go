package engine

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// An anti join with a NOT IN test (plan.Join.NotIn) hashes the right side
// on its group keys followed by the test (the test is the last key pair,
// notInKeys), and knows besides which groups hold a row and which hold a
// row whose test value is NULL: a left row is dropped when its group has a
// row and its own test value or one of the group's is NULL, or when the
// hash finds its (keys, value). It always probes with the left side. Past
// work_mem it partitions both sides by the group keys, so each group is
// whole in one partition; without group keys by the value, the build
// side's row count and NULLs counted over all partitions (graceBatches).

// notInKeys is j with its NOT IN test appended to its key pairs (j itself
// without one).
func notInKeys(j *plan.Join) *plan.Join {
	if j.NotIn == nil {
		return j
	}
	c := *j
	c.LKeys = append(slices.Clip(j.LKeys), j.NotIn.L)
	c.RKeys = append(slices.Clip(j.RKeys), j.NotIn.R)
	c.Domains = append(slices.Clip(j.Domains), j.NotIn.Domain)
	return &c
}

// notInGroups is what a NOT IN anti join knows of its build side beside
// the hash of (keys, value).
type notInGroups struct {
	// groups indexes the build rows by the group keys alone (nil when the
	// test has none: one group of every row).
	groups *joinTable
	kind   joinKeyKind
	// nullIn marks, by each group's first build row, a group holding a
	// NULL test value.
	nullIn []bool
	// Without group keys: the build side has a row, and one whose test
	// value is NULL.
	rows, nulls bool
}

// notInAll is what partitioning found of a NOT IN build side without
// group keys: it has rows (none of them NULL, or no partition is joined).
type notInAll struct{ rows bool }

// indexNotIn reads the groups of the build rows (r.rows, nil for none).
func (r *joinRun) indexNotIn(ctx context.Context) error {
	g := &notInGroups{}
	r.notIn = g
	if r.rows == nil {
		return nil
	}
	pk, bk := r.keys()
	n := len(bk) - 1
	test, err := sql.Eval(ctx, bk[n], r.rows, r.params)
	if err != nil {
		return err
	}
	defer test.Release()
	if n == 0 {
		g.rows, g.nulls = true, test.NullN() > 0
		return nil
	}
	g.kind = joinKeyKindOf(pk[:n], bk[:n], r.j.Domains[:n])
	if g.groups, err = r.index(ctx, bk[:n], g.kind); err != nil {
		return err
	}
	if test.NullN() == 0 {
		return nil
	}
	keys, err := r.batchKeys(ctx, r.rows, bk[:n], g.kind)
	if err != nil {
		return err
	}
	g.nullIn = make([]bool, r.rows.NumRows())
	for i := range g.nullIn {
		if test.IsNull(i) && (keys.null == nil || !keys.null[i]) {
			g.nullIn[g.groups.head(keys, i)] = true
		}
	}
	return nil
}

// notInDropped marks in dropped the rows of probe batch b that NULLs drop:
// their group has a row, and their test value or one of the group's is
// NULL.
func (r *joinRun) notInDropped(ctx context.Context, b arrow.RecordBatch, dropped []bool) error {
	g := r.notIn
	pk, _ := r.keys()
	n := len(pk) - 1
	if n == 0 && !g.rows && (r.notInAll == nil || !r.notInAll.rows) {
		return nil // NOT IN over no rows: true
	}
	test, err := sql.Eval(ctx, pk[n], b, r.params)
	if err != nil {
		return err
	}
	defer test.Release()
	if n == 0 {
		for i := range dropped {
			dropped[i] = g.nulls || test.IsNull(i)
		}
		return nil
	}
	if g.groups == nil {
		return nil // no build rows: every group is empty
	}
	keys, err := r.batchKeys(ctx, b, pk[:n], g.kind)
	if err != nil {
		return err
	}
	for i := range dropped {
		if keys.null != nil && keys.null[i] {
			continue // a NULL key finds no group
		}
		if h := g.groups.head(keys, i); h >= 0 && (test.IsNull(i) || g.nullIn != nil && g.nullIn[h]) {
			dropped[i] = true
		}
	}
	return nil
}

// notInPartitionKeys are the keys a NOT IN anti join partitions its sides
// by past work_mem: the group keys, or the test without them.
func (r *joinRun) notInPartitionKeys() (probe, build []sql.Expr) {
	pk, bk := r.keys()
	if len(pk) == 1 {
		return pk, bk
	}
	return pk[:len(pk)-1], bk[:len(bk)-1]
}
