package maintenance

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// PrepareExecute plans ALTER TABLE t EXECUTE procedure (...), table
// maintenance; the procedures Trino and Spark name that are not here are
// refused (0A000).
func PrepareExecute(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	switch strings.ToLower(st.Procedure) {
	case "optimize":
		return prepareOptimize(ctx, p, st, params)
	case "expire_snapshots":
		return prepareExpire(ctx, p, st, params)
	case "remove_orphan_files":
		return prepareRemoveOrphans(ctx, p, st, params)
	case "rollback_to_snapshot":
		return prepareRollback(ctx, p, st, params)
	case "fast_forward":
		return prepareFastForward(st, params)
	case "cherrypick_snapshot":
		return prepareCherrypick(ctx, p, st, params)
	case "set_current_snapshot":
		return prepareSetCurrent(st, params)
	case "rewrite_manifests":
		return prepareRewriteManifests(ctx, p, st)
	}
	return nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ALTER TABLE ... EXECUTE %s is not supported yet", st.Procedure)
}

// datumResult is a one-row result.
func datumResult(tag string, cols []stmt.Column, row []any) (*stmt.Result, error) {
	ecols := make([]sql.Column, len(cols))
	for i, c := range cols {
		ecols[i] = sql.Column{Name: c.Name, Type: c.Type}
	}
	b, err := sql.DatumBatch(ecols, [][]any{row})
	if err != nil {
		return nil, err
	}
	br := engine.NewBatchRows(tag, []arrow.RecordBatch{b})
	br.SetTag(tag)
	return &stmt.Result{Columns: cols, Rows: br}, nil
}
