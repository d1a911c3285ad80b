package lake

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// SetProperties sets table properties of ident. format-version is not a
// property in Iceberg metadata: a higher value upgrades the table, the same
// value is a no-op, a lower one fails with ErrFormatDowngrade.
func (t *Tables) SetProperties(ctx context.Context, ident table.Identifier, props map[string]string) (*table.Table, error) {
	what := "alter table " + IdentKey(ident)
	tbl, err := t.wh.LoadTable(ctx, ident)
	if err != nil {
		return nil, err
	}
	if err := checkLocations(props, t.tableRoots(tbl)); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	rest := iceberg.Properties{}
	maps.Copy(rest, props)
	tx := tbl.NewTransaction()
	if v, ok := rest[propFormatVersion]; ok {
		delete(rest, propFormatVersion)
		if err := stageFormatVersion(tx, tbl.Metadata().Version(), v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := tx.SetProperties(rest); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return commitMetadataTx(ctx, what, tx)
}

// tableRoots are where an existing table's properties may place files: the
// warehouse roots and the table's own location, which its catalog chose
// (or which was checked when the table was created here).
func (t *Tables) tableRoots(tbl *table.Table) []location {
	roots := t.roots
	if l, err := parseLocation(tbl.Location()); err == nil {
		roots = append(slices.Clip(roots), l)
	}
	return roots
}

func stageFormatVersion(tx *table.Transaction, current int, v string) error {
	want, err := parseFormatVersion(v)
	if err != nil {
		return err
	}
	switch {
	case want < current:
		return fmt.Errorf("%w: table is version %d, requested %d", ErrFormatDowngrade, current, want)
	case want > current:
		return tx.UpgradeFormatVersion(want)
	}
	return nil
}

// RemoveProperties removes table properties of ident; format-version cannot be removed.
func (t *Tables) RemoveProperties(ctx context.Context, ident table.Identifier, keys []string) (*table.Table, error) {
	what := "alter table " + IdentKey(ident)
	if slices.Contains(keys, propFormatVersion) {
		return nil, fmt.Errorf("%s: %w: %s cannot be reset", what, ErrInvalidProperty, propFormatVersion)
	}
	tbl, err := t.wh.LoadTable(ctx, ident)
	if err != nil {
		return nil, err
	}
	tx := tbl.NewTransaction()
	if err := tx.RemoveProperties(keys); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return commitMetadataTx(ctx, what, tx)
}

// commitMetadataTx commits a properties-only transaction. Such commits carry
// no branch assertion, so concurrent writers do not make them fail.
func commitMetadataTx(ctx context.Context, what string, tx *table.Transaction) (*table.Table, error) {
	out, err := tx.Commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
