package dml

import (
	"context"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareTruncate plans TRUNCATE [TABLE] t: every data and delete file goes
// from metadata alone.
func (s session) prepareTruncate(ctx context.Context, st *sql.Truncate) (Run, []stmt.Column, error) {
	if _, err := s.truncateTarget(ctx, st); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s session, _ []Param) (*stmt.Result, error) {
		if err := s.CheckWrite(); err != nil {
			return nil, err
		}
		rt, err := s.truncateTarget(ctx, st)
		if err != nil {
			return nil, err
		}
		opts := s.DeleteOptions(false)
		if _, err := deletes.Truncate(ctx, s.CommitTarget(), rt.Ident, opts); err != nil {
			return nil, fmt.Errorf("truncate %s: %w", strings.Join(rt.Ident, "."), err)
		}
		return stmt.TagOnly("TRUNCATE TABLE"), nil
	}
	return runOn(run), nil, nil
}

func (s session) truncateTarget(ctx context.Context, st *sql.Truncate) (*plan.Table, error) {
	rt, err := s.ResolveTable(ctx, st.Table, true)
	if err != nil {
		return nil, err
	}
	if err := s.Writable(rt, "truncate", st.Table); err != nil {
		return nil, err
	}
	return rt, nil
}
