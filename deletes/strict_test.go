package deletes

import (
	"testing"

	"github.com/apache/iceberg-go"
)

// TestPartitionProof checks the strict projection against hand-worked cases,
// including the ones that must NOT be proven (nulls, partial ranges, bucket).
func TestPartitionProof(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "cat", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "d", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 4, Name: "x", Type: iceberg.PrimitiveTypes.Float64},
	)
	spec := iceberg.NewPartitionSpec(
		iceberg.PartitionField{SourceIDs: []int{2}, FieldID: 1000, Name: "cat", Transform: iceberg.IdentityTransform{}},
		iceberg.PartitionField{SourceIDs: []int{3}, FieldID: 1001, Name: "d_month", Transform: iceberg.MonthTransform{}},
		iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1002, Name: "id_trunc", Transform: iceberg.TruncateTransform{Width: 10}},
		iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1003, Name: "id_bucket", Transform: iceberg.BucketTransform{NumBuckets: 4}},
		iceberg.PartitionField{SourceIDs: []int{4}, FieldID: 1004, Name: "x", Transform: iceberg.IdentityTransform{}},
	)
	// March 2024 is month 650 since 1970-01; days 19783..19813.
	part := map[int]any{1000: "a", 1001: int32(650), 1002: int64(20), 1003: int32(1), 1004: nil}
	ref := func(s string) iceberg.Reference { return iceberg.Reference(s) }
	cases := []struct {
		name string
		e    iceberg.BooleanExpression
		want bool
	}{
		{"identity eq", iceberg.EqualTo(ref("cat"), "a"), true},
		{"identity other", iceberg.EqualTo(ref("cat"), "b"), false},
		{"identity in", iceberg.IsIn(ref("cat"), "a", "b"), true},
		{"identity not eq", iceberg.NotEqualTo(ref("cat"), "b"), true},
		{"not of eq", iceberg.NewNot(iceberg.EqualTo(ref("cat"), "b")), true},
		{"month inside range", iceberg.NewAnd(iceberg.GreaterThanEqual(ref("d"), iceberg.Date(19783)), iceberg.LessThan(ref("d"), iceberg.Date(19814))), true},
		{"month partly outside", iceberg.GreaterThanEqual(ref("d"), iceberg.Date(19784)), false},
		{"truncate range", iceberg.LessThan(ref("id"), int64(30)), true},
		{"truncate partial", iceberg.LessThan(ref("id"), int64(29)), false},
		{"bucket cannot prove", iceberg.EqualTo(ref("id"), int64(25)), false},
		{"null partition is not > 0", iceberg.GreaterThan(ref("x"), 0.0), false},
		{"null partition proves is null", iceberg.IsNull(ref("x")), true},
		{"or with one proven side", iceberg.NewOr(iceberg.EqualTo(ref("cat"), "a"), iceberg.EqualTo(ref("id"), int64(3))), true},
		{"and with unprovable side", iceberg.NewAnd(iceberg.EqualTo(ref("cat"), "a"), iceberg.EqualTo(ref("id"), int64(3))), false},
		{"always true", iceberg.AlwaysTrue{}, true},
	}
	for _, c := range cases {
		bound, err := bindStrict(sc, c.e, true)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := (partitionProof{spec: &spec, part: part}).provesAll(bound); got != c.want {
			t.Errorf("%s: proves %v, want %v", c.name, got, c.want)
		}
	}
}
