package dml

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// rowSourceFunc produces an INSERT's rows at execution; done releases them.
type rowSourceFunc func(ctx context.Context, args []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error)

// overwritePlan is a bound INSERT OVERWRITE or INSERT ... REPLACE WHERE.
type overwritePlan struct {
	target *insertTarget
	del    *deletePlan // what goes: WHERE from REPLACE WHERE or PARTITION; nil where = everything
	source rowSourceFunc
	// fixed are the PARTITION (col = const) columns: index → bound constant.
	fixed   map[int]sql.Expr
	partial bool // PARTITION given: static over those partitions only
	replace bool // REPLACE WHERE
}

func (s session) planOverwrite(ctx context.Context, st *sql.Insert, params *sql.Params) (*overwritePlan, error) {
	if len(st.Returning) > 0 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "INSERT OVERWRITE ... RETURNING is not supported")
	}
	rt, err := s.ResolveTable(ctx, st.Table, true)
	if err != nil {
		return nil, err
	}
	if err := s.Writable(rt, "change", st.Table); err != nil {
		return nil, err
	}
	p := &overwritePlan{del: &deletePlan{rt: rt, scope: s.Scope(rt.Table, st.Table.Table)},
		fixed: map[int]sql.Expr{}, partial: len(st.Partition) > 0, replace: st.ReplaceWhere != nil}
	shaped := *st
	where := st.ReplaceWhere
	if p.partial {
		if where, err = p.bindPartition(st, &shaped, params); err != nil {
			return nil, err
		}
	}
	if where != nil {
		if sql.HasAggregate(where) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in WHERE")
		}
		if p.del.where, err = sql.BindCondition(where, p.del.scope, params, "WHERE"); err != nil {
			return nil, err
		}
	}
	if p.target, err = s.insertTarget(ctx, &shaped); err != nil {
		return nil, err
	}
	for c := range p.fixed {
		p.target.require[c] = false // the constant fills it; checked in bindPartition
	}
	if st.Query != nil {
		p.source, err = s.insertFromSelect(ctx, st.Query, p.target, params)
	} else {
		p.source, err = insertFromValues(st.Rows, p.target, params)
	}
	return p, err
}

// bindPartition binds PARTITION (col = const, ...): the constants fill those
// columns, the input supplies the others in table order, and the rows the
// constants select are what the overwrite replaces.
func (p *overwritePlan) bindPartition(st *sql.Insert, shaped *sql.Insert, params *sql.Params) (sql.Syntax, error) {
	var where sql.Syntax
	for _, pv := range st.Partition {
		if pv.Value == nil {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "PARTITION (%s) without a value (dynamic partition columns) is not supported; use SET partition_overwrite_mode = 'dynamic'", pv.Column)
		}
		idx := -1
		for i, c := range p.del.scope.Columns {
			if c.Name == pv.Column {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column %q of relation %q does not exist", pv.Column, st.Table.Table)
		}
		if _, dup := p.fixed[idx]; dup {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", pv.Column)
		}
		col := p.del.scope.Columns[idx]
		if !identityPartitioned(p.del.rt.Table, col.FieldID) {
			// Spark's rule: a static PARTITION value names a partition
			// column; anything else would silently act as REPLACE WHERE.
			return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "column %q is not an identity partition column of %q; use INSERT INTO ... REPLACE WHERE to replace rows by a condition", pv.Column, st.Table.Table)
		}
		e, err := sql.BindAssigned(pv.Value, nil, col, params)
		if err != nil {
			return nil, err
		}
		p.fixed[idx] = e
		where = sql.AndSyntax(where, sql.ColumnMatches(col.Name, pv.Value))
	}
	if len(st.Columns) == 0 {
		shaped.Columns = nil
		for i, c := range p.del.scope.Columns {
			if _, ok := p.fixed[i]; !ok {
				shaped.Columns = append(shaped.Columns, c.Name)
			}
		}
	}
	for _, name := range shaped.Columns {
		for i := range p.fixed {
			if p.del.scope.Columns[i].Name == name {
				return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q is both a PARTITION column and an insert column", name)
			}
		}
	}
	return where, nil
}

// dynamic reports whether this overwrite runs in dynamic partition mode.
func (p *overwritePlan) dynamic(s session) bool {
	if p.partial || p.replace {
		return false
	}
	mode, err := s.Setting("partition_overwrite_mode")
	// An unpartitioned table is one partition: dynamic overwrite replaces
	// all of it, as Spark's does.
	return err == nil && strings.EqualFold(mode, "dynamic") && !p.del.rt.Table.Spec().IsUnpartitioned()
}

func (s session) prepareOverwrite(ctx context.Context, st *sql.Insert, params *sql.Params) (Run, []stmt.Column, error) {
	k, _, err := keep(ctx, s, func(ctx context.Context, s session) (*overwritePlan, error) {
		return s.planOverwrite(ctx, st, params)
	})
	if err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s session, args []Param) (*stmt.Result, error) {
		if err := s.CheckWrite(); err != nil {
			return nil, err
		}
		p, err := k.take(ctx, s)
		if err != nil {
			return nil, err
		}
		out, err := s.runOverwrite(ctx, p, args, false)
		if err != nil {
			return nil, err
		}
		return overwriteResult(out), nil
	}
	return runOn(run), nil, nil
}

// runOverwrite runs (or, dry, plans) the overwrite through the engine.
func (s session) runOverwrite(ctx context.Context, p *overwritePlan, args []Param, dry bool) (deletes.OverwriteOutcome, error) {
	pred, err := p.del.predicate(ctx, args)
	if err != nil {
		return deletes.OverwriteOutcome{}, err
	}
	opts := deletes.OverwriteOptions{Options: s.DeleteOptions(dry), Dynamic: p.dynamic(s)}
	var rows deletes.RowSource
	if !dry {
		seq, done, err := p.source(ctx, args)
		if err != nil {
			return deletes.OverwriteOutcome{}, err
		}
		defer done()
		rows = p.withFixed(ctx, seq, args)
		if p.replace {
			rows = p.checkReplaced(ctx, rows, args)
		}
	}
	out, err := deletes.Overwrite(ctx, s.CommitTarget(), p.del.rt.Ident, pred, rows, opts)
	if errors.Is(err, deletes.ErrDynamicUnpartitioned) {
		return out, pgerr.Errorf(pgerr.FeatureNotSupported, "dynamic partition overwrite of unpartitioned table %q is not supported: set partition_overwrite_mode = 'static' or use INSERT OVERWRITE without dynamic mode",
			p.del.rt.Ident[len(p.del.rt.Ident)-1])
	}
	if err != nil {
		return out, fmt.Errorf("overwrite %s: %w", strings.Join(p.del.rt.Ident, "."), err)
	}
	return out, nil
}

// withFixed puts the PARTITION constants into their columns of each batch.
func (p *overwritePlan) withFixed(ctx context.Context, seq iter.Seq2[arrow.RecordBatch, error], args []Param) deletes.RowSource {
	if len(p.fixed) == 0 {
		return seq
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err == nil {
				b, err = p.fill(ctx, b, args)
			}
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
}

func (p *overwritePlan) fill(ctx context.Context, b arrow.RecordBatch, args []Param) (arrow.RecordBatch, error) {
	defer b.Release()
	cols := make([]arrow.Array, b.NumCols())
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for i := range cols {
		cols[i] = b.Column(i)
		if e, ok := p.fixed[i]; ok {
			arr, err := sql.Eval(ctx, e, b, args)
			if err != nil {
				return nil, err
			}
			made = append(made, arr)
			if p.del.rt.Table.Schema().Field(i).Required && arr.NullN() > 0 {
				return nil, &pgerr.Error{Code: pgerr.NotNullViolation,
					Message: fmt.Sprintf("null value in column %q violates not-null constraint", p.del.scope.Columns[i].Name)}
			}
			cols[i] = arr
		}
	}
	return array.NewRecordBatch(b.Schema(), cols, b.NumRows()), nil
}

// overwriteResult answers INSERT 0 n, the rows removed going in a NOTICE.
func overwriteResult(out deletes.OverwriteOutcome) *stmt.Result {
	res := stmt.TagOnly(fmt.Sprintf("INSERT 0 %d", out.Added))
	res.Notices = []stmt.Notice{stmt.NewNotice(fmt.Sprintf("%d rows removed", out.Deleted))}
	return res
}

// identityPartitioned reports whether the table's current spec partitions
// by the identity of field id.
func identityPartitioned(tbl *table.Table, id int) bool {
	spec := tbl.Spec()
	for _, f := range spec.FieldsBySourceID(id) {
		if _, ok := f.Transform.(iceberg.IdentityTransform); ok {
			return true
		}
	}
	return false
}

// checkReplaced fails the statement (23514, nothing written) at the first
// new row that REPLACE WHERE's condition does not hold for: the rows that
// replace the condition's rows must be rows the condition selects, or the
// next REPLACE WHERE would not see them (Delta's default check).
func (p *overwritePlan) checkReplaced(ctx context.Context, seq iter.Seq2[arrow.RecordBatch, error], args []Param) deletes.RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err == nil {
				err = p.replacedRowsHold(ctx, b, args)
				if err != nil {
					b.Release()
					b = nil
				}
			}
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
}

func (p *overwritePlan) replacedRowsHold(ctx context.Context, b arrow.RecordBatch, args []Param) error {
	mask, err := sql.Match(ctx, p.del.where, b, args)
	if err != nil {
		return err
	}
	for r, ok := range mask {
		if ok {
			continue
		}
		vals := make([]string, b.NumCols())
		for c := range vals {
			vals[c] = "null"
			if !b.Column(c).IsNull(r) {
				vals[c] = string(sql.AppendText(nil, p.del.scope.Columns[c].T, b.Column(c), r))
			}
		}
		return &pgerr.Error{Code: pgerr.CheckViolation,
			Message: fmt.Sprintf("new row for relation %q violates its REPLACE WHERE condition", p.del.rt.Ident[len(p.del.rt.Ident)-1]),
			Detail:  "Failing row contains (" + strings.Join(vals, ", ") + ")."}
	}
	return nil
}
