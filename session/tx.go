package session

import (
	"context"
	"slices"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// txState is the session's transaction block: BEGIN ... COMMIT stages every
// statement's change per table on a private view and commits the net change
// of each table as one snapshot at COMMIT.
type txState struct {
	active   bool // inside BEGIN ... COMMIT, or an implicit block
	implicit bool // the block is implicit (see tx_implicit.go)
	failed   bool // an error happened inside the block
	readOnly bool
	// autoReadOnly is default_transaction_read_only for statements outside
	// a block, each of which is its own transaction.
	autoReadOnly bool
	tables       map[string]*txTable
	branch       string // what the block's tables are pinned on (branch.go)
	// cursors outlive the block (WITH HOLD): every reset carries them over.
	cursors *cursorSet
	ddl     ddlLog // the block's CREATE/DROP/ALTER (see tx_ddl.go)
	// savepoints, oldest first (see tx_savepoint.go)
	savepoints []savepoint
}

// txBlock runs the session's transaction block: it owns the block's state
// and what running one needs, the warehouse and the settings a block scopes.
type txBlock struct {
	txState
	engine   *Engine
	settings *Settings
}

// txTable is one table a transaction block read or changed.
type txTable struct {
	ident table.Identifier
	base  *table.Table // the head when the block first touched the table
	// view is base with the block's net change applied, staged only when a
	// statement reads the table after a change (nil until then): the last
	// change before COMMIT is never staged, since COMMIT publishes the net
	// change onto the head, not the view.
	view    *table.Table
	staged  *lake.StagedChange
	net     lake.FileChange
	written []string    // every file the block's statements wrote
	orphans []string    // files a later statement superseded
	pending pendingRows // rows INSERTed but not yet written (tx_append.go)
	leave   func()      // ends the block's mark on the table (table_use.go)
	since   time.Time   // when the block may start writing the table's files (iceberg.WriteStart)
}

func (t *txState) status() byte {
	switch {
	case t.failed:
		return stmt.TxFailed
	case t.active:
		return stmt.TxActive
	}
	return stmt.TxIdle
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
	return pgerr.Errorf(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

func (t *txState) fail() {
	if t.active {
		t.failed = true
	}
}

// checkWrite refuses DML in a READ ONLY transaction.
func (t *txState) checkWrite() error {
	if (t.active && t.readOnly) || (!t.active && t.autoReadOnly) {
		return pgerr.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute DML in a read-only transaction")
	}
	return nil
}

// begin opens a block.
func (t *txState) begin(readOnly bool) {
	*t = txState{active: true, readOnly: readOnly, autoReadOnly: t.autoReadOnly, tables: map[string]*txTable{}, cursors: t.cursors}
}

// rollback abandons the block: nothing was committed, so every file its
// statements wrote is removed.
func (t *txState) rollback() {
	for _, tt := range t.tables {
		tt.abandon()
		tt.leave()
	}
	t.ddl.rollback()
	t.cursors.rollback()
	*t = txState{autoReadOnly: t.autoReadOnly, cursors: t.cursors}
}

// end closes the block without touching files: COMMIT has published or
// abandoned every table.
func (t *txState) end() {
	for _, tt := range t.tables {
		tt.leave()
	}
	t.cursors.commit()
	*t = txState{autoReadOnly: t.autoReadOnly, cursors: t.cursors}
}

func (tt *txTable) abandon() {
	tt.pending.drop()
	tt.staged.Discard()
	removeTableFiles(tt.base, slices.Concat(tt.written, tt.orphans, addedPaths(tt.net)))
}

// sortedTables is the fixed order a COMMIT publishes tables in.
func (t *txState) sortedTables() []*txTable {
	keys := make([]string, 0, len(t.tables))
	for k := range t.tables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*txTable, len(keys))
	for i, k := range keys {
		out[i] = t.tables[k]
	}
	return out
}

// txTable returns the block's state for ident, pinning the table's current
// head the first time the block touches it: later reads see that snapshot
// plus the block's own changes, its pending INSERTs written first.
func (b *txBlock) txTable(ctx context.Context, ident table.Identifier) (*txTable, error) {
	tt, err := b.txEntry(ctx, ident)
	if err != nil {
		return nil, err
	}
	if err := tt.flush(ctx); err != nil {
		return nil, err
	}
	return tt, nil
}

// txEntry is txTable without writing pending rows: for INSERTs, which add
// to them and read nothing.
func (b *txBlock) txEntry(ctx context.Context, ident table.Identifier) (*txTable, error) {
	branch, err := b.blockBranch()
	if err != nil {
		return nil, err
	}
	if tt, ok := b.tables[lake.IdentKey(ident)]; ok {
		return tt, nil
	}
	// Entered before the head is read: background maintenance either
	// committed before (the head is its) or waits for the block to end.
	leave, err := b.enterTable(ctx, lake.IdentKey(ident))
	if err != nil {
		return nil, err
	}
	// Pinned before the head is read too, so expiry waits for the pin or
	// keeps the head; held until the block ends, as are the files its
	// statements write, which orphan removal must not take meanwhile.
	pin := b.engine.wh.Commits().Readers().Begin(ident)
	_, unhold := b.engine.wh.Commits().Writes().Hold(ident, time.Now())
	left := leave
	leave = func() { pin.Release(); unhold(); left() }
	head, err := b.engine.wh.LoadTable(ctx, ident)
	if err == nil {
		head, err = onBranch(head, branch)
	}
	if err != nil {
		leave()
		return nil, err
	}
	pin.Settle(head.CurrentSnapshot())
	since, err := b.engine.wh.Commits().WriteStart(ctx, head)
	if err != nil {
		leave()
		return nil, err
	}
	tt := &txTable{ident: ident, base: head, view: head, leave: leave, since: since}
	b.tables[lake.IdentKey(ident)] = tt
	return tt, nil
}

// enterTable records the block touching key, waiting while maintenance
// commits a rewrite of it. The wait is bounded by statement_timeout even
// when the table is first named while the statement is prepared, before
// Execute sets the statement's deadline.
func (b *txBlock) enterTable(ctx context.Context, key string) (leave func(), err error) {
	if d := b.settings.statementDeadline(time.Now()); !d.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	leave, err = b.engine.uses.enter(ctx, key)
	if err != nil {
		return nil, pgerr.Canceled(err)
	}
	return leave, nil
}

// commitChange is how every statement's change is applied. Outside a block
// it commits one snapshot, re-planning against the new head when another
// writer got there first. Inside a block it plans against the block's view
// and folds the change into the table's net change; nothing is committed
// until COMMIT (the returned table is nil then).
func (b *txBlock) commitChange(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error) {
	if !b.active {
		tbl, err := b.commitLoop(b.settings.branch()).Commit(ctx, ident, plan)
		return tbl, droppedConcurrently(ident, err)
	}
	tt, err := b.txTable(ctx, ident)
	if err != nil {
		return nil, droppedConcurrently(ident, err)
	}
	view, err := tt.current(ctx, b.engine.wh)
	if err != nil {
		return nil, err
	}
	change, written, err := plan(ctx, view)
	tt.written = append(tt.written, written...)
	if err != nil || change.IsEmpty() {
		return nil, err
	}
	return nil, tt.stage(change)
}

// stage folds one statement's change into the net change; the view the
// block's next statements read is staged when one of them reads it.
func (tt *txTable) stage(change lake.FileChange) error {
	net, orphans, err := tt.net.Then(change)
	if err != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "this change cannot join the earlier ones of the transaction on %s: %v", lake.IdentKey(tt.ident), err)
	}
	tt.setNet(net)
	tt.orphans = append(tt.orphans, orphans...)
	return nil
}

// setNet makes net the block's change, dropping the view staged for the
// previous one.
func (tt *txTable) setNet(net lake.FileChange) {
	tt.staged.Discard()
	tt.staged, tt.view, tt.net = nil, nil, net
	if net.IsEmpty() {
		tt.view = tt.base
	}
}

// current is what the block reads of the table: base with its net change,
// staged now if a change came since the last read.
func (tt *txTable) current(ctx context.Context, wh *lake.Warehouse) (*table.Table, error) {
	if tt.view != nil {
		return tt.view, nil
	}
	staged, err := wh.Commits().StageView(ctx, tt.base, tt.net)
	if err != nil {
		return nil, err
	}
	view, err := staged.View(tt.base)
	if err != nil {
		staged.Discard()
		return nil, err
	}
	tt.staged, tt.view = staged, view
	return view, nil
}

func (t *txState) reset() { t.rollback() }

// removeTableFiles deletes files a statement or block wrote and never published.
func removeTableFiles(tbl *table.Table, paths []string) {
	if len(paths) == 0 {
		return
	}
	if fs, err := tbl.FS(context.Background()); err == nil {
		lake.RemoveWrittenFiles(fs, paths)
	}
}

// commitTarget is the block as the port a DML statement is planned
// against: the statement hands its change to commitChange, which commits
// it outside a block and stages it inside one.
func (b *txBlock) commitTarget() deletes.CommitTarget { return sessionTarget{b} }

type sessionTarget struct{ b *txBlock }

func (t sessionTarget) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	return t.b.engine.wh.Catalog().LoadTable(ctx, ident)
}

func (t sessionTarget) Commit(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error) {
	return t.b.commitChange(ctx, ident, plan)
}
