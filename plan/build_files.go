package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// fileFunctions are the table functions that read files.
var fileFunctions = map[string]bool{"read_csv": true, "read_csv_auto": true, "read_parquet": true, "parquet_scan": true}

// fromFiles plans read_csv(path, name = value, ...) or read_parquet(...).
func (p *Builder) fromFiles(call sql.Syntax, alias string) (Node, error) {
	fc, err := p.fileCall(call)
	if err != nil {
		return nil, err
	}
	if p.env.Files == nil {
		return nil, pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to read files with %s", fc.Function)
	}
	rel, err := p.env.Files.OpenFiles(p.ctx, fc)
	if err != nil {
		return nil, err
	}
	src := &Files{Rel: rel, Sc: &sql.Scope{}}
	for i, c := range rel.Columns() {
		src.Cols = append(src.Cols, i)
		src.Sc.Columns = append(src.Sc.Columns, sql.ScopeColumn{Table: alias, Name: c.Name, T: c.Type})
	}
	return src, nil
}

// fileCall evaluates a file function's arguments: one path, then named
// options. They must be constants, since the files' columns are part of
// the statement's description.
func (p *Builder) fileCall(call sql.Syntax) (FileCall, error) {
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
func (p *Builder) constArgument(n sql.Syntax, fn string) (any, error) {
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
