package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

const oidJSONB uint32 = 3802

// decodeParams turns Bind's raw values into the session's parameters: text values stay
// strings (the session coerces them as it would a quoted literal), binary
// values are decoded by the parameter's type OID.
func decodeParams(formats []int16, raw [][]byte, types []uint32) ([]stmt.Param, error) {
	if len(formats) > 1 && len(formats) != len(raw) {
		return nil, protocolError("bind message has %d parameter formats but %d parameters", len(formats), len(raw))
	}
	if len(raw) != len(types) {
		return nil, protocolError("bind message supplies %d parameters, but prepared statement requires %d", len(raw), len(types))
	}
	params := make([]stmt.Param, len(raw))
	for i, v := range raw {
		if v == nil {
			continue
		}
		f := int16(0)
		if len(formats) == 1 {
			f = formats[0]
		} else if len(formats) > 1 {
			f = formats[i]
		}
		switch f {
		case 0:
			if err := checkUTF8Bytes(v); err != nil {
				return nil, err
			}
			params[i] = string(v)
		case 1:
			p, err := decodeBinary(types[i], v)
			if err != nil {
				return nil, &pgerr.Error{Code: pgerr.InvalidBinaryRepresentation, Message: fmt.Sprintf("incorrect binary data format in bind parameter %d", i+1), Detail: err.Error()}
			}
			if s, ok := p.(string); ok { // binary text, json: text all the same
				if err := checkUTF8(s); err != nil {
					return nil, err
				}
			}
			params[i] = p
		default:
			return nil, protocolError("unsupported format code: %d", f)
		}
	}
	return params, nil
}

func decodeBinary(oid uint32, v []byte) (stmt.Param, error) {
	be := binary.BigEndian
	need := func(n int) error {
		if len(v) != n {
			return fmt.Errorf("want %d bytes, got %d", n, len(v))
		}
		return nil
	}
	switch oid {
	case sql.OIDBool:
		if err := need(1); err != nil {
			return nil, err
		}
		return v[0] != 0, nil
	case sql.OIDInt2:
		if err := need(2); err != nil {
			return nil, err
		}
		return int64(int16(be.Uint16(v))), nil
	case sql.OIDInt4:
		if err := need(4); err != nil {
			return nil, err
		}
		return int64(int32(be.Uint32(v))), nil
	case sql.OIDInt8:
		if err := need(8); err != nil {
			return nil, err
		}
		return int64(be.Uint64(v)), nil
	case sql.OIDOid:
		if err := need(4); err != nil {
			return nil, err
		}
		return int64(be.Uint32(v)), nil
	case sql.OIDFloat4:
		if err := need(4); err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(be.Uint32(v))), nil
	case sql.OIDFloat8:
		if err := need(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(be.Uint64(v)), nil
	case sql.OIDNumeric:
		return decodeNumericBinary(v)
	case sql.OIDBytea:
		return append([]byte{}, v...), nil
	case sql.OIDDate:
		if err := need(4); err != nil {
			return nil, err
		}
		return time.Unix((int64(int32(be.Uint32(v)))+pgEpochDays)*86400, 0).UTC(), nil
	case sql.OIDTime:
		if err := need(8); err != nil {
			return nil, err
		}
		return time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(int64(be.Uint64(v))) * time.Microsecond), nil
	case sql.OIDTimestamp, sql.OIDTimestampTZ:
		if err := need(8); err != nil {
			return nil, err
		}
		return time.UnixMicro(int64(be.Uint64(v)) + pgEpochMicros).UTC(), nil
	case sql.OIDUUID:
		if err := need(16); err != nil {
			return nil, err
		}
		return [16]byte(v), nil
	case oidJSONB:
		if len(v) == 0 || v[0] != 1 {
			return nil, fmt.Errorf("unsupported jsonb version")
		}
		return string(v[1:]), nil
	case sql.OIDText, sql.OIDVarchar, sql.OIDBPChar, sql.OIDJSON, sql.OIDUnknown, 0, 19: // 19: name
		return string(v), nil
	}
	if sql.TypeFromOID(oid).IsArray() {
		return decodeArrayBinary(v)
	}
	return nil, fmt.Errorf("binary format for type %d is not supported", oid)
}

// decodeNumericBinary renders numeric_send's format as a decimal string.
func decodeNumericBinary(v []byte) (stmt.Param, error) {
	be := binary.BigEndian
	if len(v) < 8 {
		return nil, fmt.Errorf("numeric too short")
	}
	ndigits := int(be.Uint16(v))
	weight := int(int16(be.Uint16(v[2:])))
	sign := be.Uint16(v[4:])
	dscale := int(be.Uint16(v[6:]))
	if len(v) != 8+2*ndigits || dscale > 16383 {
		return nil, fmt.Errorf("numeric length mismatch")
	}
	switch sign {
	case 0xC000:
		return "NaN", nil
	case 0xD000:
		return "Infinity", nil
	case 0xF000:
		return "-Infinity", nil
	case 0, 0x4000:
	default:
		return nil, fmt.Errorf("invalid numeric sign 0x%x", sign)
	}
	digit := func(k int) int { // base-10000 digit at weight position k
		idx := weight - k
		if idx < 0 || idx >= ndigits {
			return 0
		}
		d := int(be.Uint16(v[8+2*idx:]))
		return d
	}
	var sb strings.Builder
	if sign == 0x4000 {
		sb.WriteByte('-')
	}
	if weight < 0 {
		sb.WriteByte('0')
	}
	for k := weight; k >= 0; k-- {
		d := digit(k)
		if k == weight {
			sb.WriteString(strconv.Itoa(d))
		} else {
			fmt.Fprintf(&sb, "%04d", d)
		}
	}
	if dscale > 0 {
		sb.WriteByte('.')
		var frac strings.Builder
		for k := -1; frac.Len() < dscale; k-- {
			fmt.Fprintf(&frac, "%04d", digit(k))
		}
		sb.WriteString(frac.String()[:dscale])
	}
	return sb.String(), nil
}
