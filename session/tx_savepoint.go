package session

import (
	"context"
	"maps"
	"slices"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// SAVEPOINT / ROLLBACK TO / RELEASE inside a block, as psycopg2's and
// SQLAlchemy's nested transactions and pgjdbc's autosave use them. A
// savepoint records, per table, the block's net change and the files it had
// written; ROLLBACK TO restores that, removes what was written after it,
// undoes the CREATEs after it and forgets later DROPs and ALTERs. It also
// clears a failed block, which is what autosave relies on.

type savepoint struct {
	name   string
	tables map[string]tableMark
	undo   int // len(ddl.undo) at the savepoint
	defers int // len(ddl.deferred)
	hidden map[string]bool
	// settings are the parameters at the savepoint (see tx_settings.go)
	settings settingsMark
}

// tableMark is one table's state at a savepoint.
type tableMark struct {
	net     lake.FileChange
	written int
	orphans int
}

func (b *txBlock) savepoint(ctx context.Context, name string) (*stmt.Result, error) {
	if !b.inExplicitBlock() {
		return nil, pgerr.Errorf(pgerr.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	// A savepoint marks files: buffered rows become files first.
	if err := b.flushAll(ctx); err != nil {
		return nil, err
	}
	sp := savepoint{name: name, tables: map[string]tableMark{}, undo: len(b.ddl.undo),
		defers: len(b.ddl.deferred), hidden: maps.Clone(b.ddl.hidden), settings: b.settings.mark()}
	for k, tt := range b.tables {
		sp.tables[k] = tableMark{net: tt.net, written: len(tt.written), orphans: len(tt.orphans)}
	}
	b.savepoints = append(b.savepoints, sp)
	return stmt.TagOnly("SAVEPOINT"), nil
}

// findSavepoint is the newest savepoint called name.
func (b *txBlock) findSavepoint(verb, name string) (int, error) {
	if !b.inExplicitBlock() {
		return 0, pgerr.Errorf(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", verb)
	}
	for i := len(b.savepoints) - 1; i >= 0; i-- {
		if b.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, pgerr.Errorf(pgerr.InvalidSavepointSpecification, "savepoint %q does not exist", name)
}

func (b *txBlock) releaseSavepoint(name string) (*stmt.Result, error) {
	i, err := b.findSavepoint("RELEASE SAVEPOINT", name)
	if err != nil {
		return nil, err
	}
	b.savepoints = b.savepoints[:i]
	return stmt.TagOnly("RELEASE"), nil
}

func (b *txBlock) rollbackToSavepoint(ctx context.Context, name string) (*stmt.Result, error) {
	i, err := b.findSavepoint("ROLLBACK TO SAVEPOINT", name)
	if err != nil {
		return nil, err
	}
	sp := b.savepoints[i]
	b.savepoints = b.savepoints[:i+1] // the savepoint itself stays
	for k, tt := range b.tables {
		mark, ok := sp.tables[k]
		if !ok { // first touched after the savepoint
			tt.abandon()
			tt.leave()
			delete(b.tables, k)
			continue
		}
		tt.rewind(mark)
	}
	b.ddl.rewind(sp)
	b.failed = false
	r := stmt.TagOnly("ROLLBACK")
	r.ParameterChanges = b.settings.rewind(sp.settings)
	return r, nil
}

// rewind restores the table's net change of a savepoint, removing the files
// written since that the restored change does not reference. The view is
// staged again when the block next reads the table.
func (tt *txTable) rewind(mark tableMark) {
	tt.pending.drop() // all of it came after the savepoint
	keep := map[string]bool{}
	for _, p := range slices.Concat(tt.written[:mark.written], tt.orphans[:mark.orphans], addedPaths(mark.net)) {
		keep[p] = true
	}
	var drop []string
	for _, p := range slices.Concat(tt.written, tt.orphans, addedPaths(tt.net)) {
		if !keep[p] {
			drop = append(drop, p)
		}
	}
	tt.setNet(mark.net)
	tt.written, tt.orphans = tt.written[:mark.written], tt.orphans[:mark.orphans]
	removeTableFiles(tt.base, drop)
}

func addedPaths(c lake.FileChange) []string {
	var out []string
	for _, f := range slices.Concat(c.AddData, c.AddDeletes) {
		out = append(out, f.FilePath())
	}
	return out
}

// rewind undoes the CREATEs after the savepoint and forgets later DROPs and
// ALTERs.
func (l *ddlLog) rewind(sp savepoint) {
	for i := len(l.undo) - 1; i >= sp.undo; i-- {
		_ = l.undo[i](context.Background())
	}
	l.undo, l.deferred, l.hidden = l.undo[:sp.undo], l.deferred[:sp.defers], sp.hidden
}
