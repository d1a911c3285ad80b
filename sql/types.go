package sql

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
)

// Kind is a SQL type as magmalake exposes it (see ../shared/design/sql-surface.md).
type Kind uint8

const (
	KindUnknown Kind = iota // an untyped literal or parameter not yet resolved
	KindBool
	KindInt16 // smallint: stored as Iceberg int
	KindInt32
	KindInt64
	KindFloat32
	KindFloat64
	KindNumeric // Precision/Scale; Precision 0 means unconstrained (computed values)
	KindText
	KindVarchar // Length 0 means unbounded; stored as Iceberg string
	KindBytea
	KindDate
	KindTime
	KindTimestamp
	KindTimestampTZ
	KindUUID
	KindJSON // Iceberg nested types (struct/list/map/fixed) read as JSON text
	KindOID  // catalog pseudo types (oid, regclass, ...) exposed as uint32
	// KindArray is a one-dimensional array of Elem (see array_type.go).
	KindArray
	// KindRecord is an anonymous composite (see record.go).
	KindRecord
	// KindInterval is interval (see interval.go); computed, never stored.
	KindInterval
)

// RegKind tells the reg* aliases of oid apart: they are oids whose text
// form is an object's name.
type RegKind uint8

const (
	RegNone RegKind = iota
	RegClass
	RegType
	RegNamespace
	RegProc      // a function by name
	RegProcedure // a function by name and argument types
)

// Type is a SQL type with its modifiers.
type Type struct {
	Kind      Kind
	Precision int // numeric
	Scale     int // numeric
	Length    int // varchar(n) / char(n)
	// Bpchar marks char(n) (PostgreSQL's bpchar), a KindVarchar whose
	// values are kept without trailing blanks (its text value, which
	// comparisons, hashing and casts to text see) and padded to Length on
	// output; or an array of char(n).
	Bpchar bool
	// Elem is an array's element kind (the modifiers above are the element's).
	Elem Kind
	// Reg marks regclass, regtype and regnamespace (Kind OID), or an
	// array of them (Kind Array, Elem OID).
	Reg RegKind
	// Fields names a record's fields and types ("x integer,n integer").
	Fields string
	// Name marks name (Kind Text): text to magmalake, PostgreSQL's name
	// (oid 19, 64 bytes) to clients; the catalog's identifiers are.
	Name bool
}

// Name is PostgreSQL's name type.
var Name = Type{Kind: KindText, Name: true}

// Convenience values for the fixed-width types.
var (
	Unknown     = Type{Kind: KindUnknown}
	Bool        = Type{Kind: KindBool}
	Int16       = Type{Kind: KindInt16}
	Int32       = Type{Kind: KindInt32}
	Int64       = Type{Kind: KindInt64}
	Float32     = Type{Kind: KindFloat32}
	Float64     = Type{Kind: KindFloat64}
	Text        = Type{Kind: KindText}
	Bytea       = Type{Kind: KindBytea}
	Date        = Type{Kind: KindDate}
	Time        = Type{Kind: KindTime}
	Timestamp   = Type{Kind: KindTimestamp}
	TimestampTZ = Type{Kind: KindTimestampTZ}
	UUID        = Type{Kind: KindUUID}
	JSON        = Type{Kind: KindJSON}
	OID         = Type{Kind: KindOID}
	IntervalT   = Type{Kind: KindInterval}
)

// Bpchar returns char(n); n == 0 is bpchar without a length.
func Bpchar(n int) Type { return Type{Kind: KindVarchar, Length: n, Bpchar: true} }

// Numeric returns numeric(p,s); p == 0 is unconstrained numeric.
func Numeric(p, s int) Type { return Type{Kind: KindNumeric, Precision: p, Scale: s} }

// PostgreSQL type OIDs.
const (
	OIDBool        uint32 = 16
	OIDBytea       uint32 = 17
	OIDInt8        uint32 = 20
	OIDInt2        uint32 = 21
	OIDInt4        uint32 = 23
	OIDName        uint32 = 19
	OIDText        uint32 = 25
	OIDOid         uint32 = 26
	OIDJSON        uint32 = 114
	OIDFloat4      uint32 = 700
	OIDFloat8      uint32 = 701
	OIDUnknown     uint32 = 705
	OIDBPChar      uint32 = 1042
	OIDVarchar     uint32 = 1043
	OIDDate        uint32 = 1082
	OIDTime        uint32 = 1083
	OIDTimestamp   uint32 = 1114
	OIDTimestampTZ uint32 = 1184
	OIDNumeric     uint32 = 1700
	OIDUUID        uint32 = 2950
	OIDInterval    uint32 = 1186
)

// OID is the PostgreSQL type OID clients see for t.
func (t Type) OID() uint32 {
	switch t.Kind {
	case KindBool:
		return OIDBool
	case KindInt16:
		return OIDInt2
	case KindInt32:
		return OIDInt4
	case KindInt64:
		return OIDInt8
	case KindFloat32:
		return OIDFloat4
	case KindFloat64:
		return OIDFloat8
	case KindNumeric:
		return OIDNumeric
	case KindText:
		if t.Name {
			return OIDName
		}
		return OIDText
	case KindVarchar:
		if t.Bpchar {
			return OIDBPChar
		}
		return OIDVarchar
	case KindBytea:
		return OIDBytea
	case KindDate:
		return OIDDate
	case KindTime:
		return OIDTime
	case KindTimestamp:
		return OIDTimestamp
	case KindTimestampTZ:
		return OIDTimestampTZ
	case KindUUID:
		return OIDUUID
	case KindJSON:
		return OIDJSON
	case KindOID:
		switch t.Reg {
		case RegClass:
			return 2205
		case RegType:
			return 2206
		case RegNamespace:
			return 4089
		case RegProc:
			return 24
		case RegProcedure:
			return 2202
		}
		return OIDOid
	case KindArray:
		switch {
		case t.Reg != RegNone:
			return regArrayOIDs[t.Reg]
		case t.Bpchar:
			return bpcharArrayOID
		}
		return arrayOID(t.Elem)
	case KindRecord:
		return 2249
	case KindInterval:
		return OIDInterval
	default:
		return OIDText
	}
}

// TypeFromOID maps a client-supplied parameter type OID; 0 and unknown OIDs give Unknown.
func TypeFromOID(oid uint32) Type {
	switch oid {
	case OIDBool:
		return Bool
	case OIDInt2:
		return Int16
	case OIDInt4:
		return Int32
	case OIDInt8:
		return Int64
	case OIDFloat4:
		return Float32
	case OIDFloat8:
		return Float64
	case OIDNumeric:
		return Numeric(0, 0)
	case OIDText:
		return Text
	case OIDName:
		return Name
	case OIDBPChar:
		return Bpchar(0)
	case OIDVarchar:
		return Type{Kind: KindVarchar}
	case OIDBytea:
		return Bytea
	case OIDDate:
		return Date
	case OIDTime:
		return Time
	case OIDTimestamp:
		return Timestamp
	case OIDTimestampTZ:
		return TimestampTZ
	case OIDUUID:
		return UUID
	case OIDJSON:
		return JSON
	case OIDOid:
		return OID
	case 2205:
		return Type{Kind: KindOID, Reg: RegClass}
	case OIDInterval:
		return IntervalT
	}
	if t, ok := arrayTypeFromOID(oid); ok {
		return t
	}
	return Unknown
}

// Typmod is the atttypmod PostgreSQL reports (-1 when none).
func (t Type) Typmod() int32 {
	switch t.Kind {
	case KindNumeric:
		if t.Precision == 0 {
			return -1
		}
		return int32((t.Precision<<16)|t.Scale) + 4
	case KindVarchar:
		if t.Length == 0 {
			return -1
		}
		return int32(t.Length) + 4
	}
	return -1
}

// TypeSize is pg_type.typlen: the fixed width in bytes, or -1 for variable width.
func (t Type) TypeSize() int16 {
	switch t.Kind {
	case KindBool:
		return 1
	case KindInt16:
		return 2
	case KindInt32, KindFloat32, KindDate, KindOID:
		return 4
	case KindInt64, KindFloat64, KindTime, KindTimestamp, KindTimestampTZ:
		return 8
	case KindUUID, KindInterval:
		return 16
	case KindText:
		if t.Name {
			return 64
		}
	}
	return -1
}

// String is the name format_type() would print.
func (t Type) String() string {
	switch t.Kind {
	case KindBool:
		return "boolean"
	case KindInt16:
		return "smallint"
	case KindInt32:
		return "integer"
	case KindInt64:
		return "bigint"
	case KindFloat32:
		return "real"
	case KindFloat64:
		return "double precision"
	case KindNumeric:
		if t.Precision == 0 {
			return "numeric"
		}
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
	case KindText:
		if t.Name {
			return "name"
		}
		return "text"
	case KindVarchar:
		switch {
		case t.Bpchar && t.Length == 0:
			return "bpchar"
		case t.Bpchar:
			return fmt.Sprintf("character(%d)", t.Length)
		case t.Length == 0:
			return "character varying"
		}
		return fmt.Sprintf("character varying(%d)", t.Length)
	case KindBytea:
		return "bytea"
	case KindDate:
		return "date"
	case KindTime:
		return "time without time zone"
	case KindTimestamp:
		return "timestamp without time zone"
	case KindTimestampTZ:
		return "timestamp with time zone"
	case KindUUID:
		return "uuid"
	case KindJSON:
		return "json"
	case KindOID:
		switch t.Reg {
		case RegClass:
			return "regclass"
		case RegType:
			return "regtype"
		case RegNamespace:
			return "regnamespace"
		case RegProc:
			return "regproc"
		case RegProcedure:
			return "regprocedure"
		}
		return "oid"
	case KindArray:
		return t.ElemType().String() + "[]"
	case KindRecord:
		return "record"
	case KindInterval:
		return "interval"
	}
	return "unknown"
}

// IsNumeric reports whether t takes part in numeric comparison/arithmetic.
func (t Type) IsNumeric() bool {
	switch t.Kind {
	case KindInt16, KindInt32, KindInt64, KindFloat32, KindFloat64, KindNumeric:
		return true
	}
	return false
}

// IsString reports text-like types.
func (t Type) IsString() bool { return t.Kind == KindText || t.Kind == KindVarchar }

// ArrowType is the in-memory representation of a value of t everywhere in
// magmalake: scans produce it, the evaluator computes in it, wire and repl
// format it. Numeric with Precision 0 (unconstrained, e.g. avg()) is a
// NumericType, each value at its own scale; numeric(p,s) is decimal128(p, s).
func (t Type) ArrowType() arrow.DataType {
	switch t.Kind {
	case KindBool:
		return arrow.FixedWidthTypes.Boolean
	case KindInt16:
		return arrow.PrimitiveTypes.Int16
	case KindInt32:
		return arrow.PrimitiveTypes.Int32
	case KindInt64:
		return arrow.PrimitiveTypes.Int64
	case KindFloat32:
		return arrow.PrimitiveTypes.Float32
	case KindFloat64:
		return arrow.PrimitiveTypes.Float64
	case KindNumeric:
		if t.Precision == 0 {
			return NewNumericType()
		}
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case KindBytea:
		return arrow.BinaryTypes.Binary
	case KindDate:
		return arrow.FixedWidthTypes.Date32
	case KindTime:
		return arrow.FixedWidthTypes.Time64us
	case KindTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case KindTimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case KindUUID:
		return extensions.NewUUIDType()
	case KindOID:
		return arrow.PrimitiveTypes.Uint32
	case KindInterval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	default: // text, varchar, json, unknown
		return arrow.BinaryTypes.String
	}
}

// IcebergType is the Iceberg column type a SQL column of type t is stored as.
func (t Type) IcebergType() (iceberg.Type, error) {
	switch t.Kind {
	case KindBool:
		return iceberg.PrimitiveTypes.Bool, nil
	case KindInt16, KindInt32:
		return iceberg.PrimitiveTypes.Int32, nil
	case KindInt64:
		return iceberg.PrimitiveTypes.Int64, nil
	case KindFloat32:
		return iceberg.PrimitiveTypes.Float32, nil
	case KindFloat64:
		return iceberg.PrimitiveTypes.Float64, nil
	case KindNumeric:
		if t.Precision == 0 {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "numeric without precision cannot be stored in an Iceberg table; use numeric(p,s) with p <= 38")
		}
		if t.Precision > 38 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 38 for Iceberg decimal", t.Precision)
		}
		return iceberg.DecimalTypeOf(t.Precision, t.Scale), nil
	case KindText, KindVarchar:
		return iceberg.PrimitiveTypes.String, nil
	case KindBytea:
		return iceberg.PrimitiveTypes.Binary, nil
	case KindDate:
		return iceberg.PrimitiveTypes.Date, nil
	case KindTime:
		return iceberg.PrimitiveTypes.Time, nil
	case KindTimestamp:
		return iceberg.PrimitiveTypes.Timestamp, nil
	case KindTimestampTZ:
		return iceberg.PrimitiveTypes.TimestampTz, nil
	case KindUUID:
		return iceberg.PrimitiveTypes.UUID, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "type %s cannot be stored in an Iceberg table", t)
}

// TypeFromIceberg is the SQL type a column of Iceberg type it is read as.
func TypeFromIceberg(it iceberg.Type) Type {
	switch v := it.(type) {
	case iceberg.BooleanType:
		return Bool
	case iceberg.Int32Type:
		return Int32
	case iceberg.Int64Type:
		return Int64
	case iceberg.Float32Type:
		return Float32
	case iceberg.Float64Type:
		return Float64
	case iceberg.DecimalType:
		return Numeric(v.Precision(), v.Scale())
	case iceberg.StringType:
		return Text
	case iceberg.BinaryType:
		return Bytea
	case iceberg.DateType:
		return Date
	case iceberg.TimeType:
		return Time
	case iceberg.TimestampType:
		return Timestamp
	case iceberg.TimestampTzType:
		return TimestampTZ
	case iceberg.UUIDType:
		return UUID
	}
	return JSON
}
