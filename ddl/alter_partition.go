package ddl

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// partitionActions reports whether the statement evolves the partition
// spec; such a statement holds nothing else.
func partitionActions(actions []sql.AlterAction) (bool, error) {
	n := 0
	for _, a := range actions {
		switch a.Kind {
		case sql.AlterAddPartitionField, sql.AlterDropPartitionField, sql.AlterReplacePartitionField:
			n++
		}
	}
	if n > 0 && n < len(actions) {
		return false, pgerr.Errorf(pgerr.FeatureNotSupported, "partition fields and columns cannot be changed in one ALTER TABLE")
	}
	return n > 0, nil
}

// alterPartitioning runs ADD/DROP/REPLACE PARTITION FIELD: a new spec for
// new files; files already written keep theirs.
func alterPartitioning(ctx context.Context, p Port, ident table.Identifier, name string, actions []sql.AlterAction) (*stmt.Result, error) {
	_, err := p.Warehouse().Tables().EvolveSpec(ctx, ident, func(tbl *table.Table, us *table.UpdateSpec) error {
		for _, a := range actions {
			if err := stagePartition(tbl, us, name, a); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, lake.ErrSpecChange) {
		return nil, specError(err)
	}
	if err != nil {
		return nil, err
	}
	return stmt.TagOnly("ALTER TABLE"), nil
}

func stagePartition(tbl *table.Table, us *table.UpdateSpec, name string, a sql.AlterAction) error {
	if a.Kind != sql.AlterAddPartitionField {
		old, err := partitionFieldName(tbl, name, a)
		if err != nil {
			return err
		}
		us.RemoveField(old)
	}
	if a.Kind == sql.AlterDropPartitionField {
		return nil
	}
	if _, ok := tbl.Schema().FindFieldByName(a.Partition.Column); !ok {
		return pgerr.Errorf(pgerr.UndefinedColumn, "column %q named in partition key does not exist", a.Partition.Column)
	}
	t, err := icebergTransform(a.Partition)
	if err != nil {
		return err
	}
	us.AddField(a.Partition.Column, t, a.PartName)
	return nil
}

// partitionFieldName finds the current spec's field an action names, by
// its name or by its transform of a column.
func partitionFieldName(tbl *table.Table, table string, a sql.AlterAction) (string, error) {
	spec := tbl.Spec()
	if a.Old.Column == "" {
		for _, f := range spec.Fields() {
			if f.Name == a.Name {
				return f.Name, nil
			}
		}
		return "", pgerr.Errorf(pgerr.UndefinedObject, "partition field %q of table %q does not exist", a.Name, table)
	}
	src, ok := tbl.Schema().FindFieldByName(a.Old.Column)
	if !ok {
		return "", pgerr.Errorf(pgerr.UndefinedColumn, "column %q named in partition key does not exist", a.Old.Column)
	}
	t, err := icebergTransform(a.Old)
	if err != nil {
		return "", err
	}
	for _, f := range spec.Fields() {
		if f.SourceID() == src.ID && f.Transform.Equals(t) {
			return f.Name, nil
		}
	}
	return "", pgerr.Errorf(pgerr.UndefinedObject, "table %q is not partitioned by %s", table, describeTransform(a.Old))
}

func describeTransform(p sql.PartitionField) string {
	switch {
	case p.Transform == "identity":
		return p.Column
	case p.Param > 0:
		return fmt.Sprintf("%s(%d, %s)", p.Transform, p.Param, p.Column)
	}
	return fmt.Sprintf("%s(%s)", p.Transform, p.Column)
}

// specError gives iceberg-go's refusals of a spec change their SQLSTATE.
func specError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, lake.ErrSpecChange.Error()+": "); i >= 0 {
		msg = msg[i+len(lake.ErrSpecChange.Error())+2:]
	}
	code := pgerr.InvalidParameterValue
	switch {
	case strings.Contains(msg, "cannot transform"):
		code = pgerr.DatatypeMismatch
	case strings.Contains(msg, "already added"), strings.Contains(msg, "duplicate"):
		code = pgerr.DuplicateObject
	}
	return &pgerr.Error{Code: code, Message: "invalid partition change: " + msg, Err: err}
}
