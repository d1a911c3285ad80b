package engine

import (
	"fmt"

	"github.com/magmalake/magmalake/sql"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// AppendFrom appends value i of arr (of the builder's type) to b.
func AppendFrom(b array.Builder, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		b.AppendNull()
		return nil
	}
	switch x := arr.(type) {
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(x.Value(i))
	case *array.Int16:
		b.(*array.Int16Builder).Append(x.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(x.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(x.Value(i))
	case *array.Uint32:
		b.(*array.Uint32Builder).Append(x.Value(i))
	case *array.Float32:
		b.(*array.Float32Builder).Append(x.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(x.Value(i))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(x.Value(i))
	case *sql.NumericArray:
		b.(*sql.NumericBuilder).Builder.(*array.StringBuilder).Append(x.Text(i))
	case *array.String:
		b.(*array.StringBuilder).Append(x.Value(i))
	case *array.Binary:
		b.(*array.BinaryBuilder).Append(x.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(x.Value(i))
	case *array.Time64:
		b.(*array.Time64Builder).Append(x.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(x.Value(i))
	case *extensions.UUIDArray:
		b.(*extensions.UUIDBuilder).Append(x.Value(i))
	case *array.MonthDayNanoInterval:
		b.(*array.MonthDayNanoIntervalBuilder).Append(x.Value(i))
	default:
		return fmt.Errorf("copy value of arrow type %s", arr.DataType())
	}
	return nil
}
