package lake

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// specDefaultCases are typed defaults and their JSON as the Iceberg spec's
// "JSON single-value serialization" table writes them (its examples where
// it has one for the type), written out here from the spec, not derived
// from the code under test.
var specDefaultCases = []struct {
	t     iceberg.Type
	typed any
	json  string
}{
	{iceberg.PrimitiveTypes.Bool, true, `true`},
	{iceberg.PrimitiveTypes.Int32, int32(34), `34`},
	{iceberg.PrimitiveTypes.Int32, int32(-2147483648), `-2147483648`},
	{iceberg.PrimitiveTypes.Int64, int64(34), `34`},
	{iceberg.PrimitiveTypes.Int64, int64(-(1 << 53)), `-9007199254740992`},
	{iceberg.PrimitiveTypes.Float32, float32(1.0), `1`},
	{iceberg.PrimitiveTypes.Float32, float32(1.1), `1.1`},
	{iceberg.PrimitiveTypes.Float64, 1.0, `1`},
	{iceberg.PrimitiveTypes.Float64, -2.5e-300, `-2.5e-300`},
	{iceberg.DecimalTypeOf(9, 2), iceberg.Decimal{Val: decimal128.FromI64(1420), Scale: 2}, `"14.20"`},
	{iceberg.DecimalTypeOf(9, 2), iceberg.Decimal{Val: decimal128.FromI64(0), Scale: 2}, `"0.00"`},
	{iceberg.DecimalTypeOf(9, 3), iceberg.Decimal{Val: decimal128.FromI64(-5), Scale: 3}, `"-0.005"`},
	{iceberg.DecimalTypeOf(38, 0), iceberg.Decimal{Val: decimal128.FromBigInt(bigTen(37)), Scale: 0}, `"10000000000000000000000000000000000000"`},
	{iceberg.PrimitiveTypes.Date, iceberg.Date(17486), `"2017-11-16"`},
	{iceberg.PrimitiveTypes.Date, iceberg.Date(-719528), `"0000-01-01"`},
	{iceberg.PrimitiveTypes.Date, iceberg.Date(-719529), `"-0001-12-31"`},
	{iceberg.PrimitiveTypes.Date, iceberg.Date(2932897), `"+10000-01-01"`},
	{iceberg.PrimitiveTypes.Time, iceberg.Time(81068123456), `"22:31:08.123456"`},
	{iceberg.PrimitiveTypes.Time, iceberg.Time(0), `"00:00:00.000000"`},
	{iceberg.PrimitiveTypes.Timestamp, iceberg.Timestamp(1510871468123456), `"2017-11-16T22:31:08.123456"`},
	{iceberg.PrimitiveTypes.Timestamp, iceberg.Timestamp(-1), `"1969-12-31T23:59:59.999999"`},
	{iceberg.PrimitiveTypes.TimestampTz, iceberg.Timestamp(1510871468123456), `"2017-11-16T22:31:08.123456+00:00"`},
	{iceberg.PrimitiveTypes.TimestampNs, iceberg.TimestampNano(1510871468123456789), `"2017-11-16T22:31:08.123456789"`},
	{iceberg.PrimitiveTypes.TimestampTzNs, iceberg.TimestampNano(1510871468123456789), `"2017-11-16T22:31:08.123456789+00:00"`},
	{iceberg.PrimitiveTypes.String, "iceberg", `"iceberg"`},
	{iceberg.PrimitiveTypes.UUID, uuid.MustParse("F79C3E09-677C-4BBD-A479-3F349CB785E7"), `"f79c3e09-677c-4bbd-a479-3f349cb785e7"`},
	{iceberg.FixedTypeOf(4), []byte{0, 1, 2, 0xff}, `"000102ff"`},
	{iceberg.PrimitiveTypes.Binary, []byte{0, 1, 2, 0xff}, `"000102ff"`},
	{iceberg.PrimitiveTypes.Binary, []byte{}, `""`},
}

func bigTen(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// TestSpecDefaultJSON: a typed default (as iceberg-go holds one built in
// memory) is written as the spec says, through iceberg-go's own field
// encoding; the JSON read back (as iceberg-go decodes a metadata file)
// gives the same typed value, and is already in the JSON form.
func TestSpecDefaultJSON(t *testing.T) {
	for _, c := range specDefaultCases {
		spec, err := SpecDefault(c.t, c.typed)
		if err != nil {
			t.Fatalf("%s %v: %v", c.t, c.typed, err)
		}
		b, err := json.Marshal(iceberg.NestedField{ID: 1, Name: "c", Type: c.t, InitialDefault: spec, WriteDefault: spec})
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Initial json.RawMessage `json:"initial-default"`
			Write   json.RawMessage `json:"write-default"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if string(raw.Initial) != c.json || string(raw.Write) != c.json {
			t.Errorf("%s %v: written as %s / %s, want %s", c.t, c.typed, raw.Initial, raw.Write, c.json)
		}
		var back iceberg.NestedField
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.InitialDefault, spec) {
			t.Errorf("%s: read back as %#v, held as %#v", c.t, back.InitialDefault, spec)
		}
		typed, err := TypedDefault(c.t, back.WriteDefault)
		if err != nil {
			t.Fatalf("%s %s: %v", c.t, c.json, err)
		}
		if !reflect.DeepEqual(typed, c.typed) && !(len(c.json) == 2 && reflect.DeepEqual(typed, []byte{})) {
			t.Errorf("%s %s: read as %#v, want %#v", c.t, c.json, typed, c.typed)
		}
	}
}

// TestTypedDefaultReadsOtherWriters: what other writers put in metadata
// files reads too: iceberg-go's numbers for dates, times and timestamps,
// Java's shorter times and its upper-case hex, other zone spellings.
func TestTypedDefaultReadsOtherWriters(t *testing.T) {
	for _, c := range []struct {
		t    iceberg.Type
		v    any
		want any
	}{
		{iceberg.PrimitiveTypes.Date, 17486.0, iceberg.Date(17486)},
		{iceberg.PrimitiveTypes.Time, 81068123456.0, iceberg.Time(81068123456)},
		{iceberg.PrimitiveTypes.TimestampTz, 1510871468123456.0, iceberg.Timestamp(1510871468123456)},
		{iceberg.PrimitiveTypes.Time, "22:31", iceberg.Time(81060000000)},
		{iceberg.PrimitiveTypes.Time, "22:31:08.5", iceberg.Time(81068500000)},
		{iceberg.PrimitiveTypes.Timestamp, "2017-11-16T22:31:08", iceberg.Timestamp(1510871468000000)},
		{iceberg.PrimitiveTypes.TimestampTz, "2017-11-16T22:31:08Z", iceberg.Timestamp(1510871468000000)},
		{iceberg.PrimitiveTypes.TimestampTz, "2017-11-16T23:31:08+01:00", iceberg.Timestamp(1510871468000000)},
		{iceberg.PrimitiveTypes.Binary, "000102FF", []byte{0, 1, 2, 0xff}},
		{iceberg.PrimitiveTypes.Int64, 7.0, int64(7)},
		{iceberg.DecimalTypeOf(9, 2), "14.2", iceberg.Decimal{Val: decimal128.FromI64(1420), Scale: 2}},
	} {
		got, err := TypedDefault(c.t, c.v)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %#v: %#v, %v; want %#v", c.t, c.v, got, err, c.want)
		}
	}
}

// TestDefaultValueRefusals: what no metadata file can hold exactly, or
// what a column of the type cannot take, is an ErrDefaultValue.
func TestDefaultValueRefusals(t *testing.T) {
	for _, c := range []struct {
		t iceberg.Type
		v any
	}{
		{iceberg.PrimitiveTypes.Int64, int64(1<<53 + 1)},
		{iceberg.PrimitiveTypes.Float64, math.NaN()},
		{iceberg.PrimitiveTypes.Float32, float32(math.Inf(-1))},
		{iceberg.DecimalTypeOf(4, 2), "123.45"},
		{iceberg.DecimalTypeOf(4, 2), "1.234"},
		// iceberg-go's JSON for a Decimal: an object without its value.
		{iceberg.DecimalTypeOf(12, 2), map[string]any{"Scale": 2.0, "Val": map[string]any{}}},
		{iceberg.PrimitiveTypes.Date, "2024-02-30"},
		{iceberg.PrimitiveTypes.Date, "yesterday"},
		{iceberg.PrimitiveTypes.TimestampTz, "2017-11-16T22:31:08"},
		{iceberg.PrimitiveTypes.Int32, 1.5},
		{iceberg.PrimitiveTypes.Int32, 3e9},
		{iceberg.PrimitiveTypes.Bool, "true"},
		{iceberg.FixedTypeOf(2), "000102"},
		{&iceberg.ListType{ElementID: 2, Element: iceberg.PrimitiveTypes.Int32}, []any{1.0}},
	} {
		if got, err := SpecDefault(c.t, c.v); !errors.Is(err, ErrDefaultValue) {
			t.Errorf("%s %#v: %#v, %v; want ErrDefaultValue", c.t, c.v, got, err)
		}
	}
}

// TestSpecSchemaNested: defaults of fields nested in structs, lists and
// maps are brought to the JSON form too; a schema without defaults is
// returned as it is.
func TestSpecSchemaNested(t *testing.T) {
	inner := iceberg.NestedField{ID: 3, Name: "d", Type: iceberg.PrimitiveTypes.Date, InitialDefault: iceberg.Date(1), WriteDefault: iceberg.Date(2)}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "s", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{inner}}},
		iceberg.NestedField{ID: 2, Name: "l", Type: &iceberg.ListType{ElementID: 4, Element: &iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 5, Name: "x", Type: iceberg.PrimitiveTypes.Int32, WriteDefault: int32(9)}}}}},
	)
	out, err := SpecSchema(sc)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := out.FindFieldByID(3)
	x, _ := out.FindFieldByID(5)
	if d.InitialDefault != "1970-01-02" || d.WriteDefault != "1970-01-03" || x.WriteDefault != 9.0 {
		t.Fatalf("nested defaults: %#v %#v %#v", d.InitialDefault, d.WriteDefault, x.WriteDefault)
	}
	if back := ReadableSchema(out); back == out {
		t.Fatal("ReadableSchema kept string dates")
	} else if d, _ := back.FindFieldByID(3); d.InitialDefault != iceberg.Date(1) {
		t.Fatalf("readable nested date: %#v", d.InitialDefault)
	}
	plain := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.Int32})
	if got, _ := SpecSchema(plain); got != plain {
		t.Fatal("a schema without defaults was rebuilt")
	}
}
