package remote

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Type OIDs psql right-aligns that the sql package has no type for.
const (
	oidXID  uint32 = 28
	oidCID  uint32 = 29
	oidXID8 uint32 = 5069
)

// columnType is the sql type a column of the given OID and type modifier
// is read as. OIDs the sql package does not know, and those whose text is
// not their value (regclass and the other reg* names, records), are text.
func columnType(oid uint32, typmod int32) sql.Type {
	switch oid {
	case oidXID, oidCID:
		return sql.OID
	case oidXID8:
		return sql.Int64
	}
	t := sql.TypeFromOID(oid)
	switch {
	case t.Kind == sql.KindUnknown || t.Kind == sql.KindRecord || t.Reg != sql.RegNone:
		return sql.Text
	case t.Kind == sql.KindNumeric && typmod >= 4:
		p, s := int((typmod-4)>>16), int((typmod-4)&0xffff)
		if p <= 38 && s <= p { // else decimal128 cannot hold it: unconstrained
			return sql.Numeric(p, s)
		}
	case t.Kind == sql.KindVarchar && typmod >= 4:
		t.Length = int(typmod - 4)
	}
	return t
}

// resultSet gathers one result's rows as the text the server sent; the
// values become Arrow once the result is complete, because a column's type
// is only settled when all its values are seen (see column.array).
type resultSet struct {
	cols []column
	rows int64
}

// column is one result column's description and text values.
type column struct {
	desc  stmt.Column
	vals  []string
	nulls []bool
}

func newResultSet(fields []pgproto3.FieldDescription) *resultSet {
	rs := &resultSet{cols: make([]column, len(fields))}
	for i, f := range fields {
		rs.cols[i].desc = stmt.Column{
			Name:     string(f.Name),
			Type:     columnType(f.DataTypeOID, f.TypeModifier),
			TableOID: f.TableOID,
			AttNum:   int16(f.TableAttributeNumber),
		}
	}
	return rs
}

// add takes one DataRow; its values are copied, the message is reused.
func (rs *resultSet) add(values [][]byte) error {
	if len(values) != len(rs.cols) {
		return pgerr.Errorf(pgerr.ProtocolViolation, "the server sent a row of %d values for %d columns", len(values), len(rs.cols))
	}
	for i, v := range values {
		c := &rs.cols[i]
		c.vals = append(c.vals, string(v))
		c.nulls = append(c.nulls, v == nil)
	}
	rs.rows++
	return nil
}

// batch builds the result's columns and its one record batch.
func (rs *resultSet) batch() ([]stmt.Column, arrow.RecordBatch) {
	descs := make([]stmt.Column, len(rs.cols))
	fields := make([]arrow.Field, len(rs.cols))
	arrs := make([]arrow.Array, len(rs.cols))
	for i := range rs.cols {
		descs[i], arrs[i] = rs.cols[i].array()
		fields[i] = arrow.Field{Name: descs[i].Name, Type: arrs[i].DataType(), Nullable: true}
	}
	b := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, rs.rows)
	for _, a := range arrs {
		a.Release() // the batch holds them
	}
	return descs, b
}

// array is the column in its type when every value reads back as exactly
// the text the server sent. Otherwise (a setting such as TimeZone,
// DateStyle or bytea_output changed the text, or a value magmalake has no
// form for, such as numeric NaN) it keeps the server's text, so that the
// shell prints what the server said: as text, or, for the types psql
// aligns right, as unconstrained numeric, whose values are text already.
func (c *column) array() (stmt.Column, arrow.Array) {
	t := c.desc.Type
	if t.ArrowType().ID() == arrow.STRING && t.Kind != sql.KindArray && !t.Bpchar {
		return c.desc, c.text() // text is text
	}
	if arr, ok := c.typed(t); ok {
		return c.desc, arr
	}
	if t.IsNumeric() || t.Kind == sql.KindOID {
		c.desc.Type = sql.Numeric(0, 0)
		storage := c.text()
		defer storage.Release()
		return c.desc, array.NewExtensionArrayWithStorage(sql.NewNumericType(), storage)
	}
	c.desc.Type = sql.Text
	return c.desc, c.text()
}

func (c *column) typed(t sql.Type) (arrow.Array, bool) {
	b := array.NewBuilder(memory.DefaultAllocator, t.ArrowType())
	defer b.Release()
	for i, v := range c.vals {
		if c.nulls[i] {
			b.AppendNull()
			continue
		}
		if err := sql.AppendValue(b, t, v); err != nil {
			return nil, false
		}
	}
	arr := b.NewArray()
	var buf []byte
	for i, v := range c.vals {
		if c.nulls[i] {
			continue
		}
		if buf = sql.AppendText(buf[:0], t, arr, i); string(buf) != v {
			arr.Release()
			return nil, false
		}
	}
	return arr, true
}

func (c *column) text() arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i, v := range c.vals {
		if c.nulls[i] {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return b.NewArray()
}
