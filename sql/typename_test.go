package sql

import (
	"errors"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func TestParseTypeName(t *testing.T) {
	cases := []struct {
		in   string
		want Type
	}{
		{"int4", Int32}, {"INTEGER", Int32}, {"bigint", Int64}, {"smallint", Int16},
		{"numeric(10, 2)", Numeric(10, 2)}, {"decimal(5)", Numeric(5, 0)}, {"numeric", Numeric(0, 0)},
		{"timestamp   with time zone", TimestampTZ}, {"timestamptz", TimestampTZ}, {"timestamp(3)", Timestamp},
		{"character varying(5)", Type{Kind: KindVarchar, Length: 5}}, {"varchar", Type{Kind: KindVarchar}},
		{"double precision", Float64}, {"pg_catalog.int8", Int64}, {"regclass", Type{Kind: KindOID, Reg: RegClass}}, {"oid", OID}, {"text", Text},
		{"text[]", ArrayOf(Text)}, {"interval", IntervalT}, {"interval day to second", Type{Kind: KindInterval, Fields: "day to second"}}, {"int4[3]", ArrayOf(Int32)}, {"pg_catalog.int2[]", ArrayOf(Int16)}, {"int2vector", ArrayOf(Int16)},
	}
	for _, c := range cases {
		got, err := ParseTypeName(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseTypeName(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	errs := []struct {
		in   string
		code pgerr.Code
	}{
		{"nosuch", pgerr.UndefinedObject}, {"text[x]", pgerr.SyntaxError}, {"nosuch[]", pgerr.UndefinedObject}, {"]", pgerr.UndefinedObject}, {"int]", pgerr.UndefinedObject},
		{"numeric(0)", pgerr.InvalidParameterValue}, {"numeric(5,6)", pgerr.InvalidParameterValue},
	}
	for _, c := range errs {
		_, err := ParseTypeName(c.in)
		var e *pgerr.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("ParseTypeName(%q): got %v, want %s", c.in, err, c.code)
		}
	}
}
