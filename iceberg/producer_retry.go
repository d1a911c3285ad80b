package iceberg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// ChangeFunc plans one attempt of a statement against head: the change to
// commit and every file the attempt wrote (data, delete and Puffin files),
// which are removed if the attempt does not commit. It must not commit.
type ChangeFunc func(ctx context.Context, head *table.Table) (change FileChange, written []string, err error)

// CommitChangeWithRetry loads the head of ident, plans a change with plan
// and commits it as one snapshot; when another writer moved the table it
// removes the attempt's files, waits, reloads and plans again. It returns
// the committed table, or the head unchanged when the plan is empty. After
// ErrCommitUnknown the files are kept: the change may have landed.
func CommitChangeWithRetry(ctx context.Context, cat catalog.Catalog, ident table.Identifier, policy RetryPolicy, plan ChangeFunc) (*table.Table, error) {
	policy = policy.withDefaults()
	var lastErr error
	for n := 0; n < policy.MaxAttempts; n++ {
		if n > 0 {
			if err := commitSleep(ctx, policy.backoff(n-1)); err != nil {
				return nil, err
			}
		}
		committed, err := commitChangeOnce(ctx, cat, ident, plan)
		if err == nil {
			return committed, nil
		}
		if !IsConflict(err) || errors.Is(err, ErrCommitUnknown) || ctx.Err() != nil {
			return nil, err
		}
		lastErr = err
	}
	return nil, fmt.Errorf("%w after %d attempts: %v", ErrConflict, policy.MaxAttempts, lastErr)
}

// commitChangeOnce is one load-plan-commit round; it removes the files of
// the attempt unless the commit may have landed.
func commitChangeOnce(ctx context.Context, cat catalog.Catalog, ident table.Identifier, plan ChangeFunc) (*table.Table, error) {
	head, err := cat.LoadTable(ctx, ident)
	if err != nil {
		return nil, mapCatalogErr("load table "+strings.Join(ident, "."), err)
	}
	change, written, err := plan(ctx, head)
	if err == nil && change.IsEmpty() {
		commitRemoveWritten(head, written)
		return head, nil
	}
	if err == nil {
		var committed *table.Table
		if committed, err = CommitChange(ctx, cat, head, change); err == nil {
			return committed, nil
		}
	}
	if !errors.Is(err, ErrCommitUnknown) {
		commitRemoveWritten(head, written)
	}
	return nil, err
}
