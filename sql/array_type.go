package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// Arrays are one-dimensional and carried as their canonical PostgreSQL text
// ({1,2,NULL}): every operator that moves, hashes or prints a string moves
// an array unchanged, and only the operations that look inside one (casts,
// subscripts, ANY, the array functions) read it. The element type is the
// Type's Elem kind with its modifiers.

// ArrayOf is the type elem[].
func ArrayOf(elem Type) Type {
	return Type{Kind: KindArray, Elem: elem.Kind, Precision: elem.Precision, Scale: elem.Scale, Length: elem.Length,
		Bpchar: elem.Bpchar, Reg: elem.Reg}
}

// IsArray reports an array type.
func (t Type) IsArray() bool { return t.Kind == KindArray }

// ElemType is the element type of an array type.
func (t Type) ElemType() Type {
	return Type{Kind: t.Elem, Precision: t.Precision, Scale: t.Scale, Length: t.Length, Bpchar: t.Bpchar, Reg: t.Reg}
}

// arrayOIDs are PostgreSQL's array type OIDs by element kind.
var arrayOIDs = map[Kind]uint32{
	KindBool: 1000, KindBytea: 1001, KindInt16: 1005, KindInt32: 1007, KindText: 1009,
	KindVarchar: 1015, KindInt64: 1016, KindFloat32: 1021, KindFloat64: 1022, KindOID: 1028,
	KindTimestamp: 1115, KindDate: 1182, KindTime: 1183, KindTimestampTZ: 1185,
	KindNumeric: 1231, KindUUID: 2951, KindJSON: 199, KindInterval: 1187,
}

// regArrayOIDs are the array types of the reg* types (their elements are
// oids, KindOID).
var regArrayOIDs = map[RegKind]uint32{RegType: 2211, RegClass: 2210, RegNamespace: 4090, RegProc: 1008, RegProcedure: 2207}

// bpcharArrayOID is character[] (a KindVarchar array marked Bpchar).
const bpcharArrayOID = 1014

func arrayOID(elem Kind) uint32 {
	if oid, ok := arrayOIDs[elem]; ok {
		return oid
	}
	return arrayOIDs[KindText]
}

// arrayTypeFromOID maps an array type OID a client sends to the type.
func arrayTypeFromOID(oid uint32) (Type, bool) {
	for r, o := range regArrayOIDs {
		if o == oid {
			return ArrayOf(Type{Kind: KindOID, Reg: r}), true
		}
	}
	if oid == bpcharArrayOID {
		return ArrayOf(Bpchar(0)), true
	}
	for k, o := range arrayOIDs {
		if o == oid {
			return ArrayOf(Type{Kind: k}), true
		}
	}
	return Unknown, false
}

// arrayElemNeedsQuotes is array_out's rule for quoting an element.
func arrayElemNeedsQuotes(s string) bool {
	if s == "" || strings.EqualFold(s, "NULL") {
		return true
	}
	return strings.ContainsAny(s, "{}\",\\ \t\n\r\v\f")
}

// FormatArrayText is array_out over element texts (nil is NULL).
func FormatArrayText(elems []*string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case e == nil:
			b.WriteString("NULL")
		case arrayElemNeedsQuotes(*e):
			b.WriteByte('"')
			for j := 0; j < len(*e); j++ {
				if c := (*e)[j]; c == '"' || c == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte((*e)[j])
			}
			b.WriteByte('"')
		default:
			b.WriteString(*e)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// formatArrayDatums prints datums of elem as an array.
func formatArrayDatums(elem Type, ds []any) string {
	texts := make([]*string, len(ds))
	for i, d := range ds {
		if d != nil {
			s := outputText(d, elem)
			texts[i] = &s
		}
	}
	return FormatArrayText(texts)
}

// arrayDatums reads an array's text as datums of its element type.
func (in InputStyle) arrayDatums(s string, t Type) ([]any, error) {
	elems, err := ParseArrayText(s)
	if err != nil {
		return nil, err
	}
	if err := singleDimension(s); err != nil {
		return nil, err
	}
	elem := t.ElemType()
	out := make([]any, len(elems))
	for i, e := range elems {
		if e == nil {
			continue
		}
		if out[i], err = in.CoerceText(*e, elem); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// singleDimension refuses nested braces: multidimensional arrays are not
// carried.
func singleDimension(s string) error {
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == '{' && !quoted:
			if depth++; depth > 1 {
				return pgerr.Errorf(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
			}
		case c == '}' && !quoted:
			depth--
		}
	}
	return nil
}

// coerceArrayText is array_in: the text read as elements of t's element
// type and printed back canonically.
func (in InputStyle) coerceArrayText(s string, t Type) (any, error) {
	ds, err := in.arrayDatums(s, t)
	if err != nil {
		return nil, err
	}
	return formatArrayDatums(t.ElemType(), ds), nil
}

// castArray converts an array to another element type element by element.
func (in InputStyle) castArray(s string, from, to Type) (any, error) {
	ds, err := in.arrayDatums(s, from)
	if err != nil {
		return nil, err
	}
	fe, te := from.ElemType(), to.ElemType()
	for i, d := range ds {
		if ds[i], err = in.castDatum(d, fe, te); err != nil {
			return nil, err
		}
	}
	return formatArrayDatums(te, ds), nil
}

// compareArrays orders two arrays of t element by element, a shorter
// prefix first, NULL elements after every value (array_cmp).
func compareArrays(t Type, a, b string) int {
	in := InputStyle{}
	x, errA := in.arrayDatums(a, t)
	y, errB := in.arrayDatums(b, t)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	elem := t.ElemType()
	for i := 0; i < len(x) && i < len(y); i++ {
		switch {
		case x[i] == nil && y[i] == nil:
			continue
		case x[i] == nil:
			return 1
		case y[i] == nil:
			return -1
		}
		if c := compareDatums(elem, x[i], y[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(x) < len(y):
		return -1
	case len(x) > len(y):
		return 1
	}
	return 0
}

// ArrayDatums reads array text of type t as datums of its element type (the
// forms DatumAt returns), for the wire's binary array format.
func ArrayDatums(s string, t Type) ([]any, error) { return InputStyle{}.arrayDatums(s, t) }

// FormatArrayDatums prints datums of elem as an array (array_agg's result).
func FormatArrayDatums(elem Type, ds []any) string { return formatArrayDatums(elem, ds) }
