package pgcatalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// Values the evaluator computes with: nil (NULL), bool, int64, float64,
// string, []any (an array), record (a composite, for _pg_expandarray) and
// regValue (an OID of a reg* type: compares as its number, prints as a name).

// record is a composite value; __field selects from it.
type record map[string]any

// regValue is a regclass/regtype/regnamespace value.
type regValue struct {
	oid  int64
	name string
}

// truth is a WHERE/ON result: only a true bool passes.
func truth(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// asInt reads v as an integer (OIDs, attnum, typmod, numeric strings).
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), x == math.Trunc(x)
	case regValue:
		return x.oid, true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case regValue:
		return float64(x.oid), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// asBool reads PostgreSQL's boolean spellings.
func asBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "t", "true", "yes", "y", "on", "1":
			return true, true
		case "f", "false", "no", "n", "off", "0":
			return false, true
		}
	case int64:
		return x != 0, true
	}
	return false, false
}

// text is PostgreSQL's text output of v.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "t"
		}
		return "f"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case regValue:
		if x.name != "" {
			return x.name
		}
		return strconv.FormatInt(x.oid, 10)
	case []any:
		return arrayText(x)
	case record:
		return fmt.Sprint(map[string]any(x))
	}
	return fmt.Sprint(v)
}

// arrayText is an array's text form: {a,b,"c d",NULL}.
func arrayText(a []any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		if e == nil {
			b.WriteString("NULL")
			continue
		}
		s := text(e)
		if s == "" || strings.ContainsAny(s, `{}," \`) || strings.EqualFold(s, "null") {
			s = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
		}
		b.WriteString(s)
	}
	b.WriteByte('}')
	return b.String()
}

// parseArray reads a one-dimensional array literal such as '{0}'.
func parseArray(s string) ([]any, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	if body == "" {
		return []any{}, true
	}
	var out []any
	for _, p := range strings.Split(body, ",") {
		p = strings.TrimSpace(p)
		if strings.EqualFold(p, "null") {
			out = append(out, nil)
			continue
		}
		out = append(out, strings.Trim(p, `"`))
	}
	return out, true
}

// compare orders two non-null values the way PostgreSQL would after
// coercing an untyped literal to the other side's type.
func compare(a, b any) int {
	if ra, ok := a.(regValue); ok {
		a = ra.oid
	}
	if rb, ok := b.(regValue); ok {
		b = rb.oid
	}
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmpOrdered(x, y)
		}
		if y, ok := asFloat(b); ok {
			return cmpOrdered(float64(x), y)
		}
	case float64:
		if y, ok := asFloat(b); ok {
			return cmpOrdered(x, y)
		}
	case bool:
		if y, ok := asBool(b); ok {
			return cmpOrdered(boolInt(x), boolInt(y))
		}
	case string:
		switch b.(type) {
		case int64, float64:
			return -compare(b, a)
		case bool:
			return -compare(b, a)
		}
	case []any:
		if s, ok := b.(string); ok {
			if arr, ok := parseArray(s); ok {
				return strings.Compare(arrayText(x), arrayText(arr))
			}
		}
	}
	return strings.Compare(text(a), text(b))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpOrdered[T int64 | float64 | int](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// datum converts an evaluator value to the datum form of t that sql's
// Arrow builders take.
func datum(v any, t sql.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case sql.KindBool:
		if b, ok := asBool(v); ok {
			return b, nil
		}
	case sql.KindInt16, sql.KindInt32, sql.KindInt64, sql.KindOID:
		if n, ok := asInt(v); ok {
			return n, nil
		}
	case sql.KindFloat32, sql.KindFloat64:
		if f, ok := asFloat(v); ok {
			return f, nil
		}
	default:
		return text(v), nil
	}
	return nil, sql.Errorf(sql.CodeInvalidTextRep, "invalid input syntax for type %s: %q", t, text(v))
}
