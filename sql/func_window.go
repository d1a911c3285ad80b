package sql

// The window functions and the set-returning functions: their binding
// here (window.go binds the calls), their computation in the engine
// (engine's window and set-returning functions, by entry name).

// windowRule is how a call of a window function binds.
type windowRule struct {
	minArgs, maxArgs int
	// bind converts the bound arguments and sets the call's type.
	bind func(b callBinder, call *WindowCall) error
}

func windowFunctions() []Function {
	returns := func(t Type) func(callBinder, *WindowCall) error {
		return func(_ callBinder, call *WindowCall) error { call.T = t; return nil }
	}
	window := func(name, signatures string, minArgs, maxArgs int, bind func(callBinder, *WindowCall) error) Function {
		return Function{Name: name, Kind: WindowFunc, Signatures: sigs(signatures), win: &windowRule{minArgs, maxArgs, bind}}
	}
	return []Function{
		window("row_number", "", 0, 0, returns(Int64)),
		window("rank", "", 0, 0, returns(Int64)),
		window("dense_rank", "", 0, 0, returns(Int64)),
		window("percent_rank", "", 0, 0, returns(Float64)),
		window("cume_dist", "", 0, 0, returns(Float64)),
		window("ntile", "integer", 1, 1, func(b callBinder, call *WindowCall) error {
			call.T = Int32
			return b.intArgs(call.Args, 0)
		}),
		window("lag", "anyelement", 1, 3, callBinder.bindShift),
		window("lead", "anyelement", 1, 3, callBinder.bindShift),
		window("first_value", "anyelement", 1, 1, callBinder.valueArg),
		window("last_value", "anyelement", 1, 1, callBinder.valueArg),
		window("nth_value", "anyelement,integer", 2, 2, func(b callBinder, call *WindowCall) error {
			if err := b.intArgs(call.Args, 1); err != nil {
				return err
			}
			return b.valueArg(call)
		}),
	}
}

// bindShift binds lag and lead (value [, offset [, default]]): the default
// takes the value's type, both their common type.
func (b callBinder) bindShift(call *WindowCall) error {
	if err := b.intArgs(call.Args, 1); err != nil {
		return err
	}
	if len(call.Args) == 3 {
		t, err := b.commonType([]Expr{call.Args[0], call.Args[2]}, call.Name)
		if err != nil {
			return err
		}
		vals := []Expr{call.Args[0], call.Args[2]}
		if err := b.coerceAll(vals, t); err != nil {
			return err
		}
		call.Args[0], call.Args[2] = vals[0], vals[1]
	}
	return b.valueArg(call)
}

// setReturningFunctions are run by the engine, which binds their calls in
// a select list or FROM; elsewhere a call of one does not exist.
// _pg_expandarray is information_schema's, which pgjdbc calls.
func setReturningFunctions() []Function {
	return []Function{
		{Name: "generate_series", Kind: SetReturningFunc, Strict: true, Signatures: sigs(
			"timestamp without time zone,timestamp without time zone,interval | timestamp with time zone,timestamp with time zone,interval | " +
				"integer,integer,integer | integer,integer | bigint,bigint,bigint | bigint,bigint | numeric,numeric,numeric | numeric,numeric")},
		{Name: "unnest", Kind: SetReturningFunc, Strict: true, Signatures: sigs("anyarray")},
		{Name: "_pg_expandarray", Kind: SetReturningFunc, Strict: true},
	}
}
