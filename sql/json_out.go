package sql

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// json_build_object's text, as PostgreSQL's datum_to_json writes each
// argument: numbers and booleans bare, json as it is, arrays as JSON
// arrays, dates and timestamps in ISO 8601 (XSD) form, every other value
// its output text as a JSON string, escaped as escape_json does (not
// encoding/json, which also escapes <, > and &).

// jsonBuildObject prints json_build_object's text, as PostgreSQL spaces it.
func jsonBuildObject(x *Func, a []any) (any, error) {
	b := []byte{'{'}
	for i := 0; i+1 < len(a); i += 2 {
		if i > 0 {
			b = append(b, ", "...)
		}
		if a[i] == nil {
			err := pgerr.Errorf(pgerr.InvalidParameterValue, "argument %d cannot be null", i+1)
			err.Hint = "Object keys should be text."
			return nil, err
		}
		kt := x.Args[i].Type()
		if kt.Kind == KindArray || kt.Kind == KindJSON || kt.Kind == KindRecord {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
		}
		b = appendJSONString(b, jsonScalarText(a[i], kt))
		b = append(b, " : "...)
		b = appendJSONValue(b, a[i+1], x.Args[i+1].Type())
	}
	return string(append(b, '}')), nil
}

// appendJSONValue appends d of type t as a JSON value.
func appendJSONValue(b []byte, d any, t Type) []byte {
	if d == nil {
		return append(b, "null"...)
	}
	switch {
	case t.Kind == KindBool:
		return strconv.AppendBool(b, d.(bool))
	case t.IsNumeric():
		// NaN and the infinities are no JSON numbers: they are quoted.
		if s := formatDatum(d, t); json.Valid([]byte(s)) {
			return append(b, s...)
		}
	case t.Kind == KindJSON:
		return append(b, d.(string)...)
	case t.Kind == KindArray:
		return appendJSONArray(b, d.(string), t)
	}
	return appendJSONString(b, jsonScalarText(d, t))
}

// appendJSONArray appends an array's elements as a JSON array; one that
// cannot be read stays its text, quoted.
func appendJSONArray(b []byte, s string, t Type) []byte {
	ds, err := InputStyle{}.arrayDatums(s, t)
	if err != nil {
		return appendJSONString(b, s)
	}
	b = append(b, '[')
	for i, d := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONValue(b, d, t.ElemType())
	}
	return append(b, ']')
}

// jsonScalarText is a scalar's text in JSON: its output text, except
// dates and timestamps, which JSON writes in ISO 8601's form.
func jsonScalarText(d any, t Type) string {
	switch t.Kind {
	case KindTimestamp, KindTimestampTZ:
		return xsdTimestamp(d.(int64), t.Kind == KindTimestampTZ)
	case KindBool:
		return strconv.FormatBool(d.(bool))
	}
	return outputText(d, t)
}

// xsdTimestamp is a timestamp as PostgreSQL's XSD date style writes it: the
// ISO text with T between date and time and a zone offset with minutes.
func xsdTimestamp(us int64, tz bool) string {
	s := string(AppendTimestamp(nil, us, tz))
	if strings.HasSuffix(s, "infinity") {
		return s
	}
	s = strings.Replace(s, " ", "T", 1)
	if tz {
		s = strings.Replace(s, "+00", "+00:00", 1) // the text is in UTC
	}
	return s
}

// appendJSONString appends s as a JSON string, escaped as escape_json
// does: quote, backslash and the control characters only.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if c < ' ' {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
				continue
			}
			b = append(b, c)
		}
	}
	return append(b, '"')
}
