package lake

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Values of Iceberg types with no SQL spelling (struct, list, map, fixed) are
// returned as JSON text, formatted the way PostgreSQL's to_json formats the
// corresponding SQL values: timestamps as ISO 8601, bytes as "\x<hex>",
// NaN and infinities as strings. Maps become objects keyed by the key's text.

// toJSONStrings renders every value of arr as JSON text; nulls stay SQL NULL.
func toJSONStrings(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	var buf bytes.Buffer
	for i := range arr.Len() {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		buf.Reset()
		if err := appendJSON(&buf, arr, i); err != nil {
			return nil, err
		}
		b.Append(buf.String())
	}
	return b.NewArray(), nil
}

// appendJSON writes the JSON text of arr[i] to buf.
func appendJSON(buf *bytes.Buffer, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		buf.WriteString("null")
		return nil
	}
	switch a := arr.(type) {
	case *array.Struct:
		return appendStructJSON(buf, a, i)
	case *array.Map: // before List: a Map is a List
		return appendMapJSON(buf, a, i)
	case array.ListLike:
		return appendListJSON(buf, a, i)
	}
	return appendScalarJSON(buf, arr, i)
}

func appendStructJSON(buf *bytes.Buffer, a *array.Struct, i int) error {
	st := a.DataType().(*arrow.StructType)
	buf.WriteByte('{')
	for f := range a.NumField() {
		if f > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(buf, st.Field(f).Name)
		buf.WriteByte(':')
		if err := appendJSON(buf, a.Field(f), i); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func appendListJSON(buf *bytes.Buffer, a array.ListLike, i int) error {
	start, end := a.ValueOffsets(i)
	vals := a.ListValues()
	buf.WriteByte('[')
	for j := start; j < end; j++ {
		if j > start {
			buf.WriteByte(',')
		}
		if err := appendJSON(buf, vals, int(j)); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

func appendMapJSON(buf *bytes.Buffer, a *array.Map, i int) error {
	start, end := a.ValueOffsets(i)
	keys, items := a.Keys(), a.Items()
	var kb bytes.Buffer
	buf.WriteByte('{')
	for j := start; j < end; j++ {
		if j > start {
			buf.WriteByte(',')
		}
		kb.Reset()
		if err := appendJSON(&kb, keys, int(j)); err != nil {
			return err
		}
		key := kb.String()
		var s string
		if json.Unmarshal(kb.Bytes(), &s) == nil {
			key = s // string keys keep their text, others use their JSON text
		}
		writeJSONString(buf, key)
		buf.WriteByte(':')
		if err := appendJSON(buf, items, int(j)); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// appendScalarJSON writes a non-nested, non-null value.
func appendScalarJSON(buf *bytes.Buffer, arr arrow.Array, i int) error {
	switch a := arr.(type) {
	case *array.Boolean:
		buf.WriteString(strconv.FormatBool(a.Value(i)))
	case *array.Int8, *array.Int16, *array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		v, _ := intAt(arr, i)
		buf.WriteString(strconv.FormatInt(v, 10))
	case *array.Int32:
		buf.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int64:
		buf.WriteString(strconv.FormatInt(a.Value(i), 10))
	case *array.Float32:
		writeJSONFloat(buf, float64(a.Value(i)), 32)
	case *array.Float64:
		writeJSONFloat(buf, a.Value(i), 64)
	case *array.Decimal128:
		buf.WriteString(a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale))
	case stringValuer:
		writeJSONString(buf, a.Value(i))
	case *extensions.UUIDArray:
		writeJSONString(buf, a.Value(i).String())
	case bytesValuer:
		writeJSONString(buf, `\x`+hex.EncodeToString(a.Value(i)))
	case *array.FixedSizeBinary:
		writeJSONString(buf, `\x`+hex.EncodeToString(a.Value(i)))
	case *array.Date32:
		writeJSONString(buf, a.Value(i).ToTime().Format(time.DateOnly))
	case *array.Time64:
		us := rescale(int64(a.Value(i)), a.DataType().(*arrow.Time64Type).Unit, arrow.Microsecond)
		writeJSONString(buf, time.UnixMicro(us).UTC().Format("15:04:05.999999"))
	case *array.Timestamp:
		writeJSONString(buf, formatTimestampJSON(a, i))
	default:
		return fmt.Errorf("cannot render %s as JSON", arr.DataType())
	}
	return nil
}

func formatTimestampJSON(a *array.Timestamp, i int) string {
	tt := a.DataType().(*arrow.TimestampType)
	us := rescale(int64(a.Value(i)), tt.Unit, arrow.Microsecond)
	t := time.UnixMicro(us).UTC()
	if tt.TimeZone == "" {
		return t.Format("2006-01-02T15:04:05.999999")
	}
	return t.Format("2006-01-02T15:04:05.999999-07:00")
}

func writeJSONFloat(buf *bytes.Buffer, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		buf.WriteString(`"NaN"`)
	case math.IsInf(f, 1):
		buf.WriteString(`"Infinity"`)
	case math.IsInf(f, -1):
		buf.WriteString(`"-Infinity"`)
	default:
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, bits))
	}
}

// writeJSONString quotes s as a JSON string without HTML escaping, so text
// like "a<b" reads back as written.
func writeJSONString(buf *bytes.Buffer, s string) {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // never fails for a string
	buf.Write(bytes.TrimSuffix(tmp.Bytes(), []byte{'\n'}))
}
