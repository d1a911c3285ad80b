package sql

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/magmalake/magmalake/pgerr"
)

// json -> key|index and ->> (the normaliser's __json_get and
// __json_get_text): json values are their text, and a field or element
// comes back as its own text, as PostgreSQL's json type keeps it.

func jsonFunctions() []Function {
	return []Function{
		{Name: "__json_get", Strict: true, bind: bindJSONGet, row: perRow(jsonGet)},
		{Name: "__json_get_text", Strict: true, bind: bindJSONGet, row: perRow(jsonGet)},
	}
}

func bindJSONGet(b callBinder, name string, args []Expr) (Expr, error) {
	op := "->"
	if name == "__json_get_text" {
		op = "->>"
	}
	if len(args) != 2 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "operator %s takes two operands", op)
	}
	if isUnknown(args[0]) {
		c, err := b.coerceUnknown(args[0], JSON)
		if err != nil {
			return nil, err
		}
		args[0] = c
	}
	if isUnknown(args[1]) {
		c, err := b.coerceUnknown(args[1], Text)
		if err != nil {
			return nil, err
		}
		args[1] = c
	}
	kt := args[1].Type()
	if args[0].Type().Kind != KindJSON || !(kt.IsString() || isInteger(kt)) {
		return nil, noOperator(args[0].Type(), op, kt)
	}
	t := JSON
	if name == "__json_get_text" {
		t = Text
	}
	return &Func{Name: name, Args: args, T: t}, nil
}

// jsonGet is one row's j -> k or j ->> k: NULL when j is not an object
// (text key) or array (integer index), or has no such member.
func jsonGet(x *Func, a []any) (any, error) {
	doc := []byte(a[0].(string))
	var raw json.RawMessage
	var found bool
	var err error
	if s, ok := a[1].(string); ok {
		raw, found, err = jsonField(doc, s)
	} else {
		raw, found, err = jsonElement(doc, a[1].(int64))
	}
	if err != nil {
		e := pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type json")
		e.Detail = err.Error()
		return nil, e
	}
	if !found {
		return nil, nil
	}
	if x.Name == "__json_get" {
		return string(raw), nil
	}
	return jsonText(raw), nil
}

func jsonField(doc []byte, key string) (json.RawMessage, bool, error) {
	if t := bytes.TrimSpace(doc); len(t) == 0 || t[0] != '{' {
		return nil, false, json.Unmarshal(doc, new(any))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil {
		return nil, false, err
	}
	v, ok := obj[key]
	return v, ok, nil
}

func jsonElement(doc []byte, i int64) (json.RawMessage, bool, error) {
	if t := bytes.TrimSpace(doc); len(t) == 0 || t[0] != '[' {
		return nil, false, json.Unmarshal(doc, new(any))
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(doc, &arr); err != nil {
		return nil, false, err
	}
	if i < 0 {
		i += int64(len(arr)) // -1 is the last element
	}
	if i < 0 || i >= int64(len(arr)) {
		return nil, false, nil
	}
	return arr[i], true, nil
}

// jsonText is ->>'s text: a string unquoted, null as NULL, anything else
// as written.
func jsonText(raw json.RawMessage) any {
	t := bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(t, []byte("null")):
		return nil
	case len(t) > 0 && t[0] == '"':
		if s, err := strconv.Unquote(string(t)); err == nil {
			return s
		}
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	}
	return string(t)
}
