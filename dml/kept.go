package dml

import (
	"context"
	"sync"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// kept is a statement's plan bound at Prepare, for its first execution:
// that execution runs it while what binding read is current
// (engine.Deps: the names it resolved, the session's generation), so a
// statement sent as a simple query is bound once, not at Prepare and again
// at Execute. Later executions bind again: a plan serves one run (a run
// may leave state in it), and the statements re-executed most, INSERTs,
// keep their own (targetMemo).
type kept[P any] struct {
	build func(context.Context, session) (P, error)
	mu    sync.Mutex
	plan  P
	deps  *engine.Deps // nil: nothing kept
}

// keep binds a statement now and keeps the plan for its first execution.
func keep[P any](ctx context.Context, s session, build func(context.Context, session) (P, error)) (*kept[P], P, error) {
	k := &kept[P]{build: build}
	deps := engine.NewDeps(s.QueryEnv())
	p, err := build(ctx, session{recordingPort{Port: s.Port, deps: deps}})
	deps.Seal()
	if err != nil {
		return nil, p, err
	}
	k.plan, k.deps = p, deps
	return k, p, nil
}

// take is the plan for an execution on s: the kept one when it is still
// current, else the statement bound again.
func (k *kept[P]) take(ctx context.Context, s session) (P, error) {
	k.mu.Lock()
	p, deps := k.plan, k.deps
	var zero P
	k.plan, k.deps = zero, nil
	k.mu.Unlock()
	if deps != nil {
		ok, err := deps.Current(ctx)
		if err != nil {
			return zero, err
		}
		if ok {
			return p, nil
		}
	}
	return k.build(ctx, s)
}

// recordingPort records in deps what binding resolves through it: the
// target's name and, through its query engine, the names of subqueries
// and sources.
type recordingPort struct {
	Port
	deps *engine.Deps
}

func (p recordingPort) ResolveTable(ctx context.Context, n sql.TableName, reads bool) (*plan.Table, error) {
	rt, err := p.Port.ResolveTable(ctx, n, reads)
	inner, again := p.Port, engine.ResolvedName(n, rt)
	p.deps.Record(rt, err, func(ctx context.Context) (*plan.Table, error) { return inner.ResolveTable(ctx, again, reads) })
	return rt, err
}

func (p recordingPort) QueryEnv() *engine.Env { return p.Port.QueryEnv().Recording(p.deps) }
