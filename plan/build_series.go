package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// setReturning recognises a set-returning function in FROM, which the
// front end hands over as (SELECT f(...) AS col) AS alias.
func (p *Builder) setReturning(st *sql.Select, alias string, outer *sql.Outer) (Node, bool, error) {
	if !st.Parsed() || st.HasFrom() || len(st.Items) != 1 || st.Items[0].Star || st.Where != nil {
		return nil, false, nil
	}
	call := st.Items[0].Expr
	name, _, ok := sql.CallOf(call)
	if !ok {
		return nil, false, nil
	}
	if fileFunctions[name] {
		src, err := p.fromFiles(call, alias)
		return src, true, err
	}
	switch name {
	case "generate_series":
		src, err := p.series(call, alias, st.Items[0].Alias, outer)
		return src, true, err
	case "unnest":
		src, err := p.fromSRF(call, alias, st.Items[0].Alias, outer)
		return src, true, err
	}
	return nil, false, nil
}

// fromSRF is a set-returning function in FROM other than generate_series:
// its values over one empty row, in a column named for the alias.
func (p *Builder) fromSRF(call sql.Syntax, alias, col string, outer *sql.Outer) (Node, error) {
	c, err := p.bindSRF(call, &sql.Scope{Outer: outer})
	if err != nil {
		return nil, err
	}
	if col == "" {
		col = alias
	}
	src := newSRF(OneRow{}, []SRFCall{c}, map[sql.Syntax]int{call: 0})
	sc := &sql.Scope{Columns: []sql.ScopeColumn{{Table: alias, Name: col, T: c.T}}}
	return &Rename{Input: src, Sc: sc}, nil
}

func (p *Builder) series(call sql.Syntax, alias, col string, outer *sql.Outer) (Node, error) {
	_, callArgs, _ := sql.CallOf(call)
	if len(callArgs) < 2 || len(callArgs) > 3 {
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(callArgs))
	}
	var args []sql.Expr
	for _, a := range callArgs {
		e, err := sql.BindUntyped(a, &sql.Scope{Outer: outer}, p.params)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if timeSeries(args) {
		return p.fromSRF(call, alias, col, outer)
	}
	t, err := sql.CommonType(args, "generate_series")
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case sql.KindInt16:
		t = sql.Int32
	case sql.KindInt32, sql.KindInt64:
	case sql.KindNumeric:
		t = sql.Type{Kind: sql.KindNumeric}
	case sql.KindText:
		t = sql.Int32 // untyped literals: generate_series(integer, integer)
	default:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "generate_series over %s is not supported yet", t)
	}
	for i, a := range args {
		if args[i], err = sql.CoerceTo(a, t, p.params); err != nil {
			return nil, err
		}
	}
	if col == "" {
		col = alias
	}
	sc := &sql.Scope{Columns: []sql.ScopeColumn{{Table: alias, Name: col, T: t}}}
	return &Series{Args: args, T: t, Sc: sc}, nil
}
