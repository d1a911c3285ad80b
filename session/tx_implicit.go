package session

import (
	"context"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// PostgreSQL runs the statements of one multi-statement Query, and those of
// one extended-protocol pipeline up to Sync, as one implicit transaction:
// an error in any of them undoes them all, and their changes commit
// together at the end. The wire layer opens one with BeginImplicit and ends
// it with EndImplicit; inside, it is an ordinary block (changes staged,
// INSERTs buffered, DDL transactional, one snapshot per table) except that
// BEGIN turns it into an explicit block, COMMIT and ROLLBACK end it with
// PostgreSQL's warning, and savepoints are refused.

// BeginImplicit opens an implicit transaction block; inside a block
// (explicit or implicit) it does nothing.
func (s *Session) BeginImplicit() {
	if s.tx.active {
		return
	}
	def, _ := s.settings.Get("default_transaction_read_only")
	s.tx.begin(def == "on")
	s.tx.implicit = true
	s.settings.beginBlock()
}

// EndImplicit commits an implicit block, or rolls it back when one of its
// statements failed. An explicit block, or none, is left alone.
func (s *Session) EndImplicit(ctx context.Context) (err error) {
	if !s.tx.implicit {
		return nil
	}
	defer recoverInternal(&err)
	ctx = s.settings.withLockTimeout(ctx)
	if _, err = s.tx.endTransaction(ctx, "COMMIT"); err != nil && ctx.Err() != nil {
		err = pgerr.Canceled(ctx.Err())
	}
	return toSQLError(err)
}

// beginInImplicit is BEGIN inside an implicit block: the block becomes
// explicit, with the statements already run in it, as in PostgreSQL.
func (b *txBlock) beginInImplicit(readOnly *bool, lvl string) *stmt.Result {
	b.implicit = false
	if readOnly != nil {
		b.readOnly = *readOnly
	}
	if lvl != "" {
		b.settings.setIsolation(lvl)
	}
	return stmt.TagOnly("BEGIN")
}

// endStatement is COMMIT or ROLLBACK as a statement. In an implicit block it
// ends that block, with the warning PostgreSQL gives there.
func (b *txBlock) endStatement(ctx context.Context, verb string) (*stmt.Result, error) {
	implicit := b.implicit
	r, err := b.endTransaction(ctx, verb)
	if err == nil && implicit {
		r.Notices = append(r.Notices, noTransactionWarning())
	}
	return r, err
}

func noTransactionWarning() stmt.Notice {
	return stmt.Notice{Severity: "WARNING", Code: pgerr.NoActiveSQLTransaction, Message: "there is no transaction in progress"}
}

// inExplicitBlock is whether savepoints may be used.
func (t *txState) inExplicitBlock() bool { return t.active && !t.implicit }
