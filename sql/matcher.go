package sql

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
)

// Matcher is Match for one predicate over the many batches of a scan. Its
// vectorised form is compiled once: an IN list of a million items becomes
// one hash set per statement, not one per batch. Safe for concurrent use
// (the delete engine matches files in parallel).
type Matcher struct {
	e       Expr
	params  []any
	once    sync.Once
	fast    fastPred
	hasFast bool
}

// NewMatcher prepares e (bound in the scan's Scope) with the statement's
// parameter values.
func NewMatcher(e Expr, params []any) *Matcher { return &Matcher{e: e, params: params} }

// Match is true exactly for the rows of batch where the predicate is TRUE.
func (m *Matcher) Match(ctx context.Context, batch arrow.RecordBatch) ([]bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.e.Type().Kind != KindBool {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", m.e.Type().SigName())
	}
	m.once.Do(func() {
		// Compiled without this call's cancellation, which may be one
		// file's, but with the statement's input style for its parameters.
		compile := WithInputStyle(context.Background(), InputStyleOf(ctx))
		m.fast, m.hasFast = newEvaluator(compile, nil, m.params).compileFast(m.e)
	})
	if !m.hasFast {
		return newEvaluator(ctx, batch, m.params).matchGeneral(m.e)
	}
	t := m.fast(ctx, batch, nil)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.err != nil {
		return nil, t.err
	}
	for i, null := range t.null {
		t.val[i] = t.val[i] && !null
	}
	return t.val, nil
}
