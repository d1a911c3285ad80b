package sql

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// String and general functions beyond func_text.go's table: to_hex,
// bit_length, quote_nullable, num_nulls/num_nonnulls, clock_timestamp and
// timeofday, as PostgreSQL 15.

// bindStringMore binds them; ok is false for other names.
func (b *binder) bindStringMore(name string, args []Expr) (Expr, bool, error) {
	switch name {
	case "to_hex":
		if len(args) != 1 {
			return nil, true, noFunction(name, args)
		}
		switch args[0].Type().Kind {
		case KindUnknown, KindInt16:
			// to_hex(integer) and to_hex(bigint): neither is preferred.
			return nil, true, functionNotUnique(name, args[0].Type())
		case KindInt32, KindInt64:
		default:
			return nil, true, noFunction(name, args)
		}
		return &Func{Name: name, Args: args, T: Text}, true, nil
	case "bit_length":
		if len(args) != 1 {
			return nil, true, noFunction(name, args)
		}
		if isUnknown(args[0]) {
			// bit_length(text), (bytea) and (bit): an untyped argument is text.
			if err := b.textArgs(name, args); err != nil {
				return nil, true, err
			}
		}
		switch args[0].Type().Kind {
		case KindText, KindVarchar, KindBytea:
		default:
			return nil, true, noFunction(name, args)
		}
		return &Func{Name: name, Args: args, T: Int32}, true, nil
	case "quote_nullable":
		if len(args) != 1 {
			return nil, true, noFunction(name, args)
		}
		a, err := b.anyAsText(args[0])
		if err != nil {
			return nil, true, err
		}
		return &Func{Name: name, Args: []Expr{a}, T: Text}, true, nil
	case "num_nulls", "num_nonnulls":
		if len(args) == 0 {
			return nil, true, noFunction(name, args)
		}
		return &Func{Name: name, Args: args, T: Int32}, true, nil
	case "sha224", "sha256", "sha384", "sha512":
		// Bytea-typed arguments were bound by bindBytea.
		if len(args) != 1 || !isUnknown(args[0]) {
			return nil, true, noFunction(name, args)
		}
		a, err := b.coerceUnknown(args[0], Bytea)
		if err != nil {
			return nil, true, err
		}
		return &Func{Name: name, Args: []Expr{a}, T: Bytea}, true, nil
	case "localtime":
		if len(args) == 1 {
			e, err := bindClockPrecision(name, args[0])
			return e, true, err
		}
		if len(args) != 0 {
			return nil, true, noFunction(name, args)
		}
		return &Func{Name: "__clock_round", Args: []Expr{&Func{Name: "localtimestamp", T: Timestamp}, &Const{Value: int64(6), T: Int32}}, T: Time}, true, nil
	case "clock_timestamp", "timeofday":
		if len(args) != 0 {
			return nil, true, noFunction(name, args)
		}
		if name == "timeofday" {
			return &Func{Name: name, T: Text}, true, nil
		}
		return &Func{Name: name, T: TimestampTZ}, true, nil
	}
	return nil, false, nil
}

// isStringMore names the functions computed by stringMore; nonStrict are
// those called with NULL arguments.
func isStringMore(name string) (ok, nonStrict bool) {
	switch name {
	case "to_hex", "bit_length", "__clock_round":
		return true, false
	case "quote_nullable", "num_nulls", "num_nonnulls", "clock_timestamp", "timeofday":
		return true, true
	}
	return false, false
}

// stringMore computes one row of the functions above.
func stringMore(x *Func, a []any) (any, error) {
	switch x.Name {
	case "to_hex":
		v := a[0].(int64)
		if x.Args[0].Type().Kind == KindInt32 {
			return strconv.FormatUint(uint64(uint32(int32(v))), 16), nil
		}
		return strconv.FormatUint(uint64(v), 16), nil
	case "bit_length":
		switch v := a[0].(type) {
		case string:
			return int64(len(v)) * 8, nil
		case []byte:
			return int64(len(v)) * 8, nil
		}
	case "quote_nullable":
		if a[0] == nil {
			return "NULL", nil
		}
		return quoteLiteral(a[0].(string)), nil
	case "num_nulls", "num_nonnulls":
		n := int64(0)
		for _, v := range a {
			if v == nil {
				n++
			}
		}
		if x.Name == "num_nonnulls" {
			n = int64(len(a)) - n
		}
		return n, nil
	case "clock_timestamp":
		return time.Now().UnixMicro(), nil
	case "__clock_round":
		return clockRound(x, a[0].(int64), a[1].(int64)), nil
	case "timeofday":
		// PostgreSQL's "%a %b %d %H:%M:%S.%06d %Y %Z", in TimeZone UTC.
		t := time.Now().UTC()
		var sb strings.Builder
		sb.WriteString(t.Format("Mon Jan 02 15:04:05"))
		sb.WriteString("." + strconv.Itoa(1_000_000 + t.Nanosecond()/1000)[1:])
		sb.WriteString(t.Format(" 2006 UTC"))
		return sb.String(), nil
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "evaluate %s: unknown function", x.Name)
}

func isStringMoreFunc(name string) bool { ok, _ := isStringMore(name); return ok }

// bindBytea binds length, octet_length, bit_length and md5 of a bytea
// value, and the SHA-2 digests (bytea only); ok is false otherwise, the
// text forms and their errors left to the callers.
func bindBytea(name string, args []Expr) (Expr, bool) {
	if len(args) != 1 || args[0].Type().Kind != KindBytea {
		return nil, false
	}
	switch name {
	case "length", "octet_length", "bit_length":
		return &Func{Name: "bytea_" + name, Args: args, T: Int32}, true
	case "md5":
		return &Func{Name: "bytea_md5", Args: args, T: Text}, true
	case "sha224", "sha256", "sha384", "sha512":
		return &Func{Name: name, Args: args, T: Bytea}, true
	}
	return nil, false
}

// byteaScalar computes the functions bindBytea binds.
func byteaScalar(name string, b []byte) any {
	switch name {
	case "bytea_length", "bytea_octet_length":
		return int64(len(b))
	case "bytea_bit_length":
		return int64(len(b)) * 8
	case "bytea_md5":
		sum := md5.Sum(b)
		return hex.EncodeToString(sum[:])
	case "sha224":
		sum := sha256.Sum224(b)
		return sum[:]
	case "sha256":
		sum := sha256.Sum256(b)
		return sum[:]
	case "sha384":
		sum := sha512.Sum384(b)
		return sum[:]
	}
	sum := sha512.Sum512(b)
	return sum[:]
}

func isByteaFunc(name string) bool {
	switch name {
	case "bytea_length", "bytea_octet_length", "bytea_bit_length", "bytea_md5", "sha224", "sha256", "sha384", "sha512":
		return true
	}
	return false
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
