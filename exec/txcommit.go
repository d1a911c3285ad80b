package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/sql"
)

// maxPublishAttempts bounds how often COMMIT rebases a table's net change
// onto a head that moved under it.
const maxPublishAttempts = 5

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
// the table since the block first read it, the change is rebased onto the new
// head only when the two touch different data files; otherwise 40001.
func (s *Session) publish(ctx context.Context, tt *txTable) error {
	tt.staged.Discard()
	tt.staged = nil
	cat := s.engine.wh.Catalog()
	base := tt.base
	for attempt := 0; attempt < maxPublishAttempts; attempt++ {
		_, err := iceberg.CommitChange(ctx, cat, base, tt.net)
		if err == nil {
			removeTableFiles(tt.base, tt.orphans)
			return nil
		}
		if !iceberg.IsConflict(err) && !errors.Is(err, iceberg.ErrFileNotInSnapshot) {
			return droppedConcurrently(tt.ident, err)
		}
		head, lerr := s.engine.wh.LoadTable(ctx, tt.ident)
		if lerr != nil {
			return droppedConcurrently(tt.ident, lerr)
		}
		if cerr := rebaseCheck(ctx, tt.base, head, tt.net); cerr != nil {
			return &sql.Error{Code: sql.CodeSerializationFailure,
				Message: fmt.Sprintf("could not serialize access due to concurrent update of %s", identKey(tt.ident)),
				Detail:  cerr.Error(), Err: cerr}
		}
		base = head
	}
	return &sql.Error{Code: sql.CodeSerializationFailure,
		Message: fmt.Sprintf("could not serialize access due to concurrent updates of %s", identKey(tt.ident))}
}

// rebaseCheck tells whether net, planned against base, still means the same
// on head: every data file it removes or adds deletes for must be live in
// head with exactly the delete files it had in base (else another session
// deleted or rewrote rows of it), and equality deletes must not meet data
// committed since base.
func rebaseCheck(ctx context.Context, base, head *table.Table, net iceberg.FileChange) error {
	before, err := deleteSets(ctx, base)
	if err != nil {
		return err
	}
	after, err := deleteSets(ctx, head)
	if err != nil {
		return err
	}
	touched := map[string]bool{}
	for _, f := range net.RemoveData {
		touched[f.FilePath()] = true
	}
	for _, d := range net.AddDeletes {
		switch {
		case d.ContentType() == ice.EntryContentEqDeletes:
			for p := range after {
				if _, ok := before[p]; !ok {
					return fmt.Errorf("equality deletes would also remove rows %s added concurrently", p)
				}
			}
		case d.ReferencedDataFile() != nil:
			touched[*d.ReferencedDataFile()] = true
		default: // a position delete file naming several data files
			for p := range before {
				touched[p] = true
			}
		}
	}
	for p := range touched {
		now, ok := after[p]
		if !ok {
			return fmt.Errorf("data file %s was removed by a concurrent commit", p)
		}
		if !slices.Equal(now, before[p]) {
			return fmt.Errorf("rows of data file %s were deleted by a concurrent commit", p)
		}
	}
	return nil
}

// deleteSets maps each live data file of tbl to the delete files that apply
// to it, as sorted keys.
func deleteSets(ctx context.Context, tbl *table.Table) (map[string][]string, error) {
	out := map[string][]string{}
	if tbl.CurrentSnapshot() == nil {
		return out, nil
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", identKey(tbl.Identifier()), err)
	}
	for _, t := range tasks {
		keys := out[t.File.FilePath()]
		for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles) {
			key := d.FilePath()
			if off := d.ContentOffset(); off != nil {
				key = fmt.Sprintf("%s@%d", key, *off)
			}
			if !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
		slices.Sort(keys)
		out[t.File.FilePath()] = keys
	}
	return out, nil
}
