package maintenance

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

var expireColumns = []stmt.Column{
	{Name: "expired_snapshots_count", Type: sql.Int64}, {Name: "deleted_files_count", Type: sql.Int64},
	{Name: "deleted_bytes_count", Type: sql.Int64},
}

// prepareExpire plans ALTER TABLE t EXECUTE expire_snapshots
// [(retention_threshold => '7d', retain_last => 1)].
func prepareExpire(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	if _, _, _, err := expireOptions(ctx, p, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE expire_snapshots"); err != nil {
			return nil, err
		}
		rt, age, keep, err := expireOptions(ctx, p, st, params, args)
		if err != nil {
			return nil, err
		}
		out, err := p.Warehouse().Maintenance().ExpireSnapshots(ctx, rt.Ident, age, keep)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", expireColumns, []any{int64(out.ExpiredSnapshots), int64(out.DeletedFiles), out.DeletedBytes})
	}
	return run, expireColumns, nil
}

func expireOptions(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params, args []any) (*plan.Table, time.Duration, int, error) {
	rt, err := p.TableItself(ctx, st.Table)
	if err != nil {
		return nil, 0, 0, err
	}
	age, keep := 7*24*time.Hour, 1
	for name, n := range st.Args {
		v, err := sql.ConstText(ctx, n, params, args)
		if err != nil {
			return nil, 0, 0, err
		}
		switch strings.ToLower(name) {
		case "retention_threshold", "older_than":
			if age, err = parseRetention(v); err != nil {
				return nil, 0, 0, err
			}
		case "retain_last":
			if keep, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || keep < 1 {
				return nil, 0, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "retain_last must be a whole number of at least 1, not %q", v)
			}
		default:
			return nil, 0, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "expire_snapshots has no argument %q (retention_threshold, retain_last)", name)
		}
	}
	if st.Where != nil {
		return nil, 0, 0, pgerr.Errorf(pgerr.SyntaxError, "expire_snapshots takes no WHERE")
	}
	return rt, age, keep, nil
}

// parseRetention reads '7d', '12h', '30m', '0s', '1.5d' (Trino's units) or
// a Go duration.
func parseRetention(v string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ToLower(v))
	if strings.HasSuffix(t, "d") {
		if n, err := strconv.ParseFloat(strings.TrimSuffix(t, "d"), 64); err == nil && n >= 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	if d, err := time.ParseDuration(t); err == nil && d >= 0 {
		return d, nil
	}
	return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "retention_threshold must be a duration such as '7d' or '12h', not %q", v)
}
