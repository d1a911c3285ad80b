package maintenance

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// orphanRetention is how old an unreferenced file must be before VACUUM
// deletes it (Trino's and Spark's default).
const orphanRetention = 7 * 24 * time.Hour

var orphanColumns = []stmt.Column{{Name: "deleted_files_count", Type: sql.Int64}, {Name: "deleted_bytes_count", Type: sql.Int64}}

// prepareRemoveOrphans plans ALTER TABLE t EXECUTE remove_orphan_files
// [(retention_threshold => '7d')].
func prepareRemoveOrphans(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	if _, _, err := orphanOptions(ctx, p, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE remove_orphan_files"); err != nil {
			return nil, err
		}
		rt, age, err := orphanOptions(ctx, p, st, params, args)
		if err != nil {
			return nil, err
		}
		out, err := p.Warehouse().Maintenance().RemoveOrphanFiles(ctx, rt.Ident, age)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", orphanColumns, []any{int64(out.DeletedFiles), out.DeletedBytes})
	}
	return run, orphanColumns, nil
}

func orphanOptions(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params, args []any) (*plan.Table, time.Duration, error) {
	rt, err := p.TableItself(ctx, st.Table)
	if err != nil {
		return nil, 0, err
	}
	age := orphanRetention
	for name, n := range st.Args {
		if !strings.EqualFold(name, "retention_threshold") {
			return nil, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "remove_orphan_files has no argument %q (retention_threshold)", name)
		}
		v, err := sql.ConstText(ctx, n, params, args)
		if err != nil {
			return nil, 0, err
		}
		if age, err = parseRetention(v); err != nil {
			return nil, 0, err
		}
		if err := checkOrphanRetention(p, v, age); err != nil {
			return nil, 0, err
		}
	}
	if st.Where != nil {
		return nil, 0, pgerr.Errorf(pgerr.SyntaxError, "remove_orphan_files takes no WHERE")
	}
	return rt, age, nil
}

// OrphanMinRetentionSetting is the shortest retention_threshold
// remove_orphan_files accepts (Trino's remove_orphan_files_min_retention):
// a younger unreferenced file may be another server's commit in flight,
// which removing would destroy. This server's own writers are protected
// whatever it says (lake.Writes).
const OrphanMinRetentionSetting = "magmalake.remove_orphan_files_min_retention"

// CheckMinRetention validates the setting's value.
func CheckMinRetention(v string) (string, error) {
	if _, err := parseRetention(v); err != nil {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", OrphanMinRetentionSetting, v)
	}
	return strings.TrimSpace(v), nil
}

// checkOrphanRetention refuses a retention_threshold below the session's
// minimum, saying how to override it.
func checkOrphanRetention(p Port, given string, age time.Duration) error {
	v, err := p.Setting(OrphanMinRetentionSetting)
	if err != nil {
		return err
	}
	least, err := parseRetention(v)
	if err != nil || age >= least {
		return err
	}
	return &pgerr.Error{Code: pgerr.InvalidParameterValue,
		Message: fmt.Sprintf("retention_threshold %q is shorter than the minimum retention for remove_orphan_files (%s)", given, v),
		Detail:  "An unreferenced file younger than that may belong to a commit another server or shell is making now; removing it would break the table. This server's own statements are protected whatever the threshold.",
		Hint:    fmt.Sprintf("If no other process writes this table, SET %s = '%s' first.", OrphanMinRetentionSetting, given)}
}
