package sql

import (
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// The basic scalar functions: pg_typeof, case mapping, lengths, trimming,
// substring, abs and round, coalesce and nullif, and the statement's clock.

func coreFunctions() []Function {
	return []Function{
		{Name: "pg_typeof", Volatility: Stable, bindCall: bindTypeofLiteral, bind: bindTypeof, batch: (*evaluator).evalTypeof},
		{Name: "lower", Strict: true, Signatures: sigs("text"), bind: textOnly(Text, 1, 1),
			row: valueOf(func(a []any) any { return asciiMap(a[0].(string), 'A', 'Z', 'a'-'A') })},
		{Name: "upper", Strict: true, Signatures: sigs("text"), bind: textOnly(Text, 1, 1),
			row: valueOf(func(a []any) any { return asciiMap(a[0].(string), 'a', 'z', 'A'-'a') })},
		{Name: "length", Strict: true, Signatures: sigs("text | character | bytea"), bind: byteaOr(textOnly(Int32, 1, 1)), row: valueOf(runeCount)},
		{Name: "char_length", Strict: true, Signatures: sigs("text | character"), bind: textOnly(Int32, 1, 1), row: valueOf(runeCount)},
		{Name: "character_length", Strict: true, Signatures: sigs("text | character"), bind: textOnly(Int32, 1, 1), row: valueOf(runeCount)},
		{Name: "octet_length", Strict: true, Signatures: sigs("bytea | text | character"), bind: byteaOr(textOnly(Int32, 1, 1)), row: perRow(octetLength)},
		{Name: "btrim", Strict: true, Signatures: sigs("text,text | text"), bind: textOnly(Text, 1, 2), row: perRow(trimText)},
		{Name: "ltrim", Strict: true, Signatures: sigs("text,text | text"), bind: textOnly(Text, 1, 2), row: perRow(trimText)},
		{Name: "rtrim", Strict: true, Signatures: sigs("text,text | text"), bind: textOnly(Text, 1, 2), row: perRow(trimText)},
		{Name: "substring", Strict: true, Signatures: sigs("text,integer,integer | text,integer"), bind: bindSubstring,
			row: perRow(func(_ *Func, a []any) (any, error) { return substring(a) })},
		{Name: "substr", Alias: "substring", Signatures: sigs("text,integer,integer | text,integer"), bind: bindSubstring},
		{Name: "abs", Strict: true, Signatures: sigs("real | double precision | bigint | integer | smallint | numeric"), bind: bindAbs,
			row: perRow(func(x *Func, a []any) (any, error) { return absValue(a[0], x.T) })},
		{Name: "round", Strict: true, Signatures: sigs("double precision | numeric,integer | numeric"), bind: callBinder.bindRound,
			row: perRow(func(x *Func, a []any) (any, error) { return roundValue(a, x.Args[0].Type()) })},
		// coalesce and nullif are SQL syntax in PostgreSQL, no functions.
		{Name: "coalesce", bind: bindCoalesce, batch: (*evaluator).evalCoalesce},
		{Name: "nullif", bind: bindNullif},
		// The statement's clock; current_timestamp, localtimestamp and
		// current_date are SQL syntax in PostgreSQL.
		{Name: "now", Volatility: Stable, Strict: true, Signatures: sigs(""), bind: clockCall(TimestampTZ, false), batch: (*evaluator).evalNow},
		{Name: "statement_timestamp", Volatility: Stable, Strict: true, Signatures: sigs(""), bind: clockCall(TimestampTZ, false), batch: (*evaluator).evalNow},
		{Name: "transaction_timestamp", Volatility: Stable, Strict: true, Signatures: sigs(""), bind: clockCall(TimestampTZ, false), batch: (*evaluator).evalNow},
		{Name: "current_timestamp", Volatility: Stable, Strict: true, bind: clockCall(TimestampTZ, true), batch: (*evaluator).evalNow},
		{Name: "localtimestamp", Volatility: Stable, Strict: true, bind: clockCall(Timestamp, true), batch: (*evaluator).evalNow},
		{Name: "current_date", Volatility: Stable, Strict: true, bind: clockCall(Date, false), batch: (*evaluator).evalCurrentDate},
	}
}

// textOnly binds a function of min to max text arguments returning ret.
func textOnly(ret Type, min, max int) bindFunc {
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		if len(args) < min || len(args) > max {
			return nil, noFunction(name, args)
		}
		if err := b.textArgs(name, args); err != nil {
			return nil, err
		}
		return &Func{Name: name, Args: args, T: ret}, nil
	}
}

// bindTypeofLiteral binds pg_typeof of a quoted literal or NULL that
// nothing gives a type to: the binder reads it as text, PostgreSQL's
// pg_typeof says unknown.
func bindTypeofLiteral(_ callBinder, n *parse.FuncCall) (Expr, bool, error) {
	if len(n.Args) != 1 || !untypedLiteral(n.Args[0]) {
		return nil, false, nil
	}
	return &Func{Name: "pg_typeof", Args: []Expr{&Const{T: Unknown}}, T: Type{Kind: KindOID, Reg: RegType}}, true, nil
}

// bindTypeof binds pg_typeof(x): the argument's type, known at bind time;
// the argument stays in the tree so its columns are read and its errors
// raised.
func bindTypeof(_ callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: Type{Kind: KindOID, Reg: RegType}}, nil
}

func bindSubstring(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, noFunction(name, args)
	}
	if err := b.textArgs(name, args[:1]); err != nil {
		return nil, err
	}
	for i := 1; i < len(args); i++ {
		if err := b.intArg(name, args, i); err != nil {
			return nil, err
		}
	}
	return &Func{Name: "substring", Args: args, T: Text}, nil
}

// bindAbs binds abs over any numeric type, returning that type; an untyped
// argument reads as double precision.
func bindAbs(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, noFunction(name, args)
	}
	if isUnknown(args[0]) {
		c, err := b.coerceUnknown(args[0], Float64)
		if err != nil {
			return nil, err
		}
		args[0] = c
	}
	if !args[0].Type().IsNumeric() {
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: args[0].Type()}, nil
}

// bindRound binds round(float8), round(numeric) and round(numeric, int):
// an integer alone rounds as double precision, the preferred type.
func (b callBinder) bindRound(_ string, args []Expr) (Expr, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, noFunction("round", args)
	}
	if len(args) == 2 {
		if err := b.numericIntArgs("round", args); err != nil {
			return nil, err
		}
		scale := 0
		if c, ok := args[1].(*Const); ok && c.Value != nil {
			scale = max(int(c.Value.(int64)), 0)
		}
		return &Func{Name: "round", Args: args, T: Numeric(0, scale)}, nil
	}
	t, err := floatOrNumeric("round", args)
	if err != nil {
		return nil, err
	}
	if err := b.convertArgs("round", args, t); err != nil {
		return nil, err
	}
	return &Func{Name: "round", Args: args, T: t}, nil
}

func bindCoalesce(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "coalesce needs at least one argument")
	}
	t, err := b.commonType(args, "COALESCE")
	if err != nil {
		return nil, err
	}
	if err := b.coerceAll(args, t); err != nil {
		return nil, err
	}
	return &Func{Name: name, Args: args, T: t}, nil
}

// bindNullif binds NULLIF(a, b) as CASE WHEN a = b THEN NULL ELSE a END, a
// taken as the = operator's left input: an integer compared with a numeric
// or float (no cross-type operator) is promoted, as in PostgreSQL
// (nullif(int, numeric) is numeric).
func bindNullif(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, noFunction(name, args)
	}
	c, err := b.ops().bindCompare(OpEQ, args[0], args[1])
	if err != nil {
		return nil, err
	}
	cmp := c.(*Compare)
	l := nullifOperand(cmp.L, cmp.R)
	if lt, dom := l.Type(), cmp.Domain; lt.Kind != dom.Kind &&
		(isIntegerKind(lt) && (dom.Kind == KindNumeric || dom.Kind == KindFloat64 || dom.Kind == KindFloat32) ||
			lt.Kind == KindNumeric && (dom.Kind == KindFloat64 || dom.Kind == KindFloat32)) {
		l = castTo(l, dom)
	}
	return &Case{Whens: []When{{Cond: b.folded(cmp), Result: &Const{T: l.Type()}}}, Else: l, T: l.Type()}, nil
}

// clockCall binds a call of the statement's clock returning t;
// current_timestamp(p) and localtimestamp(p) take a precision.
func clockCall(t Type, precision bool) bindFunc {
	return func(_ callBinder, name string, args []Expr) (Expr, error) {
		if len(args) == 1 && precision {
			return bindClockPrecision(name, args[0])
		}
		if len(args) != 0 {
			return nil, noFunction(name, args)
		}
		return &Func{Name: name, T: t}, nil
	}
}

func runeCount(a []any) any { return int64(utf8.RuneCountInString(a[0].(string))) }

// octetLength counts bytes; char(n) counts its padding, as PostgreSQL's
// bpcharoctetlen.
func octetLength(x *Func, a []any) (any, error) {
	if t := x.Args[0].Type(); t.Bpchar {
		return int64(len(AppendBpchar(nil, a[0].(string), t.Length))), nil
	}
	return int64(len(a[0].(string))), nil
}
