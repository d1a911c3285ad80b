package lake

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// toContract turns every non-contract type iceberg-go may hand back into the
// contract type, value by value, nulls kept. Expected values are worked out
// here by plain arithmetic on the inputs.
func TestToContractConversions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	const day = int64(86_400_000)
	cases := []struct {
		name  string
		build func() arrow.Array
		want  arrow.DataType
		texts []string // "NULL" for null
	}{
		{"int8", func() arrow.Array {
			b := array.NewInt8Builder(mem)
			b.AppendValues([]int8{-128, 0, 127}, []bool{true, false, true})
			return b.NewArray()
		}, arrow.PrimitiveTypes.Int32, []string{"-128", "NULL", "127"}},
		{"uint32", func() arrow.Array {
			b := array.NewUint32Builder(mem)
			b.AppendValues([]uint32{4294967295, 1}, nil)
			return b.NewArray()
		}, arrow.PrimitiveTypes.Int64, []string{"4294967295", "1"}},
		{"large string", func() arrow.Array {
			b := array.NewLargeStringBuilder(mem)
			b.AppendValues([]string{"ü", "", "x"}, []bool{true, true, false})
			return b.NewArray()
		}, arrow.BinaryTypes.String, []string{"ü", "", "NULL"}},
		{"large binary", func() arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.LargeBinary)
			b.AppendValues([][]byte{{0, 255}, nil}, []bool{true, false})
			return b.NewArray()
		}, arrow.BinaryTypes.Binary, []string{"[0 255]", "NULL"}},
		{"date64", func() arrow.Array {
			b := array.NewDate64Builder(mem)
			b.AppendValues([]arrow.Date64{arrow.Date64(3 * day), arrow.Date64(-2 * day), 0}, []bool{true, true, false})
			return b.NewArray()
		}, arrow.FixedWidthTypes.Date32, []string{"3", "-2", "NULL"}},
		{"time32 ms", func() arrow.Array {
			b := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Millisecond})
			b.AppendValues([]arrow.Time32{1500, 0}, []bool{true, false})
			return b.NewArray()
		}, arrow.FixedWidthTypes.Time64us, []string{"1500000", "NULL"}},
		{"time64 ns", func() arrow.Array {
			b := array.NewTime64Builder(mem, &arrow.Time64Type{Unit: arrow.Nanosecond})
			b.AppendValues([]arrow.Time64{1999, 0}, nil)
			return b.NewArray()
		}, arrow.FixedWidthTypes.Time64us, []string{"1", "0"}},
		{"timestamp ns floors", func() arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
			b.AppendValues([]arrow.Timestamp{-1, 2500, 0}, []bool{true, true, false})
			return b.NewArray()
		}, &arrow.TimestampType{Unit: arrow.Microsecond}, []string{"-1", "2", "NULL"}},
		{"timestamptz s", func() arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"})
			b.AppendValues([]arrow.Timestamp{-3, 7}, nil)
			return b.NewArray()
		}, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, []string{"-3000000", "7000000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.build()
			defer in.Release()
			out, err := toContract(mem, in)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if !arrow.TypeEqual(out.DataType(), c.want) {
				t.Fatalf("type %s, want %s", out.DataType(), c.want)
			}
			if out.Len() != len(c.texts) {
				t.Fatalf("%d values, want %d", out.Len(), len(c.texts))
			}
			for i, w := range c.texts {
				if g := valueText(out, i); g != w {
					t.Errorf("value %d: %s, want %s", i, g, w)
				}
			}
		})
	}
}

// valueText prints a contract array's raw value (days, microseconds, bytes).
func valueText(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return "NULL"
	}
	switch a := arr.(type) {
	case *array.Int32:
		return fmt.Sprint(a.Value(i))
	case *array.Int64:
		return fmt.Sprint(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return fmt.Sprint(a.Value(i))
	case *array.Date32:
		return fmt.Sprint(int32(a.Value(i)))
	case *array.Time64:
		return fmt.Sprint(int64(a.Value(i)))
	case *array.Timestamp:
		return fmt.Sprint(int64(a.Value(i)))
	}
	return fmt.Sprintf("?%T", arr)
}
