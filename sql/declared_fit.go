package sql

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
)

// Declared types Iceberg cannot hold: varchar(n)/char(n) are Iceberg
// strings and smallint an Iceberg int, so the length or range a table was
// created with would be lost and any value accepted. They are kept in table
// properties keyed by field id (other engines still see plain string/int,
// renames keep them) and checked on every write: INSERT, COPY and UPDATE.
// char(n) values are stored without trailing blanks, which PostgreSQL's
// char(n) ignores: what other engines read is the value's text (what a cast
// to text gives in PostgreSQL); magmalake pads it to n on output.

// FitDeclared returns b with its values fitted to their columns' declared
// types, as PostgreSQL's assignment does: a string longer than varchar(n)
// only by trailing spaces is cut to n, a longer one is 22001, a smallint
// out of range is 22003. The result is b itself (retained) when nothing is
// cut.
func FitDeclared(b arrow.RecordBatch, decl map[int]Type) (arrow.RecordBatch, error) {
	cols := b.Columns()
	var fitted []arrow.Array
	// In column order, so that of two bad values the one PostgreSQL names
	// (its first) is reported, not the map's pick.
	for _, col := range slices.Sorted(maps.Keys(decl)) {
		t := decl[col]
		if col >= len(cols) {
			continue
		}
		arr, err := FitColumn(t, cols[col])
		if err != nil {
			return nil, err
		}
		if arr != nil {
			if fitted == nil {
				fitted = slices.Clone(cols)
			}
			fitted[col] = arr
			defer arr.Release()
		}
	}
	if fitted == nil {
		b.Retain()
		return b, nil
	}
	fields := slices.Clone(b.Schema().Fields())
	for i, a := range fitted {
		fields[i].Type = a.DataType()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), fitted, b.NumRows()), nil
}

// FitColumn checks one column; a non-nil array replaces it. A smallint
// column's values are written as the Iceberg int they are stored as.
func FitColumn(t Type, arr arrow.Array) (arrow.Array, error) {
	if t.Kind != KindVarchar {
		for i := 0; i < arr.Len(); i++ {
			if !arr.IsNull(i) {
				if err := smallintAdmits(arr, i); err != nil {
					return nil, err
				}
			}
		}
		if a, ok := arr.(*array.Int16); ok {
			return widenSmallints(a), nil
		}
		return nil, nil
	}
	s, ok := arr.(*array.String)
	if !ok {
		return nil, nil
	}
	cut := false
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			continue
		}
		v := s.Value(i)
		if t.Bpchar && strings.HasSuffix(v, " ") {
			cut = true
		}
		if utf8.RuneCountInString(v) <= t.Length {
			continue
		}
		if utf8.RuneCountInString(strings.TrimRight(v, " ")) > t.Length {
			return nil, pgerr.Errorf(pgerr.StringDataRightTruncation, "value too long for type %s", t)
		}
		cut = true
	}
	if !cut {
		return nil, nil
	}
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	defer bld.Release()
	for i := 0; i < s.Len(); i++ {
		switch {
		case s.IsNull(i):
			bld.AppendNull()
		case t.Bpchar:
			// char(n) is stored as its text value: no trailing blanks.
			bld.Append(strings.TrimRight(s.Value(i), " "))
		default:
			bld.Append(firstRunes(s.Value(i), t.Length))
		}
	}
	return bld.NewArray(), nil
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func smallintAdmits(arr arrow.Array, i int) error {
	var v int64
	switch a := arr.(type) {
	case *array.Int16:
		return nil
	case *array.Int32:
		v = int64(a.Value(i))
	case *array.Int64:
		v = a.Value(i)
	default:
		return fmt.Errorf("smallint column stored as %s", arr.DataType())
	}
	if v < -32768 || v > 32767 {
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "smallint out of range")
	}
	return nil
}

// widenSmallints is a's values as Iceberg ints.
func widenSmallints(a *array.Int16) arrow.Array {
	bld := array.NewInt32Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.Reserve(a.Len())
	for i, v := range a.Int16Values() {
		if a.IsNull(i) {
			bld.AppendNull()
			continue
		}
		bld.Append(int32(v))
	}
	return bld.NewArray()
}
