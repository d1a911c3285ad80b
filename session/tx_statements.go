package session

import (
	"context"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareTransaction plans BEGIN, COMMIT, ROLLBACK and savepoints.
func (s *Session) prepareTransaction(st sql.Statement) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		switch x := st.(type) {
		case *sql.Begin:
			return s.tx.beginStmt(x)
		case *sql.Commit:
			return s.tx.endStatement(ctx, "COMMIT")
		case *sql.Rollback:
			if x.ToSavepoint != "" {
				return s.tx.rollbackToSavepoint(ctx, x.ToSavepoint)
			}
			return s.tx.endStatement(ctx, "ROLLBACK")
		case *sql.Savepoint:
			return s.tx.savepoint(ctx, x.Name)
		case *sql.ReleaseSavepoint:
			return s.tx.releaseSavepoint(x.Name)
		}
		return nil, notSupported("this statement is not supported")
	}
	return planFunc(run), nil, nil
}

// beginStmt is BEGIN: it opens a block, or warns inside an explicit one,
// or makes an implicit block explicit (tx_implicit.go).
func (b *txBlock) beginStmt(x *sql.Begin) (*stmt.Result, error) {
	r := stmt.TagOnly("BEGIN")
	if b.active && !b.implicit {
		r.Notices = []stmt.Notice{{Severity: "WARNING", Code: pgerr.ActiveSQLTransaction, Message: "there is already a transaction in progress"}}
		return r, nil
	}
	var lvl string
	if x.Isolation != "" {
		var err error
		if lvl, err = isolationLevel(x.Isolation); err != nil {
			return nil, err
		}
	}
	if b.implicit {
		return b.beginInImplicit(x.ReadOnly, lvl), nil
	}
	def, _ := b.settings.Get("default_transaction_read_only")
	readOnly := def == "on"
	if x.ReadOnly != nil {
		readOnly = *x.ReadOnly
	}
	b.begin(readOnly)
	b.settings.beginBlock()
	b.settings.setIsolation(lvl)
	return r, nil
}

// endTransaction ends a block: COMMIT publishes its changes (a failed block
// rolls back instead, as PostgreSQL answers it), ROLLBACK drops them and the
// files they wrote.
func (b *txBlock) endTransaction(ctx context.Context, verb string) (*stmt.Result, error) {
	if !b.active {
		r := stmt.TagOnly(verb)
		r.Notices = []stmt.Notice{noTransactionWarning()}
		return r, nil
	}
	if b.failed || verb == "ROLLBACK" {
		b.rollback()
		r := stmt.TagOnly("ROLLBACK")
		r.ParameterChanges = b.settings.rollbackBlock()
		b.settings.endIsolation()
		return r, nil
	}
	err := b.commitBlock(ctx)
	ddl := b.ddl
	var changes []stmt.ParameterChange
	if err != nil {
		b.settings.rollbackBlock()
	} else {
		changes = b.settings.commitBlock()
	}
	b.settings.endIsolation()
	if err != nil {
		// The block did not (wholly) commit: its cursors, held ones too,
		// go as they would on ROLLBACK, since they may read what it wrote,
		// and what it created goes too.
		b.cursors.rollback()
		ddl.rollback()
	}
	b.end() // commitBlock published or abandoned every table
	if err != nil {
		return nil, err
	}
	// The block's drops and alters, now outside it, after its DML.
	if err := ddl.commit(ctx); err != nil {
		return nil, err
	}
	r := stmt.TagOnly("COMMIT")
	r.ParameterChanges = changes
	return r, nil
}

func (b *txBlock) setTransaction(x *sql.SetTransaction) (*stmt.Result, error) {
	if x.Isolation != "" {
		lvl, err := isolationLevel(x.Isolation)
		if err != nil {
			return nil, err
		}
		switch {
		case x.Session:
			b.settings.values["default_transaction_isolation"] = lvl
			b.settings.sessionSet("default_transaction_isolation")
			if !b.active {
				b.settings.endIsolation()
			}
		case b.active:
			b.settings.setIsolation(lvl)
		}
	}
	if !x.Session && !b.active {
		return outsideBlock("SET TRANSACTION"), nil
	}
	if x.ReadOnly != nil {
		v := "off"
		if *x.ReadOnly {
			v = "on"
		}
		if x.Session {
			if _, err := b.settings.Set("default_transaction_read_only", v); err != nil {
				return nil, err
			}
		} else {
			b.readOnly = *x.ReadOnly
		}
	}
	return stmt.TagOnly("SET"), nil
}

// isolationLevel accepts PostgreSQL's four levels. Every one runs as
// snapshot isolation on Iceberg, which is at least as strong as asked for
// all but SERIALIZABLE; SERIALIZABLE is accepted as PostgreSQL's REPEATABLE
// READ would be.
func isolationLevel(v string) (string, error) {
	l := strings.ToLower(strings.Join(strings.Fields(v), " "))
	switch l {
	case "read uncommitted", "read committed", "repeatable read", "serializable":
		return l, nil
	}
	return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"transaction_isolation\": \"%s\"", v)
}
