package wire

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// columnFormats expands Bind's result format codes to one per column: none
// means all text, one applies to all, otherwise one each.
func columnFormats(codes []int16, n int) ([]int16, error) {
	if len(codes) == 0 {
		return nil, nil // all text; nil formats mean that everywhere
	}
	out := make([]int16, n)
	switch len(codes) {
	case 1:
		for i := range out {
			out[i] = codes[0]
		}
	case n:
		copy(out, codes)
	default:
		return nil, protocolError("bind message has %d result formats but query has %d columns", len(codes), n)
	}
	for _, f := range out {
		if f != 0 && f != 1 {
			return nil, protocolError("unsupported format code: %d", f)
		}
	}
	return out, nil
}

// sendRowDescription encodes a RowDescription straight into the output
// buffer: no message to build per statement.
func (t *transport) sendRowDescription(cols []stmt.Column, formats []int16) {
	if t.err != nil {
		return
	}
	buf := append(t.out, 'T', 0, 0, 0, 0)
	start := len(buf) - 4
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(cols)))
	for i, col := range cols {
		buf = append(buf, col.Name...)
		buf = append(buf, 0)
		buf = binary.BigEndian.AppendUint32(buf, col.TableOID)
		buf = binary.BigEndian.AppendUint16(buf, uint16(col.AttNum))
		buf = binary.BigEndian.AppendUint32(buf, col.Type.OID())
		buf = binary.BigEndian.AppendUint16(buf, uint16(col.Type.TypeSize()))
		buf = binary.BigEndian.AppendUint32(buf, uint32(col.Type.Typmod()))
		var f int16
		if formats != nil {
			f = formats[i]
		}
		buf = binary.BigEndian.AppendUint16(buf, uint16(f))
	}
	binary.BigEndian.PutUint32(buf[start:], uint32(len(buf)-start))
	t.out = buf
}

// appendDataRow encodes row i of batch straight into the output buffer: no
// per-row allocation once the buffer has grown.
func (t *transport) appendDataRow(batch arrow.RecordBatch, row int, cols []stmt.Column, formats []int16) {
	buf := append(t.out, 'D', 0, 0, 0, 0)
	start := len(buf) - 4
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(cols)))
	for j, col := range cols {
		arr := batch.Column(j)
		if arr.IsNull(row) {
			buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
			continue
		}
		buf = append(buf, 0, 0, 0, 0)
		vstart := len(buf)
		if formats != nil && formats[j] == 1 {
			buf = appendBinary(buf, col.Type, arr, row)
		} else {
			buf = sql.AppendText(buf, col.Type, arr, row)
		}
		binary.BigEndian.PutUint32(buf[vstart-4:], uint32(len(buf)-vstart))
	}
	binary.BigEndian.PutUint32(buf[start:], uint32(len(buf)-start))
	t.out = buf
}
