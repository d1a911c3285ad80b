package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareTruncate plans TRUNCATE [TABLE] t: every data and delete file goes
// from metadata alone.
func (s *Session) prepareTruncate(ctx context.Context, st *sql.Truncate) (plan, []stmt.Column, error) {
	if _, err := s.truncateTarget(ctx, st); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, _ []Param) (*stmt.Result, error) {
		if err := s.tx.checkWrite(); err != nil {
			return nil, err
		}
		rt, err := s.truncateTarget(ctx, st)
		if err != nil {
			return nil, err
		}
		opts := s.deleteOptions(false)
		if _, err := deletes.Truncate(ctx, s.commitTarget(), rt.Ident, opts); err != nil {
			return nil, fmt.Errorf("truncate %s: %w", strings.Join(rt.Ident, "."), err)
		}
		return stmt.TagOnly("TRUNCATE TABLE"), nil
	}
	return planFunc(run), nil, nil
}

func (s *Session) truncateTarget(ctx context.Context, st *sql.Truncate) (*resolvedTable, error) {
	rt, err := s.resolveTable(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	if err := writableTable(rt, "truncate", st.Table); err != nil {
		return nil, err
	}
	return rt, nil
}
