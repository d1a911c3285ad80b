package lake

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// PartitionValueKey spells one partition value (a Go value or a literal)
// so that equal values of any type give equal keys and different ones
// different keys.
func PartitionValueKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "N"
	case iceberg.Literal:
		return PartitionValueKey(x.Any())
	case int32:
		return "i" + strconv.FormatInt(int64(x), 10)
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case int:
		return "i" + strconv.Itoa(x)
	case iceberg.Date:
		return "i" + strconv.FormatInt(int64(x), 10)
	case iceberg.Time:
		return "i" + strconv.FormatInt(int64(x), 10)
	case iceberg.Timestamp:
		return "i" + strconv.FormatInt(int64(x), 10)
	case string:
		return "s" + strconv.Quote(x)
	case []byte:
		return "b" + hex.EncodeToString(x)
	case uuid.UUID:
		return "b" + hex.EncodeToString(x[:])
	case [16]byte:
		return "b" + hex.EncodeToString(x[:])
	case bool:
		return "t" + strconv.FormatBool(x)
	case float32:
		return "f" + strconv.FormatFloat(float64(x), 'g', -1, 64)
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case iceberg.Decimal:
		return "d" + x.Val.ToString(int32(x.Scale))
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

// PartitionRowKey writes row i's partition tuple under fields to sb as
// PartitionValueKey spells each transformed value ("N" for null), each
// followed by '|': the key of a data file's partition values spelled the
// same way. cols[k] is field k's source column in b, types[k] its type.
func PartitionRowKey(sb *strings.Builder, fields []iceberg.PartitionField, cols []int, types []iceberg.Type, b arrow.RecordBatch, i int) error {
	for k, f := range fields {
		lit, err := ArrowLiteral(b.Column(cols[k]), i, types[k])
		if err != nil {
			return fmt.Errorf("partition field %s: %w", f.Name, err)
		}
		if v := f.Transform.Apply(lit); v.Valid {
			sb.WriteString(PartitionValueKey(v.Val))
		} else {
			sb.WriteString("N")
		}
		sb.WriteByte('|')
	}
	return nil
}

// ErrUnsupportedPartitionSource: ArrowLiteral has no literal for the column's type.
var ErrUnsupportedPartitionSource = errors.New("unsupported partition source type")

// ArrowLiteral is row i of arr as an Iceberg literal of type t.
func ArrowLiteral(arr arrow.Array, i int, t iceberg.Type) (iceberg.Optional[iceberg.Literal], error) {
	none := iceberg.Optional[iceberg.Literal]{}
	if arr.IsNull(i) {
		return none, nil
	}
	var lit iceberg.Literal
	switch a := arr.(type) {
	case *array.Int32:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.Int64:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.Int16:
		lit = iceberg.NewLiteral(int32(a.Value(i)))
	case *array.String:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.LargeString:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.Binary:
		lit = iceberg.NewLiteral(append([]byte{}, a.Value(i)...))
	case *array.LargeBinary:
		lit = iceberg.NewLiteral(append([]byte{}, a.Value(i)...))
	case *array.Boolean:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.Float32:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.Float64:
		lit = iceberg.NewLiteral(a.Value(i))
	case *array.Date32:
		lit = iceberg.NewLiteral(iceberg.Date(a.Value(i)))
	case *array.Timestamp:
		lit = iceberg.NewLiteral(iceberg.Timestamp(a.Value(i)))
	case *array.Time64:
		lit = iceberg.NewLiteral(iceberg.Time(a.Value(i)))
	case *array.Decimal128:
		lit = iceberg.NewLiteral(iceberg.Decimal{Val: a.Value(i), Scale: int(a.DataType().(*arrow.Decimal128Type).Scale)})
	default:
		return none, fmt.Errorf("%w %s", ErrUnsupportedPartitionSource, arr.DataType())
	}
	if t != nil && !lit.Type().Equals(t) {
		conv, err := lit.To(t)
		if err == nil {
			lit = conv
		}
	}
	return iceberg.Optional[iceberg.Literal]{Val: lit, Valid: true}, nil
}
