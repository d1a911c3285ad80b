package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/sql"
)

// commitBlock publishes the block's net change of every table, one snapshot
// each, in a fixed order. The catalog cannot commit several tables
// atomically, so a failure after some tables were published is reported as
// such (40003) rather than hidden; the tables not yet published are left as
// they were.
func (s *Session) commitBlock(ctx context.Context) error {
	tables := s.tx.sortedTables()
	var done []string
	for i, tt := range tables {
		if tt.net.IsEmpty() {
			removeTableFiles(tt.base, tt.orphans)
			continue
		}
		if err := s.publish(ctx, tt); err != nil {
			for _, rest := range tables[i:] {
				rest.abandon()
			}
			if len(done) == 0 {
				return err
			}
			return &sql.Error{Code: sql.CodeStatementCompletionUnknown,
				Message: fmt.Sprintf("COMMIT was only partly applied: %s failed: %v", identKey(tt.ident), err),
				Detail:  "Committed before the failure: " + strings.Join(done, ", ") + ". The catalog cannot commit several tables atomically.",
				Err:     err}
		}
		done = append(done, identKey(tt.ident))
	}
	return nil
}

// publish commits one table's net change. If another session committed to
// the table since the block first read it, the change is rebased onto the
// new head as long as the two touched different rows (by data file and
// position); otherwise 40001.
func (s *Session) publish(ctx context.Context, tt *txTable) error {
	tt.staged.Discard()
	tt.staged = nil
	_, err := s.engine.wh.CommitLoop(s.engine.opts.Retry, deletes.Rebase).Publish(ctx, tt.base, tt.net)
	if errors.Is(err, iceberg.ErrReplan) {
		return &sql.Error{Code: sql.CodeSerializationFailure,
			Message: fmt.Sprintf("could not serialize access due to concurrent update of %s", identKey(tt.ident)),
			Detail:  strings.TrimPrefix(err.Error(), iceberg.ErrReplan.Error()+": "), Err: err}
	}
	if err != nil && !iceberg.IsConflict(err) {
		return droppedConcurrently(tt.ident, err)
	}
	if err != nil {
		return err
	}
	removeTableFiles(tt.base, tt.orphans)
	return nil
}
