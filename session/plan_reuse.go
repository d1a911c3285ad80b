package session

import (
	"context"
	"sync"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// A prepared query keeps the plan Prepare bound and runs it again while
// what binding read is unchanged, as PostgreSQL's plan cache does: the
// session itself changed nothing since (planGen: no SET, DDL, write or
// transaction statement of this session ran), and every name it resolved
// still denotes the same table metadata and view text (engine.Deps, which
// sees other sessions' and servers' commits). Otherwise it binds again,
// once. A commit anywhere gives its table a new metadata file, so a plan
// that is current reads the snapshot a new binding would.

// queryPlan is a SELECT bound at Prepare, kept between its executions.
type queryPlan struct {
	st     *sql.Select
	params *sql.Params
	cols   []stmt.Column
	// anyColumns lets a query bound again change its columns: no row
	// description was sent for them (CREATE TABLE AS).
	anyColumns bool

	mu   sync.Mutex
	q    *engine.Query // the plan last bound
	busy int           // runs of q whose rows are still open
}

// planQuery binds st for Prepare.
func (s *Session) planQuery(ctx context.Context, st *sql.Select, params *sql.Params) (*queryPlan, error) {
	q, err := engine.Plan(ctx, s.queryEnv(), st, params)
	if err != nil {
		return nil, err
	}
	return &queryPlan{st: st, params: params, cols: engine.ResultColumns(q.Columns()), q: q}, nil
}

// query is the plan to run now: the kept one while it is current, else st
// bound again. A kept plan whose rows are still being read (a suspended
// portal, a cursor) is left to them: plans hold per-run state, so this run
// binds its own. done ends the run's use of the plan.
func (p *queryPlan) query(ctx context.Context, s *Session) (q *engine.Query, done func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.q != nil && p.busy == 0 {
		ok, err := p.q.Current(ctx)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			return p.q, p.hold(), nil
		}
	}
	q, err = engine.Plan(ctx, s.queryEnv(), p.st, p.params)
	if err != nil {
		return nil, nil, err
	}
	if cols := engine.ResultColumns(q.Columns()); p.anyColumns {
		p.cols = cols
	} else if err := sameColumns(p.cols, cols); err != nil {
		return nil, nil, err
	}
	if p.busy > 0 {
		return q, func() {}, nil
	}
	p.q = q
	return q, p.hold(), nil
}

// hold counts a run of p.q until done is called (once).
func (p *queryPlan) hold() func() {
	p.busy++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.busy--
			p.mu.Unlock()
		})
	}
}

func (p *queryPlan) execute(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
	q, done, err := p.query(ctx, s)
	if err != nil {
		return nil, err
	}
	rows, err := q.Run(ctx, args)
	if err != nil {
		done()
		return nil, err
	}
	return &stmt.Result{Columns: p.cols, Rows: &planRows{Rows: rows, done: done}}, nil
}

// planRows ends a run's use of its plan when its rows are closed.
type planRows struct {
	stmt.Rows
	done func()
}

func (r *planRows) Close() error {
	defer r.done()
	return r.Rows.Close()
}

// keepsPlans is a plan whose run changes nothing a kept plan was bound
// over; running it leaves planGen as it is. Every other statement moves
// planGen on: it may have changed a setting binding reads, the
// transaction block, or the catalog.
type keepsPlans interface{ keepsPlans(s *Session) bool }

func (*queryPlan) keepsPlans(*Session) bool   { return true }
func (*constSelect) keepsPlans(*Session) bool { return true }

// afterExecute moves planGen on after a statement that may have changed
// what plans were bound over.
func (s *Session) afterExecute(pl plan) {
	if k, ok := pl.(keepsPlans); !ok || !k.keepsPlans(s) {
		s.planGen++
	}
}

// bindingSettings are the settings binding reads: names resolve through
// search_path on magmalake.branch, and a plan's operators take work_mem
// when bound. A prepared statement's literals keep the DateStyle they were
// read in at PREPARE, as in PostgreSQL, so SET DateStyle (like any other
// setting) leaves kept plans be.
var bindingSettings = map[string]bool{"search_path": true, "work_mem": true, branchSetting: true}

// generation is planGen, for engine.Env.Generation.
func (s *Session) generation() uint64 { return s.planGen }
