package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// FileReader opens the files read_csv and read_parquet name in FROM. The
// session implements it: it decides which paths a client may read and how
// each format is parsed; the engine only sees columns and batches.
type FileReader interface {
	OpenFiles(ctx context.Context, call FileCall) (FileRelation, error)
}

// FileCall is one read_csv/read_parquet call with its arguments evaluated.
type FileCall struct {
	Function string // as called: read_csv, read_csv_auto, read_parquet, parquet_scan
	Path     string // a path or a glob pattern, as given
	// Options are the named arguments (DuckDB's name = value, or
	// PostgreSQL's name => value): string, int64, float64 or bool values.
	Options map[string]any
}

// FileRelation is the rows of the files one call named: columns known when
// the statement is planned, rows read when it runs.
type FileRelation interface {
	Columns() []Column
	// Batches streams the given columns, in that order, typed as Columns
	// says. With no columns the batches still carry the row counts.
	Batches(ctx context.Context, cols []int) (iter.Seq2[arrow.RecordBatch, error], error)
}

// fileFunctions are the table functions that read files.
var fileFunctions = map[string]bool{"read_csv": true, "read_csv_auto": true, "read_parquet": true, "parquet_scan": true}

// fileSource is a FileRelation as a FROM item.
type fileSource struct {
	rel  FileRelation
	cols []int
	sc   *sql.Scope
}

// fromFiles plans read_csv(path, name = value, ...) or read_parquet(...).
func (p *planner) fromFiles(call sql.Syntax, alias string) (source, error) {
	fc, err := p.fileCall(call)
	if err != nil {
		return nil, err
	}
	if p.env.Files == nil {
		return nil, pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to read files with %s", fc.Function)
	}
	p.env.bindsOutside()
	rel, err := p.env.Files.OpenFiles(p.ctx, fc)
	if err != nil {
		return nil, err
	}
	src := &fileSource{rel: rel, sc: &sql.Scope{}}
	for i, c := range rel.Columns() {
		src.cols = append(src.cols, i)
		src.sc.Columns = append(src.sc.Columns, sql.ScopeColumn{Table: alias, Name: c.Name, T: c.Type})
	}
	return src, nil
}

// fileCall evaluates a file function's arguments: one path, then named
// options. They must be constants, since the files' columns are part of
// the statement's description.
func (p *planner) fileCall(call sql.Syntax) (FileCall, error) {
	fn, args, _ := sql.CallOf(call)
	fc := FileCall{Function: fn, Options: map[string]any{}}
	var positional []sql.Syntax
	for _, a := range args {
		if name, value, ok := sql.NamedArgument(a); ok {
			if _, dup := fc.Options[name]; dup {
				return fc, pgerr.Errorf(pgerr.SyntaxError, "option %q of %s is given more than once", name, fc.Function)
			}
			v, err := p.constArgument(value, fc.Function)
			if err != nil {
				return fc, err
			}
			fc.Options[name] = v
			continue
		}
		positional = append(positional, a)
	}
	if len(positional) != 1 {
		return fc, pgerr.Errorf(pgerr.UndefinedFunction, "function %s takes one file path or pattern and named options (name = value), not %d positional arguments", fc.Function, len(positional))
	}
	v, err := p.constArgument(positional[0], fc.Function)
	if err != nil {
		return fc, err
	}
	path, ok := v.(string)
	if !ok || path == "" {
		return fc, pgerr.Errorf(pgerr.InvalidParameterValue, "the first argument of %s must be a file path or pattern", fc.Function)
	}
	fc.Path = path
	return fc, nil
}

// constArgument evaluates a constant argument to a Go value.
func (p *planner) constArgument(n sql.Syntax, fn string) (any, error) {
	if sql.HasParameter(n) {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "the arguments of %s must be constants, not parameters", fn)
	}
	e, err := sql.BindUntyped(n, &sql.Scope{}, p.params)
	if err != nil {
		return nil, err
	}
	t := e.Type()
	if t.Kind == sql.KindUnknown {
		t = sql.Text
	}
	arr, err := sql.Eval(p.ctx, e, nil, nil)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return sql.DatumAt(arr, t, 0), nil
}

func (f *fileSource) scope() *sql.Scope { return f.sc }

func (f *fileSource) project(cols []int) source {
	q := &fileSource{rel: f.rel, sc: &sql.Scope{Aliased: f.sc.Aliased}}
	for _, c := range cols {
		q.cols = append(q.cols, f.cols[c])
		q.sc.Columns = append(q.sc.Columns, f.sc.Columns[c])
	}
	return q
}

func (f *fileSource) batches(ctx context.Context, _ iceberg.BooleanExpression, _ []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return f.rel.Batches(ctx, f.cols)
}

// TypeFromArrow is the SQL type of a column of the executor's Arrow type
// dt (a scan's or a file reader's contract types).
func TypeFromArrow(dt arrow.DataType) sql.Type { return typeFromArrow(dt) }
