package deletes

import (
	"testing"

	"github.com/apache/iceberg-go"
)

// Statistics prove a predicate for a whole file only from exact bounds of
// integer-like columns with no nulls; each case is worked out by hand.
func TestMetricsProof(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "x", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 3, Name: "s", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "d", Type: iceberg.PrimitiveTypes.Date},
	)
	lit := func(v any) []byte {
		var l iceberg.Literal
		switch x := v.(type) {
		case int64:
			l = iceberg.NewLiteral(x)
		case float64:
			l = iceberg.NewLiteral(x)
		case string:
			l = iceberg.NewLiteral(x)
		case iceberg.Date:
			l = iceberg.NewLiteral(x)
		}
		b, err := l.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	file := func(nulls map[int]int64) iceberg.DataFile {
		b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentData, "f.parquet",
			iceberg.ParquetFile, nil, nil, nil, 20, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return b.NullValueCounts(nulls).
			LowerBoundValues(map[int][]byte{1: lit(int64(20)), 2: lit(1.0), 3: lit("a"), 4: lit(iceberg.Date(100))}).
			UpperBoundValues(map[int][]byte{1: lit(int64(39)), 2: lit(2.0), 3: lit("b"), 4: lit(iceberg.Date(110))}).
			Build()
	}
	noNulls := file(map[int]int64{1: 0, 2: 0, 3: 0, 4: 0})
	id := iceberg.Reference("id")
	for _, c := range []struct {
		name string
		df   iceberg.DataFile
		expr iceberg.BooleanExpression
		want bool
	}{
		{"range covers the file", noNulls, iceberg.NewAnd(iceberg.GreaterThanEqual(id, int64(20)), iceberg.LessThan(id, int64(40))), true},
		{"range starts inside", noNulls, iceberg.GreaterThanEqual(id, int64(21)), false},
		{"guarded by not_null", noNulls, iceberg.NewAnd(iceberg.LessThanEqual(id, int64(39)), iceberg.NotNull(id)), true},
		{"one arm of an OR", noNulls, iceberg.NewOr(iceberg.LessThan(id, int64(10)), iceberg.GreaterThanEqual(id, int64(20))), true},
		{"not-in outside the bounds", noNulls, iceberg.NotIn(id, int64(5), int64(50)), true},
		{"not-in inside the bounds", noNulls, iceberg.NotIn(id, int64(25)), false},
		{"date bounds", noNulls, iceberg.LessThan(iceberg.Reference("d"), iceberg.Date(111)), true},
		{"a null in the column", file(map[int]int64{1: 1}), iceberg.GreaterThanEqual(id, int64(0)), false},
		{"null count unknown", file(map[int]int64{}), iceberg.GreaterThanEqual(id, int64(0)), false},
		{"float bounds are never trusted (NaN)", noNulls, iceberg.GreaterThanEqual(iceberg.Reference("x"), 0.0), false},
		{"string bounds are never trusted (truncation)", noNulls, iceberg.GreaterThanEqual(iceberg.Reference("s"), "a"), false},
		{"not_null with no nulls", noNulls, iceberg.NotNull(iceberg.Reference("s")), true},
	} {
		bound, err := bindStrict(sc, c.expr, true)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := (metricsProof{df: c.df}).provesAll(bound); got != c.want {
			t.Errorf("%s: proof %v, want %v", c.name, got, c.want)
		}
	}
}
