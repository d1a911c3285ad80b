package sql

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
)

// Unconstrained numeric (no typmod: avg(), division, sum(bigint), '2.5'::numeric)
// is arbitrary precision in PostgreSQL and every value keeps its own display
// scale: 1::numeric/3 shows 20 decimals, 100::numeric/3 shows 18, in one
// column. decimal128 has 38 digits and one scale per column, so such values
// travel as their canonical text instead. Table columns are always numeric(p,s)
// (Iceberg decimals) and stay decimal128.

// numericMaxDigits bounds a value's digits before the point, as PostgreSQL's
// numeric format does (NUMERIC_MAX_PRECISION-style limit of 131072 digits).
const numericMaxDigits = 131072

// NumericType is the Arrow extension type of unconstrained numeric.
type NumericType struct{ arrow.ExtensionBase }

// NewNumericType returns the unconstrained numeric extension type.
func NewNumericType() *NumericType {
	return &NumericType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.BinaryTypes.String}}
}

// ArrayType is the array of NumericType values.
func (*NumericType) ArrayType() reflect.Type { return reflect.TypeOf(NumericArray{}) }

// ExtensionName names the type in Arrow metadata.
func (*NumericType) ExtensionName() string { return "magmalake.numeric" }

// Serialize has no parameters to carry.
func (*NumericType) Serialize() string { return "" }

// Deserialize accepts only string storage.
func (*NumericType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	if !arrow.TypeEqual(storage, arrow.BinaryTypes.String) {
		return nil, fmt.Errorf("numeric extension over %s", storage)
	}
	return NewNumericType(), nil
}

// ExtensionEquals: all unconstrained numerics are one type.
func (t *NumericType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName()
}

func (*NumericType) String() string { return "numeric" }

// NewBuilder makes array.NewBuilder return a NumericBuilder.
func (*NumericType) NewBuilder(mem memory.Allocator) array.Builder {
	return &NumericBuilder{ExtensionBuilder: array.NewExtensionBuilder(mem, NewNumericType())}
}

// NumericArray holds unconstrained numeric values as canonical text.
type NumericArray struct{ array.ExtensionArrayBase }

// Text is value i as PostgreSQL prints it.
func (a *NumericArray) Text(i int) string { return a.Storage().(*array.String).Value(i) }

// Decimal is value i; the text was written by NumericBuilder, so it parses.
func (a *NumericArray) Decimal(i int) Decimal {
	d, _ := ParseDecimal(a.Text(i))
	return d
}

// NumericBuilder builds a NumericArray.
type NumericBuilder struct{ *array.ExtensionBuilder }

// Append adds d at its own display scale; a value past numeric's range is 22003.
func (b *NumericBuilder) Append(d Decimal) error {
	if d.Coef.IsInt64() && d.Scale >= 0 {
		// Most values: printed from an int64 without big.Int's formatting
		// (extract() returns numeric, per row).
		var buf [24]byte
		b.Builder.(*array.StringBuilder).BinaryBuilder.Append(AppendScaled(buf[:0], d.Coef.Int64(), d.Scale))
		return nil
	}
	if d.intDigits() > numericMaxDigits {
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	b.Builder.(*array.StringBuilder).Append(d.String())
	return nil
}

// NumericKey is the canonical form of a numeric value for grouping and
// hashing: 1.50 and 1.5 are equal in PostgreSQL, so trailing zeros go.
func NumericKey(text string) string {
	if !strings.Contains(text, ".") {
		return text
	}
	text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
	if text == "-0" {
		return "0"
	}
	return text
}
