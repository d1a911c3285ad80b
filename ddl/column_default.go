package ddl

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Column defaults are Iceberg's (format v3): DEFAULT v is stored as the
// column's write-default, which rows written without the column get, and,
// for a column added to a table that has rows, as its initial-default,
// which the rows of older files read as in every engine (so ADD COLUMN c
// int DEFAULT 5 reads 5 on old rows, as in PostgreSQL, without rewriting a
// file). A format 2 table has no defaults: 0A000, with the upgrade as the
// hint.

// columnDefault is the literal DEFAULT stands for, fitted to the column's
// declared type; nil for none (no DEFAULT, or DEFAULT NULL).
func columnDefault(ctx context.Context, c sql.ColumnDef, version int) (iceberg.Literal, error) {
	if c.Default == nil {
		return nil, nil
	}
	if version < 3 {
		return nil, noDefaultsBefore3(c.Name)
	}
	arr, err := sql.DefaultArray(ctx, c.Default, c.Name, c.Type)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	if sql.Narrowed(c.Type) { // varchar(n), smallint: as a stored value is fitted
		fitted, err := sql.FitColumn(c.Type, arr)
		if err != nil {
			return nil, err
		}
		if fitted != nil {
			defer fitted.Release()
			arr = fitted
		}
	}
	lit, err := sql.DefaultLiteral(arr, c.Name, c.Type)
	if err != nil || lit == nil {
		return lit, err
	}
	// As the table's metadata file will hold it: a value JSON or its
	// readers cannot hold exactly is refused here, not lost there.
	if _, err := lake.SpecDefault(lit.Type(), lit.Any()); err != nil {
		return nil, &pgerr.Error{Code: pgerr.FeatureNotSupported,
			Message: fmt.Sprintf("the default of column %q cannot be stored in Iceberg table metadata", c.Name),
			Detail:  err.Error(), Err: err}
	}
	return lit, nil
}

// noDefaultsBefore3 refuses a default of column name in a table of
// format 1 or 2.
func noDefaultsBefore3(name string) error {
	return &pgerr.Error{Code: pgerr.FeatureNotSupported,
		Message: fmt.Sprintf("column %q cannot have a default: Iceberg stores defaults from format version 3", name),
		Hint:    "Create the table WITH ('format-version' = '3'), or upgrade it: ALTER TABLE t SET ('format-version' = '3')."}
}

// likeDefault is the default LIKE ... INCLUDING DEFAULTS copies into
// column c of a table of format version, as the source's field holds it.
func likeDefault(c sql.ColumnDef, version int) (any, error) {
	if c.LikeDefault == nil {
		return nil, nil
	}
	if version < 3 {
		return nil, noDefaultsBefore3(c.Name)
	}
	return c.LikeDefault, nil
}

// nonNullDefault reports a DEFAULT that is not NULL (one that fails to
// evaluate counts as not NULL: adding the column reports the error).
func nonNullDefault(ctx context.Context, c sql.ColumnDef) bool {
	if c.Default == nil {
		return false
	}
	arr, err := sql.DefaultArray(ctx, c.Default, c.Name, c.Type)
	if err != nil {
		return true
	}
	defer arr.Release()
	return !arr.IsNull(0)
}

// formatVersionOf is the format version a CREATE TABLE's properties ask
// for (the catalog's default, 2, otherwise).
func formatVersionOf(props map[string]string) int {
	if v, err := strconv.Atoi(props["format-version"]); err == nil {
		return v
	}
	return 2
}

// setDefault stages ALTER COLUMN c SET DEFAULT v | DROP DEFAULT: only what
// later writes get (the write-default); rows already written keep theirs.
func (ev *schemaEvolution) setDefault(ctx context.Context, f iceberg.NestedField, a sql.AlterAction) error {
	t := sql.TypeFromIceberg(f.Type)
	if d, ok := sql.DeclaredTypes(ev.tbl.Properties(), []iceberg.NestedField{f})[0]; ok {
		t = d
	}
	var lit iceberg.Literal
	if a.Kind == sql.AlterSetDefault {
		var err error
		if lit, err = columnDefault(ctx, sql.ColumnDef{Name: f.Name, Type: t, Default: a.Column.Default}, ev.tbl.Metadata().Version()); err != nil {
			return err
		}
	} else if ev.tbl.Metadata().Version() < 3 {
		return nil // a format 2 column has no default to drop
	}
	ev.us.UpdateColumn([]string{f.Name}, table.ColumnUpdate{WriteDefault: iceberg.Optional[iceberg.Literal]{Valid: true, Val: lit}})
	return nil
}
