package sql

import (
	"github.com/magmalake/magmalake/pgerr"
)

// The aggregates: their binding here (bind_agg.go binds the calls), their
// accumulators in the engine (engine's aggregates, by entry name).

// aggRule is how a call of an aggregate binds.
type aggRule struct {
	// delimiter: a second argument, text (string_agg's).
	delimiter bool
	// unknownAs is the type an untyped argument is read as.
	unknownAs Type
	// result is the aggregate's type over arg (nil for count(*)); an error
	// when it has no form for arg's type.
	result func(name string, arg Expr) (Type, error)
}

func aggregateFunctions() []Function {
	numbers := sigs("bigint | integer | smallint | real | double precision | numeric")
	ordered := sigs("anyarray | bigint | integer | smallint | oid | real | double precision | date | time without time zone | " +
		"timestamp without time zone | timestamp with time zone | interval | text | numeric | character")
	textual := func(result func(string, Expr) (Type, error)) *aggRule {
		return &aggRule{unknownAs: Text, result: result}
	}
	return []Function{
		{Name: "count", Kind: AggregateFunc, Windowed: true, Signatures: sigs(`"any" | `),
			agg: textual(func(string, Expr) (Type, error) { return Int64, nil })},
		{Name: "sum", Kind: AggregateFunc, Windowed: true, Signatures: numbers, agg: textual(sumType)},
		{Name: "avg", Kind: AggregateFunc, Windowed: true, Signatures: numbers, agg: textual(averageType)},
		{Name: "min", Kind: AggregateFunc, Windowed: true, Signatures: ordered, agg: textual(extremeType)},
		{Name: "max", Kind: AggregateFunc, Windowed: true, Signatures: ordered, agg: textual(extremeType)},
		{Name: "stddev_samp", Kind: AggregateFunc, Windowed: true, Signatures: numbers, agg: textual(averageType)},
		{Name: "stddev_pop", Kind: AggregateFunc, Windowed: true, Signatures: numbers, agg: textual(averageType)},
		{Name: "var_samp", Kind: AggregateFunc, Windowed: true, Signatures: numbers, agg: textual(averageType)},
		{Name: "var_pop", Kind: AggregateFunc, Windowed: true, Signatures: numbers, agg: textual(averageType)},
		// The grammar would read stddev and variance as the population
		// forms, where PostgreSQL means the sample forms: the normaliser
		// sends them as plain calls.
		{Name: "stddev", Kind: AggregateFunc, Alias: "stddev_samp", Windowed: true, Signatures: numbers},
		{Name: "variance", Kind: AggregateFunc, Alias: "var_samp", Windowed: true, Signatures: numbers},
		{Name: "bool_and", Kind: AggregateFunc, Windowed: true, Signatures: sigs("boolean"), agg: &aggRule{unknownAs: Bool, result: boolType}},
		{Name: "bool_or", Kind: AggregateFunc, Windowed: true, Signatures: sigs("boolean"), agg: &aggRule{unknownAs: Bool, result: boolType}},
		{Name: "every", Kind: AggregateFunc, Alias: "bool_and", Windowed: true, Signatures: sigs("boolean")},
		{Name: "string_agg", Kind: AggregateFunc, Signatures: sigs("text,text"),
			agg: &aggRule{delimiter: true, unknownAs: Text, result: func(string, Expr) (Type, error) { return Text, nil }}},
		{Name: "array_agg", Kind: AggregateFunc, Signatures: sigs("anynonarray"), agg: &aggRule{unknownAs: Text, result: arrayAggType}},
	}
}

// unknownAggregate binds an aggregate the grammar parses that magmalake does not
// have (bit_and, group_concat, ...): as one of one argument, which then
// does not exist.
var unknownAggregate = aggRule{unknownAs: Text, result: func(name string, _ Expr) (Type, error) {
	return Unknown, pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
}}

// aggregateRule is the binding of the aggregate name (an entry's own name,
// not an alias).
func aggregateRule(name string) *aggRule {
	if f := functions[name]; f != nil && f.agg != nil {
		return f.agg
	}
	return &unknownAggregate
}

// noAggregateForm is 42883 for an aggregate over a type it has no form of.
func noAggregateForm(name string, t Type) error {
	return signatureError(pgerr.UndefinedFunction, hintNoFunction, &callSig{name, "does not exist", []Type{t}})
}

// extremeType is min's and max's: the argument's type (varchar's is text,
// having no min/max of its own); json has none.
func extremeType(name string, arg Expr) (Type, error) {
	t := arg.Type()
	switch {
	case t.Kind == KindJSON:
		return Unknown, noAggregateForm(name, t)
	case t.Kind == KindVarchar && !t.Bpchar:
		return Text, nil
	}
	return t, nil
}

// sumType: bigint over smaller integers, numeric over bigint and numeric,
// the float over a float.
func sumType(name string, arg Expr) (Type, error) {
	switch t := arg.Type(); t.Kind {
	case KindInt16, KindInt32:
		return Int64, nil
	case KindInt64:
		return Numeric(0, 0), nil
	case KindNumeric:
		return Numeric(0, t.Scale), nil
	case KindFloat32, KindFloat64:
		return t, nil
	}
	return Unknown, noAggregateForm(name, arg.Type())
}

// averageType is avg's, the standard deviations' and the variances':
// numeric over integers and numeric, double precision over floats.
func averageType(name string, arg Expr) (Type, error) {
	switch t := arg.Type(); t.Kind {
	case KindInt16, KindInt32, KindInt64, KindNumeric:
		return Numeric(0, max(16, t.Scale)), nil
	case KindFloat32, KindFloat64:
		return Float64, nil
	}
	return Unknown, noAggregateForm(name, arg.Type())
}

func boolType(name string, arg Expr) (Type, error) {
	if arg.Type().Kind == KindBool {
		return Bool, nil
	}
	return Unknown, noAggregateForm(name, arg.Type())
}

// arrayAggType is an array of the argument's type (text for an untyped
// one); arrays of arrays are multidimensional, which magmalake has not.
func arrayAggType(_ string, arg Expr) (Type, error) {
	t := arg.Type()
	if t.Kind == KindArray {
		return Unknown, pgerr.Errorf(pgerr.FeatureNotSupported, "array_agg over arrays (a multidimensional array) is not supported")
	}
	if t.Kind == KindUnknown {
		t = Text
	}
	return ArrayOf(t), nil
}
