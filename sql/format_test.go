package sql

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// formatAll renders every value of arr with AppendText.
func formatAll(t Type, arr arrow.Array) []string {
	out := make([]string, arr.Len())
	for i := range out {
		out[i] = string(AppendText(nil, t, arr, i))
	}
	return out
}

func compareTexts(t *testing.T, what string, got, want []string, inputs func(i int) string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, PostgreSQL returned %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: input %s: got %q, PostgreSQL %q", what, inputs(i), got[i], want[i])
			if bad++; bad > 10 {
				t.FailNow()
			}
		}
	}
}

// TestAppendTextMatchesPostgres feeds the same values to PostgreSQL 15 through
// a different representation (round-trip literals, hex, or arithmetic on
// integers) and compares its text output with AppendText's.
func TestAppendTextMatchesPostgres(t *testing.T) {
	pg := startFormatPostgres(t)
	rng := rand.New(rand.NewPCG(1, 2))
	mem := memory.NewGoAllocator()

	t.Run("bool", func(t *testing.T) {
		vals := []bool{true, false, false, true}
		b := array.NewBooleanBuilder(mem)
		b.AppendValues(vals, nil)
		lits := mapLits(len(vals), func(i int) string { return strconv.FormatBool(vals[i]) })
		compareTexts(t, "bool", formatAll(Bool, b.NewArray()), pg.texts(t, unnestQuery("v", "bool", lits)), func(i int) string { return lits[i] })
	})
	t.Run("int", func(t *testing.T) {
		vals := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
		for range 200 {
			vals = append(vals, rng.Int64()>>rng.IntN(63))
		}
		b := array.NewInt64Builder(mem)
		b.AppendValues(vals, nil)
		lits := mapLits(len(vals), func(i int) string { return strconv.FormatInt(vals[i], 10) })
		compareTexts(t, "int8", formatAll(Int64, b.NewArray()), pg.texts(t, unnestQuery("v", "int8", lits)), func(i int) string { return lits[i] })
		small := []int16{0, -32768, 32767, 5, -7}
		b16 := array.NewInt16Builder(mem)
		b16.AppendValues(small, nil)
		lits = mapLits(len(small), func(i int) string { return strconv.Itoa(int(small[i])) })
		compareTexts(t, "int2", formatAll(Int16, b16.NewArray()), pg.texts(t, unnestQuery("v", "int2", lits)), func(i int) string { return lits[i] })
	})
	t.Run("float8", func(t *testing.T) {
		vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e15, 1e14, 123456789012345, 1234567890123456, 1e-4, 1e-5,
			0.00012345, 1.2345e-5, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1e100, 1e-100, 100, 1.0 / 3}
		for range 300 {
			if f := math.Float64frombits(rng.Uint64()); !math.IsNaN(f) {
				vals = append(vals, f)
			}
			vals = append(vals, float64(rng.IntN(1e6))/math.Pow10(rng.IntN(12)))
		}
		b := array.NewFloat64Builder(mem)
		b.AppendValues(vals, nil)
		lits := mapLits(len(vals), func(i int) string { return floatLiteral(vals[i], 64) })
		compareTexts(t, "float8", formatAll(Float64, b.NewArray()), pg.texts(t, unnestQuery("v", "float8", lits)), func(i int) string { return lits[i] })
	})
	t.Run("float4", func(t *testing.T) {
		vals := []float32{0, 1, -1, 0.1, 1e6, 123456, 1234567, 1e-4, 1e-5, math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(1)), float32(math.NaN()), 3.4e38}
		for range 300 {
			if f := math.Float32frombits(rng.Uint32()); !math.IsNaN(float64(f)) {
				vals = append(vals, f)
			}
			vals = append(vals, float32(rng.IntN(1e5))/float32(math.Pow10(rng.IntN(8))))
		}
		b := array.NewFloat32Builder(mem)
		b.AppendValues(vals, nil)
		lits := mapLits(len(vals), func(i int) string { return floatLiteral(float64(vals[i]), 32) })
		compareTexts(t, "float4", formatAll(Float32, b.NewArray()), pg.texts(t, unnestQuery("v", "float4", lits)), func(i int) string { return lits[i] })
	})
	t.Run("numeric", func(t *testing.T) {
		for _, scale := range []int{0, 2, 5, 18, 37} {
			unscaled := []string{"0", "1", "-1", "150", "-50", "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "18446744073709551616", "-18446744073709551615"}
			for range 100 {
				unscaled = append(unscaled, strconv.FormatInt(rng.Int64()>>rng.IntN(63), 10))
			}
			typ := Numeric(38, scale)
			b := array.NewDecimal128Builder(mem, typ.ArrowType().(*arrow.Decimal128Type))
			for _, u := range unscaled {
				n, err := decimal128.FromString(u, 38, 0)
				if err != nil {
					t.Fatal(err)
				}
				b.Append(n)
			}
			lits := mapLits(len(unscaled), func(i int) string { return "'" + unscaled[i] + "'" })
			want := pg.texts(t, unnestQuery("((v || 'e-"+itoa(scale)+"')::numeric)::numeric(38,"+itoa(scale)+")", "text", lits))
			compareTexts(t, "numeric scale "+itoa(scale), formatAll(typ, b.NewArray()), want, func(i int) string { return unscaled[i] })
		}
	})
	t.Run("text", func(t *testing.T) {
		vals := []string{"", "a", "héllo wörld", "tab\there", "quote'\"\\", "日本語", "{\"a\": [1, 2]}"}
		b := array.NewStringBuilder(mem)
		b.AppendValues(vals, nil)
		arr := b.NewArray()
		lits := mapLits(len(vals), func(i int) string {
			return "convert_from(decode('" + hex.EncodeToString([]byte(vals[i])) + "', 'hex'), 'UTF8')"
		})
		compareTexts(t, "text", formatAll(Text, arr), pg.texts(t, unnestQuery("v", "text", lits)), func(i int) string { return vals[i] })
		compareTexts(t, "json", formatAll(JSON, arr)[6:], pg.texts(t, unnestQuery("v::json", "text", lits[6:])), func(i int) string { return vals[6+i] })
	})
	t.Run("bytea", func(t *testing.T) {
		vals := [][]byte{{}, {0}, {0xde, 0xad, 0xbe, 0xef}, []byte("hello\\")}
		for range 50 {
			v := make([]byte, rng.IntN(40))
			for k := range v {
				v[k] = byte(rng.Uint32())
			}
			vals = append(vals, v)
		}
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		b.AppendValues(vals, nil)
		lits := mapLits(len(vals), func(i int) string { return "decode('" + hex.EncodeToString(vals[i]) + "', 'hex')" })
		compareTexts(t, "bytea", formatAll(Bytea, b.NewArray()), pg.texts(t, unnestQuery("v", "bytea", lits)), func(i int) string { return lits[i] })
	})
	t.Run("uuid", func(t *testing.T) {
		var lits []string
		b := extensions.NewUUIDBuilder(mem)
		for range 50 {
			var u [16]byte
			for k := range u {
				u[k] = byte(rng.Uint32())
			}
			lits = append(lits, "decode('"+hex.EncodeToString(u[:])+"', 'hex')")
			b.AppendBytes(u)
		}
		compareTexts(t, "uuid", formatAll(UUID, b.NewArray()), pg.texts(t, unnestQuery("encode(v, 'hex')::uuid", "bytea", lits)), func(i int) string { return lits[i] })
	})
	t.Run("oid", func(t *testing.T) {
		vals := []uint32{0, 1, 16385, math.MaxUint32}
		b := array.NewUint32Builder(mem)
		b.AppendValues(vals, nil)
		lits := mapLits(len(vals), func(i int) string { return strconv.FormatUint(uint64(vals[i]), 10) })
		compareTexts(t, "oid", formatAll(OID, b.NewArray()), pg.texts(t, unnestQuery("v::oid", "int8", lits)), func(i int) string { return lits[i] })
	})
	t.Run("date", func(t *testing.T) {
		days := []int32{0, -1, 1, 10957, fmtTestDays(1, 1, 1), fmtTestDays(0, 12, 31), fmtTestDays(-4712, 1, 1),
			fmtTestDays(9999, 12, 31), fmtTestDays(10000, 1, 1), fmtTestDays(200000, 2, 29), math.MaxInt32, math.MinInt32}
		for range 300 {
			days = append(days, int32(rng.IntN(5_000_000)-2_400_000))
		}
		b := array.NewDate32Builder(mem)
		for _, d := range days {
			b.Append(arrow.Date32(d))
		}
		lits := mapLits(len(days), func(i int) string { return strconv.Itoa(int(days[i])) })
		want := pg.texts(t, unnestQuery("CASE v WHEN 2147483647 THEN 'infinity'::date WHEN -2147483648 THEN '-infinity'::date ELSE '1970-01-01'::date + v END", "int4", lits))
		compareTexts(t, "date", formatAll(Date, b.NewArray()), want, func(i int) string { return lits[i] })
	})
	t.Run("time", func(t *testing.T) {
		us := []int64{0, 1, 999999, 1_000_000, 86_399_999_999, 43_200_500_000, 3_600_000_010}
		for range 200 {
			us = append(us, rng.Int64N(86_400_000_000))
		}
		b := array.NewTime64Builder(mem, arrow.FixedWidthTypes.Time64us.(*arrow.Time64Type))
		for _, v := range us {
			b.Append(arrow.Time64(v))
		}
		lits := mapLits(len(us), func(i int) string { return strconv.FormatInt(us[i], 10) })
		want := pg.texts(t, unnestQuery("'00:00'::time + v * interval '1 microsecond'", "int8", lits))
		compareTexts(t, "time", formatAll(Time, b.NewArray()), want, func(i int) string { return lits[i] })
	})
	t.Run("timestamp", func(t *testing.T) {
		const dayUS = 86_400_000_000
		us := []int64{0, -1, 1, 1_704_164_645_123_456, int64(fmtTestDays(1, 1, 1))*dayUS - 1,
			int64(fmtTestDays(-4712, 1, 1)) * dayUS, int64(fmtTestDays(9999, 12, 31)) * dayUS, math.MaxInt64, math.MinInt64}
		lo, hi := int64(fmtTestDays(-4000, 1, 1))*dayUS, int64(fmtTestDays(20000, 1, 1))*dayUS
		for range 300 {
			v := lo + rng.Int64N(hi-lo)
			if rng.IntN(3) == 0 {
				v -= v % 1_000_000 // whole seconds print without a fraction
			}
			us = append(us, v)
		}
		lits := mapLits(len(us), func(i int) string { return strconv.FormatInt(us[i], 10) })
		for _, cast := range []string{"timestamp", "timestamptz"} {
			typ := Timestamp
			if cast == "timestamptz" {
				typ = TimestampTZ
			}
			b := array.NewTimestampBuilder(mem, typ.ArrowType().(*arrow.TimestampType))
			for _, v := range us {
				b.Append(arrow.Timestamp(v))
			}
			days := "floor(v::numeric / 86400000000)::int8"
			expr := "CASE v WHEN 9223372036854775807 THEN 'infinity'::" + cast + " WHEN -9223372036854775808 THEN '-infinity'::" + cast +
				" ELSE ('1970-01-01'::timestamp + " + days + " * interval '1 day' + (v - " + days + " * 86400000000) * interval '1 microsecond')::" + cast + " END"
			compareTexts(t, cast, formatAll(typ, b.NewArray()), pg.texts(t, unnestQuery(expr, "int8", lits)), func(i int) string { return lits[i] })
		}
	})
}

func mapLits(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// floatLiteral is a quoted literal that PostgreSQL reads back as exactly v:
// 17 (or 9 for float4) significant digits always round-trip.
func floatLiteral(v float64, bitSize int) string {
	switch {
	case math.IsNaN(v):
		return "'NaN'"
	case math.IsInf(v, 1):
		return "'Infinity'"
	case math.IsInf(v, -1):
		return "'-Infinity'"
	}
	prec := 17
	if bitSize == 32 {
		prec = 9
	}
	return "'" + strconv.FormatFloat(v, 'g', prec, bitSize) + "'"
}

// fmtTestDays is fmtDaysFromCivil for test tables.
func fmtTestDays(y int64, m, d int) int32 { return int32(fmtDaysFromCivil(y, m, d)) }

func TestAppendTextAllocationFree(t *testing.T) {
	mem := memory.NewGoAllocator()
	fb := array.NewFloat64Builder(mem)
	tb := array.NewTimestampBuilder(mem, TimestampTZ.ArrowType().(*arrow.TimestampType))
	db := array.NewDecimal128Builder(mem, Numeric(38, 4).ArrowType().(*arrow.Decimal128Type))
	for i := range 1000 {
		fb.Append(float64(i) * 1.37e-3)
		tb.Append(arrow.Timestamp(int64(i) * 123_456_789_123))
		db.Append(decimal128.FromI64(int64(i) * 98765))
	}
	fa, ta, da := fb.NewArray(), tb.NewArray(), db.NewArray()
	buf := make([]byte, 0, 1<<16)
	allocs := testing.AllocsPerRun(5, func() {
		buf = buf[:0]
		for i := range 1000 {
			buf = AppendText(buf, Float64, fa, i)
			buf = AppendText(buf, TimestampTZ, ta, i)
			buf = AppendText(buf, Numeric(38, 4), da, i)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendText allocated %v times per 3000 values", allocs)
	}
}
