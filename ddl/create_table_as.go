package ddl

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// TableOfQuery is the CREATE TABLE of CREATE TABLE x AS query whose
// output columns are cols: the query's names (or the statement's column
// names) and the types the values are stored as.
func TableOfQuery(x *sql.CreateTable, cols []sql.Column) (*sql.CreateTable, error) {
	if len(x.ColumnNames) > len(cols) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "too many column names were specified")
	}
	ct := *x
	ct.Query, ct.Columns = nil, make([]sql.ColumnDef, len(cols))
	seen := map[string]bool{}
	for i, c := range cols {
		name := c.Name
		if i < len(x.ColumnNames) {
			name = x.ColumnNames[i]
		}
		if seen[name] {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen[name] = true
		t, err := storedType(name, c.Type)
		if err != nil {
			return nil, err
		}
		ct.Columns[i] = sql.ColumnDef{Name: name, Type: t}
	}
	return &ct, nil
}

// storedType is the column type a query's output becomes: untyped text is
// text, and numeric without a precision takes Iceberg's widest decimal at
// the values' scale.
func storedType(name string, t sql.Type) (sql.Type, error) {
	switch {
	case t.Kind == sql.KindUnknown:
		return sql.Text, nil
	case t.Kind == sql.KindNumeric && t.Precision == 0:
		return sql.Numeric(38, t.Scale), nil
	}
	if _, err := t.IcebergType(); err != nil {
		return sql.Type{}, pgerr.Errorf(pgerr.FeatureNotSupported, "column %q has type %s, which cannot be stored in an Iceberg table", name, t)
	}
	return t, nil
}
