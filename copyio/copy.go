package copyio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Prepare plans COPY ... FROM STDIN and COPY ... TO STDOUT. Neither has a
// row description: the wire layer answers CopyIn/CopyOutResponse instead.
func Prepare(ctx context.Context, p Port, st *sql.Copy, params *sql.Params) (Plan, error) {
	if st.Format == "binary" {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY with FORMAT binary is not supported; use text or csv")
	}
	f, err := newCopyFormat(st)
	if err != nil {
		return nil, err
	}
	if st.From {
		return prepareFrom(ctx, p, st, f)
	}
	return prepareTo(ctx, p, st, f, params)
}

// prepareFrom checks the target now so that a bad table or column fails
// before the client starts sending data.
func prepareFrom(ctx context.Context, p Port, st *sql.Copy, f copyFormat) (Plan, error) {
	ins := &sql.Insert{Table: st.Table, Columns: st.Columns}
	if _, err := p.InsertTarget(ctx, ins); err != nil {
		return nil, err
	}
	run := func(ctx context.Context, p Port, _ []any) (*stmt.Result, error) {
		if err := p.CheckWrite(); err != nil {
			return nil, err
		}
		target, err := p.InsertTarget(ctx, ins)
		if err != nil {
			return nil, err
		}
		load := func(ctx context.Context, r io.Reader) (int64, error) {
			n, err := copyFrom(ctx, p, target, f, st.Table.String(), r)
			if err != nil {
				return 0, p.FailLoad(err)
			}
			return n, nil
		}
		return &stmt.Result{CopyIn: &stmt.CopyIn{Columns: target.Width, Load: load}}, nil
	}
	return run, nil
}

// copyFrom streams the input into data files in batches and commits them as
// one append; any bad row aborts the whole load and its files are removed.
func copyFrom(ctx context.Context, p Port, t *Target, f copyFormat, name string, r io.Reader) (int64, error) {
	rd := newCopyReader(r, f)
	ld := &copyLoader{t: t, rd: rd, name: name, batch: p.BatchSize(), input: p.InputStyle()}
	defaults, err := columnDefaults(ctx, t.Scope, t.Feeds)
	if err != nil {
		return 0, err
	}
	defer releaseArrays(defaults)
	ld.defaults = defaults
	return t.Append(ctx, ld.batches(ctx))
}

// columnDefaults evaluates the defaults of the columns not fed (feeds[i] <
// 0), nil where NULL.
func columnDefaults(ctx context.Context, scope *sql.Scope, feeds []int) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(scope.Columns))
	for i, c := range scope.Columns {
		if feeds[i] >= 0 {
			continue
		}
		d, err := c.DefaultValue()
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		if d.Value == nil {
			continue
		}
		arr, err := sql.Eval(ctx, d, nil, nil)
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		out[i] = arr
	}
	return out, nil
}

// copyLoader turns COPY records into table-shaped batches.
type copyLoader struct {
	t     *Target
	rd    *copyReader
	name  string // table name as the statement spelled it, for messages
	batch int
	input sql.InputStyle // the session's DateStyle, for date/time fields
	// defaults are what columns the COPY does not list get (nil: NULL).
	defaults []arrow.Array
}

func (l *copyLoader) batches(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, pgerr.Canceled(err))
				return
			}
			b, err := l.next()
			if err != nil {
				yield(nil, err)
				return
			}
			if b == nil {
				return
			}
			if !yield(b, nil) {
				return
			}
		}
	}
}

// next reads up to one batch of records; nil at the end of the input.
func (l *copyLoader) next() (arrow.RecordBatch, error) {
	bld := array.NewRecordBuilder(memory.DefaultAllocator, l.t.Schema)
	defer bld.Release()
	rows := 0
	for rows < l.batch {
		fields, err := l.rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, l.lineError(err, "")
		}
		if err := l.appendRecord(bld, fields); err != nil {
			return nil, err
		}
		rows++
	}
	if rows == 0 {
		return nil, nil
	}
	return bld.NewRecordBatch(), nil
}

// appendRecord converts one record's fields with the columns' input rules.
func (l *copyLoader) appendRecord(bld *array.RecordBuilder, fields []copyField) error {
	width := l.t.Width
	if len(fields) > width {
		return l.lineError(pgerr.Errorf(pgerr.BadCopyFileFormat, "extra data after last expected column"), "")
	}
	if len(fields) < width {
		return l.lineError(pgerr.Errorf(pgerr.BadCopyFileFormat, "missing data for column %q", l.inputColumn(len(fields))), "")
	}
	for c, feed := range l.t.Feeds {
		col := l.t.Scope.Columns[c]
		if feed < 0 && l.defaults[c] != nil {
			if err := engine.AppendFrom(bld.Field(c), l.defaults[c], 0); err != nil {
				return l.lineError(err, col.Name)
			}
			continue
		}
		if feed < 0 || fields[feed].null {
			if l.t.Require[c] {
				return l.lineError(&pgerr.Error{Code: pgerr.NotNullViolation,
					Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", col.Name, l.t.Relation)}, "")
			}
			bld.Field(c).AppendNull()
			continue
		}
		if err := appendCopyValue(bld.Field(c), col.T, fields[feed].val, l.input); err != nil {
			return l.lineError(err, col.Name)
		}
	}
	return nil
}

// appendCopyValue reads text with the column type's input function. Strings
// go through CoerceText first: AppendValue would cast them, truncating
// varchar(n), where input must fail.
func appendCopyValue(b array.Builder, t sql.Type, text string, in sql.InputStyle) error {
	if t.IsString() {
		if _, err := in.CoerceText(text, t); err != nil {
			return err
		}
	}
	return in.AppendValue(b, t, text)
}

// inputColumn names the table column fed by input field k.
func (l *copyLoader) inputColumn(k int) string {
	for c, feed := range l.t.Feeds {
		if feed == k {
			return l.t.Scope.Columns[c].Name
		}
	}
	return fmt.Sprint(k + 1)
}

// lineError prefixes err with the line (and column) it happened on, as
// PostgreSQL's COPY CONTEXT does, keeping err's SQLSTATE.
func (l *copyLoader) lineError(err error, column string) error {
	where := fmt.Sprintf("COPY %s, line %d", l.name, l.rd.line)
	if column != "" {
		where += ", column " + column
	}
	var se *pgerr.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %w", where, err)
	}
	out := *se
	out.Message = where + ": " + se.Message
	out.Err = err
	return &out
}

// prepareTo plans COPY t|(query) TO STDOUT through the SELECT path.
func prepareTo(ctx context.Context, p Port, st *sql.Copy, f copyFormat, params *sql.Params) (Plan, error) {
	q := st.Query
	if q == nil {
		var err error
		if q, err = copySelect(ctx, p, st); err != nil {
			return nil, err
		}
	}
	sel, err := p.PrepareQuery(ctx, q, params)
	if err != nil {
		return nil, err
	}
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		res, err := p.RunQuery(ctx, sel, args)
		if err != nil {
			return nil, err
		}
		res.CopyOut, res.CopyCSV, res.CopyFormat = true, f.csv, f.output()
		return res, nil
	}
	return run, nil
}

// copySelect is the query COPY t [(cols)] TO STDOUT stands for.
func copySelect(ctx context.Context, p Port, st *sql.Copy) (*sql.Select, error) {
	rt, err := p.ResolveTable(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	q := &sql.Select{From: &sql.TableRef{Name: st.Table}}
	if len(st.Columns) == 0 {
		q.Items = []sql.SelectItem{{Star: true}}
		return q, nil
	}
	cols, err := copyableColumns(ctx, rt)
	if err != nil {
		return nil, err
	}
	for _, name := range st.Columns {
		if !slices.Contains(cols, name) {
			return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, st.Table.Table)
		}
		q.Items = append(q.Items, sql.SelectItem{Expr: plan.ColumnRefNode(sql.ScopeColumn{Name: name})})
	}
	return q, nil
}

// copyableColumns are the columns COPY rt (cols) TO may name: a metadata
// table's own ("t$snapshots" (operation)), else the table's.
func copyableColumns(ctx context.Context, rt *plan.Table) ([]string, error) {
	var names []string
	if rt.Meta != "" {
		cols, err := engine.MetaColumns(ctx, rt)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			names = append(names, c.Name)
		}
		return names, nil
	}
	for _, f := range rt.Table.Schema().Fields() {
		names = append(names, f.Name)
	}
	return names, nil
}

// releaseArrays releases the arrays that are set.
func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
