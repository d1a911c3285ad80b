package maintenance

import (
	"context"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

var rewriteManifestsColumns = []stmt.Column{{Name: "rewritten_manifests_count", Type: sql.Int64}, {Name: "added_manifests_count", Type: sql.Int64}}

// prepareRewriteManifests plans ALTER TABLE t EXECUTE rewrite_manifests:
// the current snapshot's manifests rewritten to the target size, grouped
// by partition spec (Spark's procedure of that name; its result columns).
func prepareRewriteManifests(ctx context.Context, p Port, st *sql.AlterExecute) (Run, []stmt.Column, error) {
	if _, err := rewriteManifestsTarget(ctx, p, st); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, p Port, _ []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE rewrite_manifests"); err != nil {
			return nil, err
		}
		rt, err := rewriteManifestsTarget(ctx, p, st)
		if err != nil {
			return nil, err
		}
		out, err := p.Warehouse().Maintenance().RewriteManifests(ctx, rt.Ident)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", rewriteManifestsColumns, []any{int64(out.ReplacedManifests), int64(out.AddedManifests)})
	}
	return run, rewriteManifestsColumns, nil
}

func rewriteManifestsTarget(ctx context.Context, p Port, st *sql.AlterExecute) (*plan.Table, error) {
	rt, err := p.TableItself(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	for name := range st.Args {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "rewrite_manifests has no argument %q", name)
	}
	if st.Where != nil {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "rewrite_manifests takes no WHERE")
	}
	return rt, nil
}
