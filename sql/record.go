package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// Records (anonymous composites such as _pg_expandarray's (x, n)) are
// carried as PostgreSQL's record text, "(1,2)"; the Type's Fields names
// each field and its type, so (r).x reads one back.

// RecordField is one field of a record type.
type RecordField struct {
	Name string
	T    Type
}

// RecordOf is the record type of fields.
func RecordOf(fields ...RecordField) Type {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + "\x1f" + f.T.String()
	}
	return Type{Kind: KindRecord, Fields: strings.Join(parts, "\x1e")}
}

// RecordFields lists a record type's fields.
func (t Type) RecordFields() []RecordField {
	if t.Fields == "" {
		return nil
	}
	var out []RecordField
	for _, p := range strings.Split(t.Fields, "\x1e") {
		name, tn, _ := strings.Cut(p, "\x1f")
		ft, err := ParseTypeName(tn)
		if err != nil {
			ft = Text
		}
		out = append(out, RecordField{Name: name, T: ft})
	}
	return out
}

// FormatRecord prints record_out over the fields' datums.
func FormatRecord(t Type, ds []any) string {
	fields := t.RecordFields()
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(',')
		}
		if d == nil {
			continue
		}
		s := outputText(d, fields[i].T)
		if s == "" || strings.ContainsAny(s, "(),\"\\ \t\n\r") {
			b.WriteByte('"')
			for j := 0; j < len(s); j++ {
				if s[j] == '"' || s[j] == '\\' {
					b.WriteByte(s[j])
				}
				b.WriteByte(s[j])
			}
			b.WriteByte('"')
			continue
		}
		b.WriteString(s)
	}
	b.WriteByte(')')
	return b.String()
}

// recordTexts reads record text back into field texts (nil is NULL).
func recordTexts(s string) ([]*string, error) {
	bad := pgerr.Errorf(pgerr.InvalidTextRepresentation, "malformed record literal: %q", s)
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, bad
	}
	body := s[1 : len(s)-1]
	var out []*string
	var cur strings.Builder
	quoted, seen := false, false
	flush := func() {
		if !seen {
			out = append(out, nil)
		} else {
			v := cur.String()
			out = append(out, &v)
		}
		cur.Reset()
		seen = false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case quoted && c == '"' && i+1 < len(body) && body[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted, seen = !quoted, true
		case c == '\\' && i+1 < len(body):
			i++
			cur.WriteByte(body[i])
			seen = true
		case c == ',' && !quoted:
			flush()
		default:
			cur.WriteByte(c)
			seen = true
		}
	}
	flush()
	return out, nil
}

// bindField binds (x).name.
func (b *binder) bindField(n *parse.FuncCall) (Expr, error) {
	if len(n.Args) != 2 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "field selection needs a value and a name")
	}
	name, ok := literalString(n.Args[1])
	if !ok {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "field selection needs a name")
	}
	x, err := b.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	t := x.Type()
	if t.Kind != KindRecord {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, t)
	}
	for i, f := range t.RecordFields() {
		if f.Name == strings.ToLower(name) || f.Name == name {
			return &Func{Name: "__field", Args: []Expr{x, intConst(int64(i))}, T: f.T}, nil
		}
	}
	return nil, pgerr.Errorf(pgerr.UndefinedColumn, "could not identify column %q in record data type", name)
}

// recordFunctions: field selection, (x).name, an internal form (no
// function to PostgreSQL, which simplifies it only when every operand is
// constant: so it is not strict, and a NULL record has NULL fields).
func recordFunctions() []Function {
	return []Function{
		{Name: "__field", row: func(_ *evaluator, x *Func) rowFunc {
			return func(a []any) (any, error) { return InputStyle{}.fieldValue(x, a) }
		}},
	}
}

// fieldValue is (record).field for one row.
func (in InputStyle) fieldValue(x *Func, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	texts, err := recordTexts(a[0].(string))
	if err != nil {
		return nil, err
	}
	i := int(a[1].(int64))
	if i >= len(texts) || texts[i] == nil {
		return nil, nil
	}
	return in.CoerceText(*texts[i], x.T)
}
