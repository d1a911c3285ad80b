package engine

import (
	"context"
	"iter"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// A correlated subquery runs once per distinct outer value; its table
// scans read the same files every time, so a statement keeps what they
// read (up to work_mem) and serves later runs from memory.

type scanCacheKey struct{}

type scanCache struct {
	mu    sync.Mutex // DML evaluates subqueries on several files at once
	mem   *memBudget
	scans map[*tableSource][]arrow.RecordBatch
	full  bool // work_mem reached: scan as usual from now on
	// keyed are the rows of the statement's keyed subqueries: a plan
	// runs again for later executions, each reading its own.
	keyed map[*keyedSubPlan]*keyedRows
	// ctes are the rows of the statement's shared WITH queries.
	ctes map[*plan.Query]*cteRows
}

func withScanCache(ctx context.Context, workMem int64) context.Context {
	return context.WithValue(ctx, scanCacheKey{}, &scanCache{mem: newMemBudget(ctx, workMem), scans: map[*tableSource][]arrow.RecordBatch{},
		keyed: map[*keyedSubPlan]*keyedRows{}, ctes: map[*plan.Query]*cteRows{}})
}

// keyedRowsOf is k's rows for the statement of ctx; the plan's own when
// ctx carries no statement.
func keyedRowsOf(ctx context.Context, k *keyedSubPlan) *keyedRows {
	c, _ := ctx.Value(scanCacheKey{}).(*scanCache)
	if c == nil {
		return &k.own
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.keyed[k]
	if !ok {
		r = &keyedRows{}
		c.keyed[k] = r
	}
	return r
}

// cachedBatches serves a reused scan from the statement's cache, reading
// it first if needed; ok is false when the cache cannot serve it.
func (t *tableSource) cachedBatches(ctx context.Context, filter iceberg.BooleanExpression) (iter.Seq2[arrow.RecordBatch, error], bool, error) {
	c, _ := ctx.Value(scanCacheKey{}).(*scanCache)
	if c == nil || !t.reuse {
		return nil, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return nil, false, nil
	}
	if held, ok := c.scans[t]; ok {
		return replay(held), true, nil
	}
	seq, err := t.scan(ctx, nil)
	if err != nil {
		return nil, false, err
	}
	var held []arrow.RecordBatch
	var heldBytes int64
	for b, err := range seq {
		if err != nil {
			ReleaseAll(held)
			c.mem.release(heldBytes)
			return nil, false, err
		}
		// Past work_mem, or when the server's memory is short, the
		// scans go on reading the files rather than wait for memory.
		size := BatchBytes(b)
		if !c.mem.fits(size) {
			b.Release()
			ReleaseAll(held)
			c.mem.release(heldBytes)
			c.full = true
			return nil, false, nil
		}
		c.mem.hold(size)
		heldBytes += size
		held = append(held, b)
	}
	c.scans[t] = held
	return replay(held), true, nil
}

// replay yields held batches, each retained for the consumer.
func replay(held []arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range held {
			b.Retain()
			if !yield(b, nil) {
				return
			}
		}
	}
}

// statementContext carries a statement's values (sql's, and its scan
// cache) to the context of a later call on its rows.
func statementContext(stmt, next context.Context) context.Context {
	next = sql.StatementContext(stmt, next)
	if c, ok := stmt.Value(scanCacheKey{}).(*scanCache); ok {
		next = context.WithValue(next, scanCacheKey{}, c)
	}
	if a := analysisOf(stmt); a != nil {
		next = withAnalysis(next, a)
	}
	if a := memAccountOf(stmt); a != nil {
		next = WithMemAccount(next, a)
	}
	if s := memScopeOf(stmt); s != nil {
		next = context.WithValue(next, memScopeKey{}, s)
	}
	return next
}

// WithStatement prepares ctx for one statement's evaluation of
// expressions that hold subqueries (DML's WHERE and SET): their results and
// the scans of correlated ones are kept for the statement.
func WithStatement(ctx context.Context, env *Env) context.Context {
	return withScanCache(sql.WithSubqueryCache(ctx), env.Options.WorkMem)
}

// SubqueryPlanner plans the subqueries of a statement that is not a query
// (DML's WHERE, SET and RETURNING) with this engine, with the statement's
// WITH queries (nil: none) in scope.
func SubqueryPlanner(ctx context.Context, env *Env, params *sql.Params, with *sql.With) (sql.SubqueryPlanner, error) {
	env.Binds.add()
	b := plan.NewBuilder(ctx, env.PlanEnv(), params)
	if with != nil {
		if err := b.PushWith(with); err != nil {
			return nil, err
		}
	}
	return &subqueryCompiler{b: b, c: newCompiler(env)}, nil
}

// subqueryCompiler plans each subquery with the builder and compiles it
// (and those nested in it) at once: the statement has no query to compile
// them with.
type subqueryCompiler struct {
	b *plan.Builder
	c *compiler
}

func (s *subqueryCompiler) PlanSubquery(q *sql.Query, outer *sql.Outer) (sql.SubPlan, error) {
	sp, err := s.b.PlanSubquery(q, outer)
	if err != nil {
		return nil, err
	}
	s.c.subqueries(s.b.Subqueries())
	return sp, nil
}
