package lake

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// partitionBounds gathers one partition field's summary in a manifest:
// whether any entry's value is null or NaN, and the least and greatest of
// the others, as Iceberg's single-value serialization.
type partitionBounds struct {
	fieldID   int
	typ       iceberg.Type
	unknown   bool // the source column's type is gone: values are written as null
	null, nan bool
	lo, hi    iceberg.Literal
}

func newPartitionBounds(spec iceberg.PartitionSpec, schema *iceberg.Schema) ([]partitionBounds, error) {
	fields := spec.PartitionType(schema).FieldList
	out := make([]partitionBounds, len(fields))
	for i, f := range fields {
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return nil, fmt.Errorf("partition field %s is not of a primitive type", f.Name)
		}
		_, unknown := f.Type.(iceberg.UnknownType)
		out[i] = partitionBounds{fieldID: f.ID, typ: f.Type, unknown: unknown}
	}
	return out, nil
}

func (b *partitionBounds) update(v any) error {
	if v == nil || b.unknown {
		b.null = true
		return nil
	}
	lit, err := partitionLiteral(v, b.typ)
	if err != nil {
		return err
	}
	if isNaNLiteral(lit) {
		b.nan = true
		return nil
	}
	if b.lo == nil {
		b.lo, b.hi = lit, lit
		return nil
	}
	below, okLo := orderLiterals(lit, b.lo)
	above, okHi := orderLiterals(lit, b.hi)
	if !okLo || !okHi {
		return fmt.Errorf("partition value %v cannot be ordered as %s", v, b.typ)
	}
	if below < 0 {
		b.lo = lit
	}
	if above > 0 {
		b.hi = lit
	}
	return nil
}

func (b *partitionBounds) summary() iceberg.FieldSummary {
	nan := b.nan
	s := iceberg.FieldSummary{ContainsNull: b.null, ContainsNaN: &nan}
	if b.lo != nil {
		lo, _ := b.lo.MarshalBinary() // a literal of a primitive type always serializes
		hi, _ := b.hi.MarshalBinary()
		s.LowerBound, s.UpperBound = &lo, &hi
	}
	return s
}

// orderLiterals is compareLiterals, and nanosecond timestamps.
func orderLiterals(a, b iceberg.Literal) (int, bool) {
	if x, ok := a.(iceberg.TypedLiteral[iceberg.TimestampNano]); ok {
		return compareTyped(x, b)
	}
	return compareLiterals(a, b)
}

var errPartitionValue = errors.New("partition value does not fit its type")

// partitionLiteral is partition value v as a literal of the field's type
// t. Values come as iceberg-go's manifest reader gives them (Date,
// Timestamp, Decimal, uuid.UUID, ...), as plain Go numbers, or as literals.
func partitionLiteral(v any, t iceberg.Type) (iceberg.Literal, error) {
	if l, ok := v.(iceberg.Literal); ok {
		v = l.Any()
	}
	var lit iceberg.Literal
	switch t.(type) {
	case iceberg.BooleanType:
		if x, ok := v.(bool); ok {
			lit = iceberg.NewLiteral(x)
		}
	case iceberg.Int32Type:
		if x, ok := integerOf(v); ok {
			lit = iceberg.NewLiteral(int32(x))
		}
	case iceberg.DateType:
		if x, ok := integerOf(v); ok {
			lit = iceberg.NewLiteral(iceberg.Date(x))
		}
	case iceberg.Int64Type:
		if x, ok := integerOf(v); ok {
			lit = iceberg.NewLiteral(x)
		}
	case iceberg.TimeType:
		if x, ok := integerOf(v); ok {
			lit = iceberg.NewLiteral(iceberg.Time(x))
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		if x, ok := integerOf(v); ok {
			lit = iceberg.NewLiteral(iceberg.Timestamp(x))
		}
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if x, ok := integerOf(v); ok {
			lit = iceberg.NewLiteral(iceberg.TimestampNano(x))
		}
	case iceberg.Float32Type:
		if x, ok := floatOf(v); ok {
			lit = iceberg.NewLiteral(float32(x))
		}
	case iceberg.Float64Type:
		if x, ok := floatOf(v); ok {
			lit = iceberg.NewLiteral(x)
		}
	case iceberg.StringType:
		switch x := v.(type) {
		case string:
			lit = iceberg.NewLiteral(x)
		case []byte:
			lit = iceberg.NewLiteral(string(x))
		}
	case iceberg.BinaryType, iceberg.FixedType:
		switch x := v.(type) {
		case []byte:
			lit = iceberg.NewLiteral(slices.Clone(x))
		case string:
			lit = iceberg.NewLiteral([]byte(x))
		}
	case iceberg.UUIDType:
		switch x := v.(type) {
		case uuid.UUID:
			lit = iceberg.NewLiteral(x)
		case [16]byte:
			lit = iceberg.NewLiteral(uuid.UUID(x))
		case []byte:
			if u, err := uuid.FromBytes(x); err == nil {
				lit = iceberg.NewLiteral(u)
			}
		}
	case iceberg.DecimalType:
		if x, ok := v.(iceberg.Decimal); ok {
			lit = iceberg.NewLiteral(x)
		}
	}
	if lit == nil {
		return nil, fmt.Errorf("%w: %v as %s", errPartitionValue, v, t)
	}
	return lit, nil
}

func integerOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case iceberg.Date:
		return int64(x), true
	case iceberg.Time:
		return int64(x), true
	case iceberg.Timestamp:
		return int64(x), true
	case iceberg.TimestampNano:
		return int64(x), true
	}
	return 0, false
}

func floatOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	if i, ok := integerOf(v); ok {
		return float64(i), true
	}
	return 0, false
}
