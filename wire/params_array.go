package wire

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// decodeArrayBinary reads array_send's format (one dimension, or none for
// an empty array) into the array's text, which the session reads as a
// text parameter would be.
func decodeArrayBinary(v []byte) (stmt.Param, error) {
	be := binary.BigEndian
	if len(v) < 12 {
		return nil, fmt.Errorf("array header too short")
	}
	ndim, elemOID := int32(be.Uint32(v)), be.Uint32(v[8:])
	v = v[12:]
	switch {
	case ndim == 0:
		return "{}", nil
	case ndim != 1:
		return nil, fmt.Errorf("%d-dimensional arrays are not supported", ndim)
	case len(v) < 8:
		return nil, fmt.Errorf("array dimension too short")
	}
	n := int(int32(be.Uint32(v)))
	v = v[8:]
	elems := make([]*string, 0, n)
	for i := 0; i < n; i++ {
		if len(v) < 4 {
			return nil, fmt.Errorf("array element %d: too short", i+1)
		}
		size := int32(be.Uint32(v))
		v = v[4:]
		if size < 0 {
			elems = append(elems, nil)
			continue
		}
		if int(size) > len(v) {
			return nil, fmt.Errorf("array element %d: too short", i+1)
		}
		p, err := decodeBinary(elemOID, v[:size])
		if err != nil {
			return nil, fmt.Errorf("array element %d: %w", i+1, err)
		}
		s := paramText(p)
		elems = append(elems, &s)
		v = v[size:]
	}
	return sql.FormatArrayText(elems), nil
}

// paramText is a decoded binary parameter's text form.
func paramText(p stmt.Param) string {
	switch x := p.(type) {
	case bool:
		if x {
			return "t"
		}
		return "f"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return map[bool]string{true: "Infinity", false: "-Infinity"}[x > 0] + map[bool]string{true: "NaN"}[math.IsNaN(x)]
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999Z07:00")
	case [16]byte:
		return string(sql.AppendUUID(nil, x[:]))
	case []byte:
		return `\x` + hex.EncodeToString(x)
	case string:
		return x
	}
	return fmt.Sprint(p)
}
