package session

import (
	"context"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// A transaction block's DDL (what package ddl stages in the block, see
// ddl/block.go) is kept with the block: a savepoint rewinds it, ROLLBACK
// undoes it, COMMIT applies it.

// ddlLog is a block's DDL: what to undo on rollback and what to do at commit.
type ddlLog struct {
	undo     []func(context.Context) error // newest last; run in reverse
	deferred []func(context.Context) error // in statement order
	hidden   map[string]bool               // "schema.table" or "schema." dropped in the block
}

func (l *ddlLog) hide(key string) {
	if l.hidden == nil {
		l.hidden = map[string]bool{}
	}
	l.hidden[key] = true
}

// hides reports whether the block dropped the table (or its schema).
func (l *ddlLog) hides(ident table.Identifier) bool {
	if len(ident) < 2 {
		return false
	}
	return l.hidden[lake.IdentKey(ident)] || l.hidden[ident[0]+"."]
}

// rollback undoes the block's creations, newest first. Errors are dropped:
// nothing is left to report them to, and the next CREATE says what exists.
func (l *ddlLog) rollback() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		_ = l.undo[i](context.Background())
	}
}

// commit applies the deferred statements; the first failure is returned.
func (l *ddlLog) commit(ctx context.Context) error {
	for _, f := range l.deferred {
		if err := f(ctx); err != nil {
			return err
		}
	}
	return nil
}
