package exec

import (
	"github.com/magmalake/magmalake/sql"
)

// txState is the session's transaction block state machine.
type txState struct {
	active   bool // inside BEGIN ... COMMIT
	failed   bool // an error happened inside the block
	readOnly bool
}

func (t *txState) status() byte {
	switch {
	case t.failed:
		return TxFailed
	case t.active:
		return TxActive
	}
	return TxIdle
}

// admit rejects statements a failed block may not run.
func (t *txState) admit(st sql.Statement) error {
	if !t.failed {
		return nil
	}
	switch st.(type) {
	case *sql.Rollback, *sql.Commit:
		return nil
	}
	return sql.Errorf(sql.CodeInFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

func (t *txState) fail() {
	if t.active {
		t.failed = true
	}
}

func (t *txState) reset() { *t = txState{} }

// checkWrite refuses DML in a READ ONLY transaction.
func (t *txState) checkWrite() error {
	if t.active && t.readOnly {
		return sql.Errorf(sql.CodeReadOnlyTransaction, "cannot execute DML in a read-only transaction")
	}
	return nil
}
