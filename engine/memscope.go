package engine

import (
	"context"
	"sync"

	"github.com/magmalake/magmalake/stmt"
)

// A query level's operators make their budgets as they run and never
// close them; a statement gives back all of them when it ends. A
// correlated subquery runs its level once per outer row, each run with
// budgets of its own: they give back what they drew when the run's rows
// are closed, or the statement would count every run's memory until it
// ends, and soon wait for memory long let go of.

// memScope is the budgets one run of a query level made that hold memory
// of the server's pool.
type memScope struct {
	mu      sync.Mutex // DML evaluates subqueries on several files at once
	budgets map[*memBudget]struct{}
}

type memScopeKey struct{}

// withMemScope starts the budgets of one run of a query level; nil when
// the statement draws on no pool.
func withMemScope(ctx context.Context) (context.Context, *memScope) {
	if memAccountOf(ctx) == nil {
		return ctx, nil
	}
	s := &memScope{budgets: map[*memBudget]struct{}{}}
	return context.WithValue(ctx, memScopeKey{}, s), s
}

func memScopeOf(ctx context.Context) *memScope {
	s, _ := ctx.Value(memScopeKey{}).(*memScope)
	return s
}

func (s *memScope) keep(m *memBudget) {
	if s != nil {
		s.mu.Lock()
		s.budgets[m] = struct{}{}
		s.mu.Unlock()
	}
}

func (s *memScope) forget(m *memBudget) {
	if s != nil {
		s.mu.Lock()
		delete(s.budgets, m)
		s.mu.Unlock()
	}
}

// close gives back what the run's budgets drew: its rows are closed.
func (s *memScope) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	budgets := s.budgets
	s.budgets = map[*memBudget]struct{}{}
	s.mu.Unlock()
	for m := range budgets {
		m.giveAll()
	}
}

// closingScope makes closing rows close s too.
func closingScope(rows stmt.Rows, s *memScope) stmt.Rows {
	if s == nil {
		return rows
	}
	switch r := rows.(type) {
	case *BatchRows:
		prev := r.closeFn
		r.closeFn = func() {
			if prev != nil {
				prev()
			}
			s.close()
		}
		return r
	case *streamRows:
		prev := r.stop
		r.stop = func() {
			if prev != nil {
				prev()
			}
			s.close()
		}
		return r
	}
	return &scopedRows{Rows: rows, scope: s}
}

// scopedRows are rows of another kind whose Close closes a scope.
type scopedRows struct {
	stmt.Rows
	scope *memScope
}

func (r *scopedRows) Close() error {
	defer r.scope.close()
	return r.Rows.Close()
}
