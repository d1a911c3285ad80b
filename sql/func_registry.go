package sql

import (
	"fmt"
	"sort"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// The function registry: every function magmalake runs (scalar, aggregate,
// window or set-returning) is one Function entry holding its name, the
// PostgreSQL signatures it answers, its volatility and strictness, how a
// call of it binds and how it is computed. The binder resolves calls
// through the registry, the evaluator computes bound calls through it, the
// constant folder reads volatility and strictness from it, the engine finds
// its aggregates, window and set-returning functions in it, and pg_proc
// lists its signatures (pgcatalog). Each family registers its entries
// in its own file (func_text.go's textFunctions, ...), next to their
// implementations.

// FuncKind is what a call of a function computes.
type FuncKind uint8

const (
	// ScalarFunc computes one value per row, in the evaluator.
	ScalarFunc FuncKind = iota
	// AggregateFunc computes one value per group (the engine's
	// accumulators), and over a window frame when Windowed.
	AggregateFunc
	// WindowFunc computes one value per row from its window's rows.
	WindowFunc
	// SetReturningFunc returns rows per row, in FROM or a select list.
	SetReturningFunc
)

// Volatility is what a call's value depends on besides its arguments, as
// the engine treats it (PostgreSQL's own label is pg_proc's provolatile).
type Volatility uint8

const (
	// Immutable: its arguments alone, so a call over constants is folded
	// when it is bound.
	Immutable Volatility = iota
	// Stable: also the statement (its time, the session's catalog and
	// settings); never folded.
	Stable
	// Volatile: also the moment; each evaluation may differ, so a
	// condition holding it is evaluated once per row where it is written.
	Volatile
)

// Function is one entry of the registry.
type Function struct {
	// Name is how calls name the function (pg_proc's proname), and the
	// Name of the bound *Func whose value the entry computes.
	Name string
	Kind FuncKind
	// Volatility decides folding and the join planner's placement.
	Volatility Volatility
	// Strict: a NULL argument makes the value NULL. The evaluator then
	// skips the call on such rows and the folder makes a call with a NULL
	// constant argument NULL; a function that is not strict sees NULLs.
	Strict bool
	// Signatures are PostgreSQL's argument lists (as regprocedure spells
	// pg_proc.proargtypes: "text,integer") of the overloads the entry
	// answers as PostgreSQL does, with PostgreSQL's result type: the
	// function's rows in pg_proc. None for a function PostgreSQL does not
	// have (an internal form, or SQL syntax such as coalesce).
	Signatures []string
	// Alias names the entry that computes this one's calls (ceiling is
	// ceil, every is bool_and); empty when the entry computes them itself.
	Alias string
	// Windowed: an aggregate that a window may compute over its frame.
	Windowed bool

	// bindCall binds from the call's syntax, before its arguments are
	// bound; ok is false to bind the call as usual.
	bindCall func(b callBinder, n *parse.FuncCall) (e Expr, ok bool, err error)
	// bind resolves a call of a scalar function over its bound arguments:
	// the overload, the conversion of the arguments and the result type.
	// Nil for an entry no call names (an internal form the binder builds).
	bind bindFunc
	// row prepares a scalar function's computation of one row, for one
	// evaluation of x (it may keep state for the rows of that evaluation,
	// a compiled pattern; never across evaluations).
	row func(ev *evaluator, x *Func) rowFunc
	// batch computes a scalar function over a batch itself (coalesce
	// evaluates its arguments only where needed, now() reads the
	// statement's time); row is nil then.
	batch func(ev *evaluator, x *Func, sel []int, out []any) ([]any, error)
	// agg is an aggregate's binding; win a window function's.
	agg *aggRule
	win *windowRule
}

// bindFunc binds a call of name over its bound arguments: the expression
// (usually a *Func naming the entry that computes it) or the call's error
// (42883 when no overload fits, 42725 when several do).
type bindFunc func(b callBinder, name string, args []Expr) (Expr, error)

// rowFunc computes a scalar function for one row's argument values.
type rowFunc func(a []any) (any, error)

// functions is the registry by name; built once at init, never changed.
var functions map[string]*Function

func init() {
	functions = registerFunctions(
		coreFunctions(), textFunctions(), stringMoreFunctions(), byteaFunctions(), regexFunctions(),
		mathFunctions(), minMaxFunctions(), dateTimePartFunctions(), makeDateTimeFunctions(), toCharFunctions(),
		arrayFunctions(), recordFunctions(), jsonFunctions(), catalogFunctions(), privilegeFunctions(),
		aggregateFunctions(), windowFunctions(), setReturningFunctions(),
	)
}

// registerFunctions indexes the families' entries by name; a name given
// twice is a mistake in the families' tables.
func registerFunctions(families ...[]Function) map[string]*Function {
	out := map[string]*Function{}
	for _, fam := range families {
		for i := range fam {
			f := &fam[i]
			if _, dup := out[f.Name]; dup {
				panic(fmt.Sprintf("function registry: %s registered twice", f.Name))
			}
			out[f.Name] = f
		}
	}
	return out
}

// Functions lists the registry's entries by name.
func Functions() []Function {
	out := make([]Function, 0, len(functions))
	for _, f := range functions {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupFunction is the registry's entry of that name.
func LookupFunction(name string) (Function, bool) {
	if f := functions[name]; f != nil {
		return *f, true
	}
	return Function{}, false
}

// Implemented reports whether the entry computes its calls itself (rather
// than binding them to its Alias, or being only the binder's spelling).
func (f *Function) Implemented() bool {
	switch f.Kind {
	case ScalarFunc:
		return f.row != nil || f.batch != nil
	case AggregateFunc, WindowFunc, SetReturningFunc:
		return f.Alias == ""
	}
	return false
}

// Callable reports whether a call may name the entry (an internal form
// such as bytea_length only results from binding another call).
func (f *Function) Callable() bool {
	return f.bind != nil || f.bindCall != nil || f.Kind != ScalarFunc
}

// IsVolatile reports whether x's value may change from one evaluation to
// the next (random(), clock_timestamp()).
func IsVolatile(x *Func) bool {
	f := functions[x.Name]
	return f != nil && f.Volatility == Volatile
}

// scalarFunction is the scalar function a bound Func computes.
func scalarFunction(name string) *Function {
	if f := functions[name]; f != nil && f.Kind == ScalarFunc {
		return f
	}
	return nil
}

// bindRegistered binds a call of a scalar function through its entry.
func (b callBinder) bindRegistered(name string, args []Expr) (Expr, error) {
	f := functions[name]
	if f == nil || f.Kind != ScalarFunc || f.bind == nil {
		return nil, noFunction(name, args)
	}
	return f.bind(b, name, args)
}

// evalRegistered computes x through its entry.
func (ev *evaluator) evalRegistered(x *Func, sel []int, out []any) ([]any, error) {
	f := scalarFunction(x.Name)
	switch {
	case f == nil:
	case f.batch != nil:
		return f.batch(ev, x, sel, out)
	case f.row != nil:
		return ev.evalRows(x, sel, out, f.Strict, f.row(ev, x))
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "evaluate %s: unknown function", x.Name)
}

// Entry helpers for the families' tables.

// perRow is a row computation that needs only x and the row's values.
func perRow(fn func(x *Func, a []any) (any, error)) func(*evaluator, *Func) rowFunc {
	return func(_ *evaluator, x *Func) rowFunc {
		return func(a []any) (any, error) { return fn(x, a) }
	}
}

// valueOf is a row computation of the values alone that cannot fail.
func valueOf(fn func(a []any) any) func(*evaluator, *Func) rowFunc {
	return func(*evaluator, *Func) rowFunc {
		return func(a []any) (any, error) { return fn(a), nil }
	}
}

// valueOfErr is a row computation of the values alone.
func valueOfErr(fn rowFunc) func(*evaluator, *Func) rowFunc {
	return func(*evaluator, *Func) rowFunc { return fn }
}

// sigs splits a signature list written one overload per "|": "text |
// text,integer" is (text) and (text, integer); "" is the one overload
// without arguments.
func sigs(list string) []string {
	var out []string
	for _, s := range strings.Split(list, "|") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}
