package sql

import (
	"crypto/sha256"
	"crypto/sha512"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// String and general functions beyond func_text.go's: to_hex,
// bit_length, quote_nullable, num_nulls/num_nonnulls, the SHA-2 digests,
// localtime, clock_timestamp and timeofday, as PostgreSQL 15; and the
// bytea forms of length, octet_length, bit_length and md5.

func stringMoreFunctions() []Function {
	return []Function{
		{Name: "to_hex", Strict: true, Signatures: sigs("integer | bigint"), bind: bindToHex, row: perRow(toHex)},
		// bit_length's bytea form binds to bytea_bit_length.
		{Name: "bit_length", Strict: true, Signatures: sigs("bytea | text"), bind: byteaOr(bindBitLength), row: valueOf(bitLength)},
		{Name: "quote_nullable", Signatures: sigs("text | anyelement"), bind: bindQuoteNullable, row: valueOf(quoteNullable)},
		{Name: "num_nulls", Signatures: sigs(`"any"`), bind: bindNumNulls, row: valueOf(numNulls)},
		{Name: "num_nonnulls", Signatures: sigs(`"any"`), bind: bindNumNulls,
			row: valueOf(func(a []any) any { return int64(len(a)) - numNulls(a).(int64) })},
		{Name: "localtime", Alias: "__clock_round", Volatility: Stable, bind: bindLocaltime},
		{Name: "__clock_round", Strict: true,
			row: perRow(func(x *Func, a []any) (any, error) { return clockRound(x, a[0].(int64), a[1].(int64)), nil })},
		{Name: "clock_timestamp", Volatility: Volatile, Signatures: sigs(""), bind: clockCall(TimestampTZ, false),
			row: valueOf(func([]any) any { return time.Now().UnixMicro() })},
		{Name: "timeofday", Volatility: Volatile, Signatures: sigs(""), bind: clockCall(Text, false), row: valueOf(timeOfDay)},
	}
}

// byteaFunctions are the functions over bytea: the SHA-2 digests, and the
// bytea forms of length, octet_length, bit_length and md5 (internal names
// the text functions' calls bind to over a bytea argument).
func byteaFunctions() []Function {
	return []Function{
		{Name: "sha224", Strict: true, Signatures: sigs("bytea"), bind: byteaOr(bindDigest), row: byteaRow(func(b []byte) any { s := sha256.Sum224(b); return s[:] })},
		{Name: "sha256", Strict: true, Signatures: sigs("bytea"), bind: byteaOr(bindDigest), row: byteaRow(func(b []byte) any { s := sha256.Sum256(b); return s[:] })},
		{Name: "sha384", Strict: true, Signatures: sigs("bytea"), bind: byteaOr(bindDigest), row: byteaRow(func(b []byte) any { s := sha512.Sum384(b); return s[:] })},
		{Name: "sha512", Strict: true, Signatures: sigs("bytea"), bind: byteaOr(bindDigest), row: byteaRow(func(b []byte) any { s := sha512.Sum512(b); return s[:] })},
		{Name: "bytea_length", Strict: true, row: byteaRow(func(b []byte) any { return int64(len(b)) })},
		{Name: "bytea_octet_length", Strict: true, row: byteaRow(func(b []byte) any { return int64(len(b)) })},
		{Name: "bytea_bit_length", Strict: true, row: byteaRow(func(b []byte) any { return int64(len(b)) * 8 })},
		{Name: "bytea_md5", Strict: true, row: byteaRow(func(b []byte) any { return md5Hex(b) })},
	}
}

func byteaRow(fn func([]byte) any) func(*evaluator, *Func) rowFunc {
	return valueOf(func(a []any) any { return fn(a[0].([]byte)) })
}

// byteaOr binds a call of length, octet_length, bit_length or md5 over a
// bytea value to its bytea form, and a SHA-2 digest over one to itself;
// other calls bind as the text form does (bind).
func byteaOr(bind bindFunc) bindFunc {
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		if len(args) != 1 || args[0].Type().Kind != KindBytea {
			return bind(b, name, args)
		}
		switch name {
		case "length", "octet_length", "bit_length":
			return &Func{Name: "bytea_" + name, Args: args, T: Int32}, nil
		case "md5":
			return &Func{Name: "bytea_md5", Args: args, T: Text}, nil
		}
		return &Func{Name: name, Args: args, T: Bytea}, nil
	}
}

func bindToHex(_ callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, noFunction(name, args)
	}
	switch args[0].Type().Kind {
	case KindUnknown, KindInt16:
		// to_hex(integer) and to_hex(bigint): neither is preferred.
		return nil, functionNotUnique(name, args[0].Type())
	case KindInt32, KindInt64:
	default:
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: Text}, nil
}

func bindBitLength(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, noFunction(name, args)
	}
	if isUnknown(args[0]) {
		// bit_length(text), (bytea) and (bit): an untyped argument is text.
		if err := b.textArgs(name, args); err != nil {
			return nil, err
		}
	}
	switch args[0].Type().Kind {
	case KindText, KindVarchar, KindBytea:
	default:
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: Int32}, nil
}

func bindQuoteNullable(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, noFunction(name, args)
	}
	a, err := b.anyAsText(args[0])
	if err != nil {
		return nil, err
	}
	return &Func{Name: name, Args: []Expr{a}, T: Text}, nil
}

func bindNumNulls(_ callBinder, name string, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: Int32}, nil
}

// bindDigest binds a SHA-2 digest of an untyped literal, read as bytea
// (a bytea argument is bound by byteaOr).
func bindDigest(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 || !isUnknown(args[0]) {
		return nil, noFunction(name, args)
	}
	a, err := b.coerceUnknown(args[0], Bytea)
	if err != nil {
		return nil, err
	}
	return &Func{Name: name, Args: []Expr{a}, T: Bytea}, nil
}

func bindLocaltime(_ callBinder, name string, args []Expr) (Expr, error) {
	if len(args) == 1 {
		return bindClockPrecision(name, args[0])
	}
	if len(args) != 0 {
		return nil, noFunction(name, args)
	}
	return &Func{Name: "__clock_round", Args: []Expr{&Func{Name: "localtimestamp", T: Timestamp}, &Const{Value: int64(6), T: Int32}}, T: Time}, nil
}

// toHex writes an integer's two's complement in hexadecimal.
func toHex(x *Func, a []any) (any, error) {
	v := a[0].(int64)
	if x.Args[0].Type().Kind == KindInt32 {
		return strconv.FormatUint(uint64(uint32(int32(v))), 16), nil
	}
	return strconv.FormatUint(uint64(v), 16), nil
}

func bitLength(a []any) any {
	if b, ok := a[0].([]byte); ok {
		return int64(len(b)) * 8
	}
	return int64(len(a[0].(string))) * 8
}

func quoteNullable(a []any) any {
	if a[0] == nil {
		return "NULL"
	}
	return quoteLiteral(a[0].(string))
}

func numNulls(a []any) any {
	n := int64(0)
	for _, v := range a {
		if v == nil {
			n++
		}
	}
	return n
}

// timeOfDay is PostgreSQL's "%a %b %d %H:%M:%S.%06d %Y %Z", in TimeZone UTC.
func timeOfDay([]any) any {
	t := time.Now().UTC()
	var sb strings.Builder
	sb.WriteString(t.Format("Mon Jan 02 15:04:05"))
	sb.WriteString("." + strconv.Itoa(1_000_000 + t.Nanosecond()/1000)[1:])
	sb.WriteString(t.Format(" 2006 UTC"))
	return sb.String()
}

// bindClockPrecision binds current_timestamp(p), localtimestamp(p) and
// localtime[(p)]: the statement time rounded to p fractional digits
// (half up, as AdjustTimestampForTypmod), p above 6 read as 6; localtime
// is localtimestamp's time of day.
func bindClockPrecision(name string, p Expr) (Expr, error) {
	c, ok := p.(*Const)
	if !ok || c.Value == nil || !isIntegerKind(c.T) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near \"(\"")
	}
	prec := c.Value.(int64)
	what := map[string]string{"current_timestamp": "TIMESTAMP(%d) WITH TIME ZONE", "localtimestamp": "TIMESTAMP(%d)", "localtime": "TIME(%d)"}[name]
	if prec < 0 {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, what+" precision must not be negative", prec)
	}
	src := &Func{Name: "localtimestamp", T: Timestamp}
	if name == "current_timestamp" {
		src = &Func{Name: "current_timestamp", T: TimestampTZ}
	}
	t := src.T
	if name == "localtime" {
		t = Time
	}
	return &Func{Name: "__clock_round", Args: []Expr{src, &Const{Value: min(prec, 6), T: Int32}}, T: t}, nil
}

// clockRound computes __clock_round: us rounded to p digits, as a time of
// day when the result is a time.
func clockRound(x *Func, us, p int64) any {
	scale := int64(1)
	for k := p; k < 6; k++ {
		scale *= 10
	}
	if us >= 0 {
		us = (us + scale/2) / scale * scale
	} else {
		us = -((-us + scale/2) / scale * scale)
	}
	if x.T.Kind == KindTime {
		return floorMod(us, usPerDay)
	}
	return us
}
