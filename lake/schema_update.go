package lake

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// SchemaEdit stages schema changes on us for tbl, the table as it is now,
// and returns the property changes that go with them (the declared types
// of added or retyped columns).
type SchemaEdit func(tbl *table.Table, us *table.UpdateSchema) (set map[string]string, remove []string, err error)

// schemaAttempts bounds the re-tries of a schema change that another
// commit overtook.
const schemaAttempts = 8

// EvolveSchema applies edit to ident's schema, with its property changes,
// as one commit: a new schema by field id, no data file rewritten. When
// another commit lands first the edit is staged again on the new head.
// allowIncompatible lets optional columns become required (the caller
// checked there is no NULL) and required ones be added to empty tables.
func (t *Tables) EvolveSchema(ctx context.Context, ident table.Identifier, allowIncompatible bool, edit SchemaEdit) (*table.Table, error) {
	return t.alterCommit(ctx, ident, func(tbl *table.Table, tx *table.Transaction) error {
		us := tx.UpdateSchema(true, allowIncompatible)
		set, remove, err := edit(tbl, us)
		if err != nil {
			return errEdit{err}
		}
		if err := us.Commit(); err != nil {
			return err
		}
		if len(set) > 0 {
			if err := tx.SetProperties(set); err != nil {
				return err
			}
		}
		if len(remove) > 0 {
			return tx.RemoveProperties(remove)
		}
		return nil
	})
}

// errEdit is the caller's edit failing: returned as it is.
type errEdit struct{ error }

// alterCommit stages a metadata change with stage on a transaction of
// ident's head and commits it, staging again on the new head (up to
// schemaAttempts times) when another commit lands first.
func (t *Tables) alterCommit(ctx context.Context, ident table.Identifier, stage func(tbl *table.Table, tx *table.Transaction) error) (*table.Table, error) {
	what := "alter table " + IdentKey(ident)
	var lost error
	for range schemaAttempts {
		tbl, err := t.wh.LoadTable(ctx, ident)
		if err != nil {
			return nil, err
		}
		tbl = withoutUnreadableDefaults(tbl)
		tx := tbl.NewTransaction()
		if err := stage(tbl, tx); err != nil {
			var ee errEdit
			if errors.As(err, &ee) {
				return nil, ee.error
			}
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out, err := t.commitAlter(ctx, tbl, tx)
		if err == nil {
			return out, nil
		}
		if lost = err; !IsConflict(err) {
			break
		}
	}
	return nil, fmt.Errorf("%s: %w", what, lost)
}

// commitAlter commits tx, a metadata-only change of tbl, through the
// catalog, with the defaults of the schemas it adds in the JSON form
// (SpecSchema): iceberg-go's schema updates hold typed values, which it
// would write as numbers (dates, times, timestamps) or lose (decimals).
func (t *Tables) commitAlter(ctx context.Context, tbl *table.Table, tx *table.Transaction) (*table.Table, error) {
	tc, err := tx.TableCommit()
	if err != nil {
		return nil, err
	}
	if len(tc.Updates) == 0 {
		return tbl, nil
	}
	updates := slices.Clone(tc.Updates)
	for i, u := range updates {
		if u.Action() != table.UpdateAddSchema {
			continue
		}
		sc, err := addedSchema(tbl.Metadata(), u)
		if err != nil {
			return nil, err
		}
		if sc, err = SpecSchema(widenedInitialDefaults(tbl.Schema(), sc)); err != nil {
			return nil, err
		}
		updates[i] = table.NewAddSchemaUpdate(sc)
	}
	meta, loc, err := t.wh.cat.CommitTable(ctx, tbl.Identifier(), tc.Requirements, updates)
	if err != nil {
		return nil, err
	}
	return table.New(tbl.Identifier(), meta, loc, tbl.FS, t.wh.cat), nil
}

// addedSchema is the schema an add-schema update adds to base (the update
// keeps it in an unexported type): applied to a builder, then made current.
func addedSchema(base table.Metadata, u table.Update) (*iceberg.Schema, error) {
	b, err := table.MetadataBuilderFromBase(base, "")
	if err != nil {
		return nil, err
	}
	if err := u.Apply(b); err != nil {
		return nil, err
	}
	if err := table.NewSetCurrentSchemaUpdate(-1).Apply(b); err != nil {
		return nil, err
	}
	return b.CurrentSchema(), nil
}

// RenameTable moves a table to another name or namespace of its catalog.
func (t *Tables) RenameTable(ctx context.Context, from, to table.Identifier) error {
	if err := checkIdent("table", to); err != nil {
		return err
	}
	_, err := t.wh.cat.RenameTable(ctx, from, to)
	if ne := refusedName(err, "table", to[len(to)-1]); ne != nil {
		return ne
	}
	return mapCatalogErr("rename table "+IdentKey(from)+" to "+IdentKey(to), err)
}

// SpecEdit stages partition spec changes on us for tbl as it is now.
type SpecEdit func(tbl *table.Table, us *table.UpdateSpec) error

// EvolveSpec applies edit to ident's partition spec as one commit: the
// new spec becomes the default for new files, old files keep theirs.
func (t *Tables) EvolveSpec(ctx context.Context, ident table.Identifier, edit SpecEdit) (*table.Table, error) {
	return t.alterCommit(ctx, ident, func(tbl *table.Table, tx *table.Transaction) error {
		us := tx.UpdateSpec(true)
		if err := edit(tbl, us); err != nil {
			return errEdit{err}
		}
		if err := us.Commit(); err != nil {
			return fmt.Errorf("%w: %w", ErrSpecChange, err)
		}
		return nil
	})
}

// ErrSpecChange marks a partition change iceberg-go refused (a transform
// the column's type cannot take, a duplicate or unknown field).
var ErrSpecChange = errors.New("invalid partition change")
