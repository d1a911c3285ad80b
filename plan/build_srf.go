package plan

import (
	"slices"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// srfNames are the set-returning functions a select list may call.
var srfNames = map[string]bool{"generate_series": true, "unnest": true, "_pg_expandarray": true}

// selectListSRFs puts the set-returning calls of st's select list in an
// SRF node over src, whose scope binds each call to its hidden column.
// Calls written the same way are one call (PostgreSQL runs them in
// lockstep, which for identical calls is the same rows).
func (p *Builder) selectListSRFs(st *sql.Select, src Node, outer *sql.Outer) (Node, error) {
	if !st.Parsed() {
		return src, nil
	}
	var calls []sql.Syntax
	for _, it := range st.Items {
		if it.Expr == nil {
			continue
		}
		calls = append(calls, sql.CallsNamed(it.Expr, srfNames)...)
	}
	if len(calls) == 0 {
		return src, nil
	}
	if len(st.GroupBy) > 0 || st.GroupingSets != nil || st.Having != nil || sql.HasAggregate(itemExprs(st)...) {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning functions in a grouped select list are not supported")
	}
	sc := withOuter(src.Scope(), outer)
	var distinct []SRFCall
	column := map[sql.Syntax]int{}
	for _, call := range calls {
		c, err := p.bindSRF(call, sc)
		if err != nil {
			return nil, err
		}
		k := slices.IndexFunc(distinct, func(d SRFCall) bool { return d.key() == c.key() })
		if k < 0 {
			k = len(distinct)
			distinct = append(distinct, c)
		}
		column[call] = k
	}
	return newSRF(src, distinct, column), nil
}

func itemExprs(st *sql.Select) []sql.Syntax {
	var out []sql.Syntax
	for _, it := range st.Items {
		if it.Expr != nil {
			out = append(out, it.Expr)
		}
	}
	return out
}

// bindSRF binds a set-returning call's arguments and result type.
func (p *Builder) bindSRF(call sql.Syntax, sc *sql.Scope) (SRFCall, error) {
	name, callArgs, _ := sql.CallOf(call)
	args := make([]sql.Expr, len(callArgs))
	for i, a := range callArgs {
		var err error
		if args[i], err = sql.BindUntyped(a, sc, p.params); err != nil {
			return SRFCall{}, err
		}
	}
	switch name {
	case "generate_series":
		t, err := seriesType(args, p.params)
		return SRFCall{Name: name, Args: args, T: t}, err
	case "unnest", "_pg_expandarray":
		if len(args) != 1 {
			return SRFCall{}, pgerr.Errorf(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
		}
		if sql.IsUnknownExpr(args[0]) {
			return SRFCall{}, pgerr.Errorf(pgerr.AmbiguousFunction, "function %s(unknown) is not unique", name)
		}
		at := args[0].Type()
		if !at.IsArray() {
			return SRFCall{}, pgerr.Errorf(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, at)
		}
		t := at.ElemType()
		if name == "_pg_expandarray" {
			t = sql.RecordOf(sql.RecordField{Name: "x", T: t}, sql.RecordField{Name: "n", T: sql.Int32})
		}
		return SRFCall{Name: name, Args: args, T: t}, nil
	}
	return SRFCall{}, pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning function %s is not supported here", name)
}

// seriesType resolves generate_series's argument type and converts the
// arguments to it.
func seriesType(args []sql.Expr, params *sql.Params) (sql.Type, error) {
	if len(args) < 2 || len(args) > 3 {
		return sql.Type{}, pgerr.Errorf(pgerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args))
	}
	if timeSeries(args) {
		return timeSeriesType(args, params)
	}
	t, err := sql.CommonType(args, "generate_series")
	if err != nil {
		return sql.Type{}, err
	}
	switch t.Kind {
	case sql.KindInt16, sql.KindText:
		t = sql.Int32 // untyped literals: generate_series(integer, integer)
	case sql.KindInt32, sql.KindInt64:
	case sql.KindNumeric:
		t = sql.Type{Kind: sql.KindNumeric}
	default:
		return sql.Type{}, pgerr.Errorf(pgerr.FeatureNotSupported, "generate_series over %s is not supported yet", t)
	}
	for i, a := range args {
		if args[i], err = sql.CoerceTo(a, t, params); err != nil {
			return sql.Type{}, err
		}
	}
	return t, nil
}

// timeSeries reports generate_series(start, stop, interval) over dates or
// timestamps.
func timeSeries(args []sql.Expr) bool {
	if len(args) != 3 {
		return false
	}
	for _, a := range args[:2] {
		switch a.Type().Kind {
		case sql.KindDate, sql.KindTimestamp, sql.KindTimestampTZ:
			return true
		}
	}
	return args[2].Type().Kind == sql.KindInterval
}

// timeSeriesType resolves generate_series over timestamps: timestamp when
// both ends are timestamps, else timestamptz (dates and untyped literals
// resolve there, as in PostgreSQL); the step is an interval.
func timeSeriesType(args []sql.Expr, params *sql.Params) (sql.Type, error) {
	t := sql.TimestampTZ
	if args[0].Type().Kind == sql.KindTimestamp && args[1].Type().Kind == sql.KindTimestamp {
		t = sql.Timestamp
	}
	var err error
	for i := 0; i < 2; i++ {
		if args[i], err = sql.CoerceTo(args[i], t, params); err != nil {
			return sql.Type{}, err
		}
	}
	if args[2], err = sql.CoerceTo(args[2], sql.IntervalT, params); err != nil {
		return sql.Type{}, err
	}
	return t, nil
}
