package maintenance

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

var optimizeColumns = []stmt.Column{
	{Name: "rewritten_data_files_count", Type: sql.Int64}, {Name: "added_data_files_count", Type: sql.Int64},
	{Name: "removed_delete_files_count", Type: sql.Int64}, {Name: "rewritten_rows_count", Type: sql.Int64},
	{Name: "rewritten_bytes_count", Type: sql.Int64}, {Name: "added_bytes_count", Type: sql.Int64},
}

// prepareOptimize plans ALTER TABLE t EXECUTE optimize [(...)] [WHERE ...]:
// the files of the session's branch of t that pass the thresholds are
// rewritten without their deleted rows.
func prepareOptimize(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	if _, _, err := optimizeOptions(ctx, p, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE optimize"); err != nil {
			return nil, err
		}
		rt, opts, err := optimizeOptions(ctx, p, st, params, args)
		if err != nil {
			return nil, err
		}
		out, err := deletes.Optimize(ctx, p.CommitTarget(), rt.Ident, opts)
		if err != nil {
			return nil, err
		}
		row := []any{int64(out.RewrittenFiles), int64(out.AddedFiles), int64(out.RemovedDeleteFiles),
			out.RewrittenRows, out.RewrittenBytes, out.AddedBytes}
		res, err := datumResult("ALTER TABLE", optimizeColumns, row)
		if err != nil {
			return nil, err
		}
		// The rewrite has committed: a failure to keep its statistics is a
		// warning, not the statement's failure.
		if err := refreshStatistics(ctx, p.Warehouse(), rt.Ident, out.SnapshotID); err != nil {
			res.Notices = append(res.Notices, statisticsWarning(err))
		}
		return res, nil
	}
	return run, optimizeColumns, nil
}

// optimizeOptions resolves the table and reads the procedure's arguments
// (file_size_threshold => '128MB', delete_ratio_threshold => 0.1) and its
// WHERE, which must be a condition Iceberg can prune files by.
func optimizeOptions(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params, args []any) (*plan.Table, deletes.OptimizeOptions, error) {
	opts := deletes.OptimizeOptions{Options: p.DeleteOptions(), SizeThreshold: deletes.DefaultSizeThreshold,
		RatioThreshold: deletes.DefaultRatioThreshold, Filter: iceberg.AlwaysTrue{}}
	rt, err := p.WritableTable(ctx, st.Table, "optimize")
	if err != nil {
		return nil, opts, err
	}
	for name, n := range st.Args {
		v, err := sql.ConstText(ctx, n, params, args)
		if err != nil {
			return nil, opts, err
		}
		switch strings.ToLower(name) {
		case "file_size_threshold":
			if opts.SizeThreshold, err = ParseByteSize(v); err != nil {
				return nil, opts, err
			}
		case "delete_ratio_threshold":
			if opts.RatioThreshold, err = ParseRatio(v); err != nil {
				return nil, opts, err
			}
		default:
			return nil, opts, pgerr.Errorf(pgerr.InvalidParameterValue, "optimize has no argument %q (file_size_threshold, delete_ratio_threshold)", name)
		}
	}
	if st.Where != nil {
		scope := p.Scope(rt.Table, st.Table.Table)
		where, err := sql.BindCondition(st.Where, scope, params, "WHERE")
		if err != nil {
			return nil, opts, err
		}
		tr := sql.Translate(ctx, where, scope, args)
		if !tr.Exact {
			return nil, opts, pgerr.Errorf(pgerr.FeatureNotSupported, "optimize's WHERE must be a condition on columns Iceberg can evaluate per file, not %s", where)
		}
		opts.Filter = tr.Filter
	}
	return rt, opts, nil
}

// ParseByteSize reads 1048576, '128MB', '1 GB', '512kB' as bytes.
func ParseByteSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40}, {"b", 1}} {
		if strings.HasSuffix(strings.ToLower(s), u.suffix) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n < 0 {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "file_size_threshold must be a size such as '128MB', not %q", v)
	}
	return int64(n * float64(mult)), nil
}

// ParseRatio reads a delete ratio threshold, a number from 0 to 1.
func ParseRatio(v string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || r < 0 || r > 1 {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "delete_ratio_threshold must be a number between 0 and 1, not %q", v)
	}
	return r, nil
}
