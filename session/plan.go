package session

import (
	"context"
	"fmt"

	"github.com/magmalake/magmalake/dml"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// planStatement binds st and returns its executable form and row description.
func (s *Session) planStatement(ctx context.Context, st sql.Statement, params *sql.Params) (plan, []stmt.Column, error) {
	switch x := st.(type) {
	case *sql.Select:
		return s.prepareSelect(ctx, x, params)
	case *sql.Insert:
		return dmlPlan(dml.PrepareInsert(ctx, dmlPort{s}, x, params))
	case *sql.Delete:
		return dmlPlan(dml.PrepareDelete(ctx, dmlPort{s}, x, params))
	case *sql.Explain:
		return s.prepareExplain(ctx, x, params)
	case *sql.CreateTable:
		if x.Query != nil {
			return s.prepareCreateTableAs(ctx, x, params)
		}
		return s.prepareDDL(st)
	case *sql.CreateSchema, *sql.DropSchema, *sql.DropTable, *sql.AlterTableProperties, *sql.AlterTable, *sql.CreateView, *sql.DropView:
		return s.prepareDDL(st)
	case *sql.ShowTables, *sql.ShowSchemas, *sql.Describe, *sql.Show, *sql.ShowTable:
		return s.prepareShow(ctx, st)
	case *sql.Set, *sql.Reset, *sql.SetTransaction, *sql.Discard:
		return s.prepareSetting(st)
	case *sql.Deallocate:
		return s.prepareDeallocate(x)
	case *sql.PrepareStmt:
		return s.preparePrepare(x)
	case *sql.ExecuteStmt:
		return s.prepareExecute(x)
	case *sql.Begin, *sql.Commit, *sql.Rollback, *sql.Savepoint, *sql.ReleaseSavepoint:
		return s.prepareTransaction(st)
	case *sql.Update:
		return dmlPlan(dml.PrepareUpdate(ctx, dmlPort{s}, x, params))
	case *sql.Merge:
		return dmlPlan(dml.PrepareMerge(ctx, dmlPort{s}, x, params))
	case *sql.AlterExecute:
		return maintenancePlan(maintenance.PrepareExecute(ctx, maintenancePort{s}, x, params))
	case *sql.AlterRef:
		return planFunc(func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
			return maintenance.AlterRef(ctx, maintenancePort{s}, x)
		}), nil, nil
	case *sql.Vacuum:
		return maintenancePlan(maintenance.PrepareVacuum(ctx, maintenancePort{s}, x))
	case *sql.Analyze:
		return maintenancePlan(maintenance.PrepareAnalyze(ctx, maintenancePort{s}, x))
	case *sql.Truncate:
		return dmlPlan(dml.PrepareTruncate(ctx, dmlPort{s}, x))
	case *sql.Copy:
		return prepareCopy(ctx, s, x, params)
	case *sql.DeclareCursor:
		return s.prepareDeclare(ctx, x, params)
	case *sql.Fetch:
		return s.prepareFetch(x)
	case *sql.CloseCursor:
		return s.prepareClose(x)
	}
	return nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this statement is not supported")
}

// prepareSelect binds the query now, for its row description and for its
// executions while nothing it was bound over changes (queryPlan).
func (s *Session) prepareSelect(ctx context.Context, st *sql.Select, params *sql.Params) (plan, []stmt.Column, error) {
	if pl, cols, ok, err := s.prepareConstSelect(ctx, st, params); ok {
		return pl, cols, err
	}
	p, err := s.planQuery(ctx, st, params)
	if err != nil {
		return nil, nil, err
	}
	return p, p.cols, nil
}

// sameColumns refuses to run a prepared query whose table changed shape.
func sameColumns(want, got []stmt.Column) error {
	if len(want) != len(got) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	for i := range want {
		if want[i].Type != got[i].Type {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "cached plan must not change result type (column %q was %s, is %s)",
				want[i].Name, want[i].Type, got[i].Type)
		}
	}
	return nil
}

func notSupported(format string, args ...any) error {
	return pgerr.Errorf(pgerr.FeatureNotSupported, "%s", fmt.Sprintf(format, args...))
}
