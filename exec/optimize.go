package exec

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	ice "github.com/apache/iceberg-go"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/exec/engine"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// ALTER TABLE t EXECUTE procedure (...) runs table maintenance. optimize is
// here; the other procedures Trino and Spark name are refused (0A000).

var optimizeColumns = []Column{
	{Name: "rewritten_data_files_count", Type: sql.Int64}, {Name: "added_data_files_count", Type: sql.Int64},
	{Name: "removed_delete_files_count", Type: sql.Int64}, {Name: "rewritten_rows_count", Type: sql.Int64},
	{Name: "rewritten_bytes_count", Type: sql.Int64}, {Name: "added_bytes_count", Type: sql.Int64},
}

func (s *Session) prepareAlterExecute(ctx context.Context, st *sql.AlterExecute, params *sql.Params) (plan, []Column, error) {
	switch strings.ToLower(st.Procedure) {
	case "optimize":
	case "expire_snapshots":
		return s.prepareExpire(ctx, st, params)
	case "remove_orphan_files":
		return s.prepareRemoveOrphans(ctx, st, params)
	case "rollback_to_snapshot":
		return s.prepareRollback(ctx, st, params)
	case "fast_forward":
		return s.prepareFastForward(ctx, st, params)
	case "cherrypick_snapshot":
		return s.prepareCherrypick(ctx, st, params)
	case "set_current_snapshot":
		return s.prepareSetCurrent(ctx, st, params)
	case "rewrite_manifests":
		return s.prepareRewriteManifests(ctx, st)
	default:
		return nil, nil, notSupported("ALTER TABLE ... EXECUTE %s is not supported yet", st.Procedure)
	}
	if _, _, err := s.optimizeOptions(ctx, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if s.tx.active {
			return nil, pgerr.Errorf(pgerr.ActiveSQLTransaction, "ALTER TABLE ... EXECUTE optimize cannot run inside a transaction block")
		}
		if err := s.tx.checkWrite(); err != nil {
			return nil, err
		}
		rt, opts, err := s.optimizeOptions(ctx, st, params, args)
		if err != nil {
			return nil, err
		}
		out, err := deletes.Optimize(ctx, s.commitTarget(), rt.Ident, opts)
		if err != nil {
			return nil, err
		}
		row := []any{int64(out.RewrittenFiles), int64(out.AddedFiles), int64(out.RemovedDeleteFiles),
			out.RewrittenRows, out.RewrittenBytes, out.AddedBytes}
		return datumResult("ALTER TABLE", optimizeColumns, row)
	}
	return planFunc(run), optimizeColumns, nil
}

// optimizeOptions resolves the table and reads the procedure's arguments
// (file_size_threshold => '128MB', delete_ratio_threshold => 0.1) and its
// WHERE, which must be a condition Iceberg can prune files by.
func (s *Session) optimizeOptions(ctx context.Context, st *sql.AlterExecute, params *sql.Params, args []Param) (*resolvedTable, deletes.OptimizeOptions, error) {
	opts := deletes.OptimizeOptions{Options: s.deleteOptions(false), SizeThreshold: deletes.DefaultSizeThreshold,
		RatioThreshold: deletes.DefaultRatioThreshold, Filter: ice.AlwaysTrue{}}
	rt, err := s.resolveTable(ctx, st.Table)
	if err != nil {
		return nil, opts, err
	}
	if err := writableTable(rt, "optimize", st.Table); err != nil {
		return nil, opts, err
	}
	for name, n := range st.Args {
		v, err := constText(ctx, n, params, args)
		if err != nil {
			return nil, opts, err
		}
		switch strings.ToLower(name) {
		case "file_size_threshold":
			if opts.SizeThreshold, err = ParseByteSize(v); err != nil {
				return nil, opts, err
			}
		case "delete_ratio_threshold":
			if opts.RatioThreshold, err = parseRatio(v); err != nil {
				return nil, opts, err
			}
		default:
			return nil, opts, pgerr.Errorf(pgerr.InvalidParameterValue, "optimize has no argument %q (file_size_threshold, delete_ratio_threshold)", name)
		}
	}
	if st.Where != nil {
		scope := tableScope(rt.Table, st.Table.Table)
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

// constText evaluates a procedure argument (a constant) as text.
func constText(ctx context.Context, n ast.ExprNode, params *sql.Params, args []Param) (string, error) {
	e, err := sql.Bind(n, &sql.Scope{}, params)
	if err != nil {
		return "", err
	}
	arr, err := sql.Eval(ctx, &sql.Cast{X: e, T: sql.Text}, nil, args)
	if err != nil {
		return "", err
	}
	defer arr.Release()
	v, _ := sql.DatumAt(arr, sql.Text, 0).(string)
	return v, nil
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

// parseRatio reads a delete ratio threshold, a number from 0 to 1.
func parseRatio(v string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || r < 0 || r > 1 {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "delete_ratio_threshold must be a number between 0 and 1, not %q", v)
	}
	return r, nil
}

// datumResult is a one-row result.
func datumResult(tag string, cols []Column, row []any) (*Result, error) {
	ecols := make([]engine.Column, len(cols))
	for i, c := range cols {
		ecols[i] = engine.Column{Name: c.Name, Type: c.Type}
	}
	b, err := engine.DatumBatch(ecols, [][]any{row})
	if err != nil {
		return nil, err
	}
	br := engine.NewBatchRows(tag, []arrow.RecordBatch{b})
	br.SetTag(tag)
	return &Result{Columns: cols, Rows: br}, nil
}
