package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// ArrayCompare is x op ANY|ALL (array) where the array arrives as a value:
// a parameter (drivers send lists this way) or an array literal such as
// '{1,2,3}'::int[]. The array's text is read per execution.
type ArrayCompare struct {
	Op     CmpOp
	All    bool
	X      Expr // converted for Domain
	Arr    Expr // the array as text
	Elem   Type
	Domain Type
}

func (a *ArrayCompare) Type() Type { return Bool }
func (a *ArrayCompare) String() string {
	q := "ANY"
	if a.All {
		q = "ALL"
	}
	return a.X.String() + " " + a.Op.String() + " " + q + " (" + a.Arr.String() + ")"
}

// quantifiedArray recognises the right operand __any(...) / __all(...).
func quantifiedArray(n parse.Expr) (*parse.FuncCall, bool, bool) {
	call, ok := n.(*parse.FuncCall)
	if !ok || len(call.Args) != 1 || (call.Name != "__any" && call.Name != "__all") {
		return nil, false, false
	}
	return call, call.Name == "__all", true
}

// bindArrayQuantified binds x op ANY|ALL (array).
func (b opBinder) bindArrayQuantified(op parse.Op, left parse.Expr, call *parse.FuncCall, all bool) (Expr, error) {
	if !op.IsComparison() {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "operator %s with ANY/ALL is not supported", op)
	}
	cmp := cmpOpOf(op)
	if arr, ok := call.Args[0].(*parse.FuncCall); ok && arr.Name == "__array" {
		return b.quantifiedList(cmp, left, arr.Args, all)
	}
	x, err := b.bind(left)
	if err != nil {
		return nil, err
	}
	elem, arrNode := Unknown, call.Args[0]
	if c, ok := arrNode.(*parse.FuncCall); ok && c.Name == "__cast" && len(c.Args) == 2 {
		if name, ok := literalString(c.Args[1]); ok && strings.HasSuffix(name, "[]") {
			if elem, err = ParseTypeName(strings.TrimSuffix(name, "[]")); err != nil {
				return nil, err
			}
			arrNode = c.Args[0]
		}
	}
	arr, err := b.bind(arrNode)
	if err != nil {
		return nil, err
	}
	if at := arr.Type(); at.IsArray() && elem.Kind == KindUnknown {
		elem = at.ElemType()
	}
	// Only a literal, a parameter (drivers send arrays as text) or a cast
	// to an array type is an array here: a text column is not.
	_, param := arr.(*Param)
	if !isUnknown(arr) && !param && elem.Kind == KindUnknown {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side")
	}
	if elem.Kind == KindUnknown {
		elem = x.Type()
		if isUnknown(x) {
			elem = Text
		}
	}
	// An untyped parameter is an array of the left side's type, as
	// PostgreSQL infers it (drivers then send int8[] and the like); an
	// untyped literal is read as that array.
	if arr, err = b.coerceUnknown(arr, ArrayOf(regAsOID(operandType(elem)))); err != nil {
		return nil, err
	}
	c, err := b.bindCompare(cmp, x, &subqueryValue{T: elem})
	if err != nil {
		return nil, err
	}
	bc := c.(*Compare)
	return &ArrayCompare{Op: cmp, All: all, X: bc.L, Arr: arr, Elem: elem, Domain: bc.Domain}, nil
}

// quantifiedList is x op ANY|ALL (ARRAY[e1, ...]): the OR (ANY) or AND
// (ALL) of the comparisons, which is exactly its three-valued logic; = ANY
// is IN and <> ALL is NOT IN. The array is typed first, as PostgreSQL
// types ARRAY[...] before it finds the operator: 1 = ANY(ARRAY['1']) is
// integer = text, which does not exist.
func (b opBinder) quantifiedList(op CmpOp, left parse.Expr, items []parse.Expr, all bool) (Expr, error) {
	if len(items) == 0 {
		return nil, pgerr.Errorf(pgerr.IndeterminateDatatype, "cannot determine type of empty array")
	}
	x, err := b.bind(left)
	if err != nil {
		return nil, err
	}
	elems, err := b.composites().bindArrayItems(items)
	if err != nil {
		return nil, err
	}
	terms := make([]*Compare, len(elems))
	for i, e := range elems {
		c, err := b.bindCompare(op, x, e)
		if err != nil {
			return nil, err
		}
		terms[i] = c.(*Compare)
	}
	if op == OpEQ && !all || op == OpNE && all {
		// Every comparison converts x alike: the elements share a type.
		in := &InList{X: terms[0].L, Not: all, Array: true, List: make([]Expr, len(terms)), Domains: make([]Type, len(terms))}
		for i, c := range terms {
			in.List[i], in.Domains[i] = c.R, c.Domain
		}
		return in, nil
	}
	args := make([]Expr, len(terms))
	for i, c := range terms {
		args[i] = c
	}
	return newLogic(all, args...), nil
}

// evalArrayCompare reads each row's array and compares x with its elements.
func (ev *evaluator) evalArrayCompare(x *ArrayCompare, sel []int, out []any) ([]any, error) {
	xs, err := ev.eval(x.X, sel)
	if err != nil {
		return nil, err
	}
	arrs, err := ev.eval(x.Arr, sel)
	if err != nil {
		return nil, err
	}
	for _, i := range sel {
		if arrs[i] == nil {
			out[i] = nil
			continue
		}
		elems, err := ParseArrayText(arrs[i].(string))
		if err != nil {
			return nil, err
		}
		if out[i], err = ev.quantify(x, xs[i], elems); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (ev *evaluator) quantify(x *ArrayCompare, v any, elems []*string) (any, error) {
	if len(elems) == 0 {
		return x.All, nil
	}
	if v == nil {
		return nil, nil
	}
	tv := toDomain(v, x.X.Type(), x.Domain)
	sawNull := false
	for _, e := range elems {
		if e == nil {
			sawNull = true
			continue
		}
		d, err := ev.input.castDatum(*e, Text, x.Elem)
		if err != nil {
			return nil, err
		}
		holds := cmpHolds(x.Op, compareDatums(x.Domain, tv, toDomain(d, x.Elem, x.Domain)))
		if !x.All && holds {
			return true, nil
		}
		if x.All && !holds {
			return false, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return x.All, nil
}

// ParseArrayText reads PostgreSQL's array text ({1,2,"a b",NULL}, nested
// braces flattened) into its elements; nil stands for NULL.
func ParseArrayText(s string) ([]*string, error) {
	bad := func() error { return pgerr.Errorf(pgerr.InvalidTextRepresentation, "malformed array literal: %q", s) }
	t := strings.TrimSpace(s)
	// A dimension decoration such as [1:3]={...} is skipped.
	if strings.HasPrefix(t, "[") {
		eq := strings.Index(t, "=")
		if eq < 0 {
			return nil, bad()
		}
		t = strings.TrimSpace(t[eq+1:])
	}
	if !strings.HasPrefix(t, "{") {
		return nil, bad()
	}
	var out []*string
	depth, i := 0, 0
	for i < len(t) {
		c := t[i]
		switch {
		case c == '{':
			depth++
			i++
		case c == '}':
			depth--
			i++
			if depth == 0 && strings.TrimSpace(t[i:]) != "" {
				return nil, bad()
			}
		case c == ',' || c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '"':
			v, n, ok := quotedElement(t[i:])
			if !ok {
				return nil, bad()
			}
			out = append(out, &v)
			i += n
		default:
			j := i
			for j < len(t) && t[j] != ',' && t[j] != '}' {
				j++
			}
			v := strings.TrimSpace(t[i:j])
			if strings.EqualFold(v, "NULL") {
				out = append(out, nil)
			} else {
				out = append(out, &v)
			}
			i = j
		}
		if depth < 0 {
			return nil, bad()
		}
	}
	if depth != 0 {
		return nil, bad()
	}
	return out, nil
}

// quotedElement reads "..." with backslash escapes; n is the length read.
func quotedElement(s string) (string, int, bool) {
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			sb.WriteByte(s[i])
		case '"':
			return sb.String(), i + 1, true
		default:
			sb.WriteByte(s[i])
		}
	}
	return "", 0, false
}
