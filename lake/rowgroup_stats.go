package lake

import (
	"bytes"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// colStats is what one row group's footer says about one column, with the
// bounds as literals of the column's Iceberg type.
type colStats struct {
	typ   iceberg.Type
	rows  int64
	nulls int64 // -1: unknown
	// lo and hi bound every non-null value; nil when unknown.
	lo, hi iceberg.Literal
	// hiPrefix: hi may be a truncated prefix of the largest value (string
	// and binary statistics of some writers), so values starting with hi can
	// lie above it.
	hiPrefix bool
	// noNaN: the column holds no NaN (always true for non-float types).
	// Parquet statistics leave NaN out of min/max and do not count it.
	noNaN bool
}

func (c colStats) mayHaveNull() bool { return c.nulls != 0 }
func (c colStats) allNull() bool     { return c.nulls == c.rows }

// chunkStats reads column col of rg as colStats of type typ. Anything the
// footer does not state or states in a form we cannot read leaves the
// corresponding field unknown, which evaluation reads as "might match".
func chunkStats(rg *metadata.RowGroupMetaData, col int, typ iceberg.Type, noNaN bool) colStats {
	cs := colStats{typ: typ, rows: rg.NumRows(), nulls: -1, noNaN: noNaN || !isFloatType(typ)}
	cc, err := rg.ColumnChunk(col)
	if err != nil {
		return cs
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return cs
	}
	if st.HasNullCount() {
		cs.nulls = st.NullCount()
	}
	if st.HasMinMax() {
		cs.lo, cs.hi = boundLiterals(st, st.Descr(), typ)
		if cs.lo == nil || cs.hi == nil {
			cs.lo, cs.hi = nil, nil
		}
		_, isByteArray := st.(*metadata.ByteArrayStatistics)
		cs.hiPrefix = isByteArray
	}
	return cs
}

func isFloatType(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.Float32Type, iceberg.Float64Type:
		return true
	}
	return false
}

// boundLiterals converts the statistics' min and max to literals of the
// Iceberg type typ, or nils when the physical and logical types do not
// carry that type's values in its order (unsigned ints, INT96, NaN bounds,
// other time units, a decimal of another scale).
func boundLiterals(st metadata.TypedStatistics, descr *schema.Column, typ iceberg.Type) (iceberg.Literal, iceberg.Literal) {
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		return intLiteral(int64(s.Min()), descr, typ), intLiteral(int64(s.Max()), descr, typ)
	case *metadata.Int64Statistics:
		return intLiteral(s.Min(), descr, typ), intLiteral(s.Max(), descr, typ)
	case *metadata.Float32Statistics:
		return floatLiteral(float64(s.Min()), true, typ), floatLiteral(float64(s.Max()), true, typ)
	case *metadata.Float64Statistics:
		return floatLiteral(s.Min(), false, typ), floatLiteral(s.Max(), false, typ)
	case *metadata.BooleanStatistics:
		if _, ok := typ.(iceberg.BooleanType); ok {
			return iceberg.BoolLiteral(s.Min()), iceberg.BoolLiteral(s.Max())
		}
	case *metadata.ByteArrayStatistics:
		return bytesLiteral(s.Min(), descr, typ), bytesLiteral(s.Max(), descr, typ)
	case *metadata.FixedLenByteArrayStatistics:
		return bytesLiteral(s.Min(), descr, typ), bytesLiteral(s.Max(), descr, typ)
	}
	return nil, nil
}

// signedInt: an integer column without a logical type or with a signed one
// (a plain INT32 or INT64 in Iceberg's files).
func signedInt(descr *schema.Column) bool {
	switch lt := descr.LogicalType().(type) {
	case nil, schema.NoLogicalType:
		return true
	case schema.IntLogicalType:
		return lt.IsSigned()
	}
	return false
}

func intLiteral(v int64, descr *schema.Column, typ iceberg.Type) iceberg.Literal {
	lt := descr.LogicalType()
	switch t := typ.(type) {
	case iceberg.Int32Type:
		if descr.PhysicalType() == parquet.Types.Int32 && signedInt(descr) {
			return iceberg.Int32Literal(int32(v))
		}
	case iceberg.Int64Type: // an INT32 file column is an int promoted to long
		if signedInt(descr) {
			return iceberg.Int64Literal(v)
		}
	case iceberg.DateType:
		if _, ok := lt.(schema.DateLogicalType); ok && descr.PhysicalType() == parquet.Types.Int32 {
			return iceberg.DateLiteral(iceberg.Date(v))
		}
	case iceberg.TimeType:
		if tl, ok := lt.(schema.TimeLogicalType); ok && tl.TimeUnit() == schema.TimeUnitMicros && descr.PhysicalType() == parquet.Types.Int64 {
			return iceberg.TimeLiteral(iceberg.Time(v))
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		if tl, ok := lt.(schema.TimestampLogicalType); ok && descr.PhysicalType() == parquet.Types.Int64 {
			switch tl.TimeUnit() {
			case schema.TimeUnitMicros:
				return iceberg.TimestampLiteral(iceberg.Timestamp(v))
			case schema.TimeUnitMillis:
				if v <= math.MaxInt64/1000 && v >= math.MinInt64/1000 {
					return iceberg.TimestampLiteral(iceberg.Timestamp(v * 1000))
				}
			}
		}
	case iceberg.DecimalType:
		if decimalScale(descr, t) {
			return iceberg.DecimalLiteral(iceberg.Decimal{Val: decimal128.FromI64(v), Scale: t.Scale()})
		}
	}
	return nil
}

// decimalScale: the file column is a decimal of the table column's scale
// (Iceberg never changes a decimal's scale; a file that differs is not ours
// to interpret).
func decimalScale(descr *schema.Column, t iceberg.DecimalType) bool {
	dl, ok := descr.LogicalType().(schema.DecimalLogicalType)
	return ok && int(dl.Scale()) == t.Scale()
}

func floatLiteral(v float64, single bool, typ iceberg.Type) iceberg.Literal {
	if math.IsNaN(v) {
		return nil // a NaN bound bounds nothing
	}
	switch typ.(type) {
	case iceberg.Float32Type:
		if single {
			return iceberg.Float32Literal(float32(v))
		}
	case iceberg.Float64Type: // a FLOAT file column is a float promoted to double
		return iceberg.Float64Literal(v)
	}
	return nil
}

func bytesLiteral(b []byte, descr *schema.Column, typ iceberg.Type) iceberg.Literal {
	lt := descr.LogicalType()
	switch t := typ.(type) {
	case iceberg.StringType:
		switch lt.(type) {
		case nil, schema.NoLogicalType, schema.StringLogicalType:
			if descr.PhysicalType() == parquet.Types.ByteArray {
				return iceberg.StringLiteral(string(b))
			}
		}
	case iceberg.BinaryType:
		switch lt.(type) {
		case nil, schema.NoLogicalType:
			if descr.PhysicalType() == parquet.Types.ByteArray {
				return iceberg.BinaryLiteral(bytes.Clone(b))
			}
		}
	case iceberg.FixedType:
		if descr.PhysicalType() == parquet.Types.FixedLenByteArray && len(b) == t.Len() {
			return iceberg.FixedLiteral(bytes.Clone(b))
		}
	case iceberg.UUIDType:
		if descr.PhysicalType() == parquet.Types.FixedLenByteArray {
			if u, err := uuid.FromBytes(b); err == nil {
				return iceberg.UUIDLiteral(u)
			}
		}
	case iceberg.DecimalType:
		if n, ok := twosComplement(b); ok && decimalScale(descr, t) {
			return iceberg.DecimalLiteral(iceberg.Decimal{Val: n, Scale: t.Scale()})
		}
	}
	return nil
}

// twosComplement reads a big-endian two's complement integer (Parquet's
// binary decimal encoding).
func twosComplement(b []byte) (decimal128.Num, bool) {
	if len(b) == 0 || len(b) > 16 {
		return decimal128.Num{}, false
	}
	n := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if n.BitLen() > 127 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(n), true
}
