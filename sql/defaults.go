package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/magmalake/magmalake/pgerr"
)

// A column default is stored in the Iceberg schema (format v3): the
// write-default is what a row written without the column gets, the
// initial-default what rows of files written before the column existed
// read as. Iceberg keeps a value, not an expression, so a default must be
// a constant: DEFAULT now() would be frozen at the moment of the DDL.

// DefaultArray evaluates DEFAULT's expression n for column col of type
// t, as a value stored into it: one row of t's Arrow type (the caller
// fits it to a declared length, then releases it).
func DefaultArray(ctx context.Context, n Syntax, col string, t Type) (arrow.Array, error) {
	e, err := BindAssigned(n, nil, ScopeColumn{Name: col, T: t}, nil)
	if err != nil {
		return nil, err
	}
	if !constantTree(e) {
		return nil, &pgerr.Error{Code: pgerr.FeatureNotSupported,
			Message: fmt.Sprintf("the default of column %q must be a constant", col),
			Hint:    "An Iceberg schema stores a default value, not an expression evaluated per row."}
	}
	return Eval(ctx, e, nil, nil)
}

// DefaultLiteral is the Iceberg literal of row 0 of arr (DefaultArray's),
// or nil for NULL: no default.
func DefaultLiteral(arr arrow.Array, col string, t Type) (iceberg.Literal, error) {
	v := DatumAt(arr, t, 0)
	if v == nil {
		return nil, nil
	}
	lit, res := literalFor(&ColumnRef{Name: col, T: t}, &Const{Value: v, T: t})
	if res != litExact {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "a default of type %s cannot be stored in an Iceberg schema", t)
	}
	it, err := t.IcebergType()
	if err != nil {
		return nil, err
	}
	return typedLiteral{lit, it}, nil
}

// typedLiteral is a default of the column's own Iceberg type: iceberg-go's
// literals say decimal(9, 2) for 1.50 and timestamp for a timestamptz
// value, and adding a column whose default's type differs is refused.
type typedLiteral struct {
	iceberg.Literal
	t iceberg.Type
}

func (l typedLiteral) Type() iceberg.Type { return l.t }

// Any is the default as iceberg-go takes it. iceberg-go holds a timestamptz
// value as a Timestamp, which it takes for a timestamp without time zone:
// SET DEFAULT on a timestamptz column was refused ("value of type
// timestamp does not match column type timestamptz"). A JSON number of
// microseconds it takes for either, exactly; the schema committed holds
// the spec's string (lake.SpecSchema).
func (l typedLiteral) Any() any {
	v := l.Literal.Any()
	if ts, ok := v.(iceberg.Timestamp); ok && l.t.Equals(iceberg.PrimitiveTypes.TimestampTz) {
		return json.Number(strconv.FormatInt(int64(ts), 10))
	}
	return v
}

// constantTree reports whether e computes a value from constants alone:
// literals, casts and operators (functions may be volatile).
func constantTree(e Expr) bool {
	switch x := e.(type) {
	case *Const:
		return true
	case *Cast:
		return constantTree(x.X)
	case *UnaryOp:
		return constantTree(x.X)
	case *BinaryOp:
		return constantTree(x.L) && constantTree(x.R)
	}
	return false
}

// DefaultConst is an Iceberg default value as a constant of column type
// t. iceberg-go holds it typed (int32, ice.Date, ...) when the schema was
// built in memory, and as decoded JSON (float64 numbers; strings for
// dates, times, decimals, binary in hex, uuids) when it was read from
// metadata: those are read as PostgreSQL reads the same text.
func DefaultConst(t Type, v any) (*Const, error) {
	switch x := v.(type) {
	case string:
		if t.Kind == KindBytea {
			x = `\x` + x
		}
		return textDefault(t, x)
	case float64:
		if t.Kind != KindFloat32 && t.Kind != KindFloat64 {
			return textDefault(t, strconv.FormatFloat(x, 'f', -1, 64))
		}
	case bool:
		if t.Kind != KindBool {
			return nil, fmt.Errorf("default value %v for a column of type %s", v, t)
		}
	}
	var d any
	switch x := v.(type) {
	case bool, string, int64, float64:
		d = x
	case int32:
		d = int64(x)
	case float32:
		d = float64(x)
	case []byte:
		d = append([]byte(nil), x...)
	case uuid.UUID:
		d = [16]byte(x)
	case iceberg.Date:
		d = int64(x)
	case iceberg.Time:
		d = int64(x)
	case iceberg.Timestamp:
		d = int64(x)
	case iceberg.Decimal:
		d = DecimalFromNum128(x.Val, x.Scale)
	default:
		return nil, fmt.Errorf("default value %v of type %T for a column of type %s", v, v, t)
	}
	return &Const{Value: d, T: t}, nil
}

// textDefault reads text as a value of type t, with t's input function.
func textDefault(t Type, text string) (*Const, error) {
	arr, err := Eval(context.Background(), &Cast{X: &Const{Value: text, T: Text}, T: t}, nil, nil)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return &Const{Value: DatumAt(arr, t, 0), T: t}, nil
}
