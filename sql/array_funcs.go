package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// The array functions; ARRAY[...], ARRAY(subquery) and subscripts are
// bound in bind_array.go.

func arrayFunctions() []Function {
	return []Function{
		// ARRAY[...] and a subscript: internal forms, which PostgreSQL
		// simplifies only when every operand is constant.
		{Name: "__array", row: arrayRow},
		{Name: "__subscript", row: arrayRow},
		{Name: "array_upper", Strict: true, Signatures: sigs("anyarray,integer"), bind: bindArrayDimension, row: arrayRow},
		{Name: "array_lower", Strict: true, Signatures: sigs("anyarray,integer"), bind: bindArrayDimension, row: arrayRow},
		{Name: "array_length", Strict: true, Signatures: sigs("anyarray,integer"), bind: bindArrayDimension, row: arrayRow},
		{Name: "cardinality", Strict: true, Signatures: sigs("anyarray"), bind: bindArraySize, row: arrayRow},
		{Name: "array_ndims", Strict: true, Signatures: sigs("anyarray"), bind: bindArraySize, row: arrayRow},
		{Name: "array_to_string", Signatures: sigs("anyarray,text,text | anyarray,text"), bind: bindArrayToString, row: arrayRow},
		{Name: "array_cat", Signatures: sigs("anycompatiblearray,anycompatiblearray"), bind: callBinder.bindArrayCombine, row: arrayRow},
		{Name: "array_append", Signatures: sigs("anycompatiblearray,anycompatible"), bind: callBinder.bindArrayCombine, row: arrayRow},
		{Name: "array_prepend", Signatures: sigs("anycompatible,anycompatiblearray"), bind: callBinder.bindArrayCombine, row: arrayRow},
		{Name: "array_position", Signatures: sigs("anycompatiblearray,anycompatible"), bind: callBinder.bindArrayCombine, row: arrayRow},
	}
}

// bindArrayDimension binds array_upper, array_lower and array_length.
func bindArrayDimension(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 2 || !b.arrayArg(args, 0) || b.intArg(name, args, 1) != nil {
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: Int32}, nil
}

// bindArraySize binds cardinality and array_ndims.
func bindArraySize(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) != 1 || !b.arrayArg(args, 0) {
		return nil, noFunction(name, args)
	}
	return &Func{Name: name, Args: args, T: Int32}, nil
}

func bindArrayToString(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) < 2 || len(args) > 3 || !b.arrayArg(args, 0) || b.textArgs(name, args[1:]) != nil {
		return nil, noFunction(name, args)
	}
	if args[0].Type().Reg != RegNone {
		// Elements print by their output function: reg* ones as names.
		args[0] = &Cast{X: args[0], T: ArrayOf(Text)}
	}
	return &Func{Name: name, Args: args, T: Text}, nil
}

// arrayArg reports whether argument i is an array; an untyped literal is
// read as text[].
func (b callBinder) arrayArg(args []Expr, i int) bool {
	if isUnknown(args[i]) {
		c, err := b.coerceUnknown(args[i], ArrayOf(Text))
		if err != nil {
			return false
		}
		args[i] = c
	}
	return args[i].Type().IsArray()
}

// bindArrayCombine binds array_cat(a, b), array_append(a, e),
// array_prepend(e, a) and array_position(a, e); || between an array and an
// array or element comes here too. Their arguments are PostgreSQL's
// anycompatiblearray and anycompatible: the element type is the common type
// of the array's elements and the other argument (integer[] || 1.5 is
// numeric[]), and a call with no common type does not exist (42883).
func (b callBinder) bindArrayCombine(name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, noFunction(name, args)
	}
	ai, ei := 0, 1
	if name == "array_prepend" {
		ai, ei = 1, 0
	}
	if name == "array_cat" && isUnknown(args[0]) && args[1].Type().IsArray() {
		ai, ei = 1, 0
	}
	if err := b.untypedArrayArg(name, args, ai, ei); err != nil {
		return nil, err
	}
	if !b.arrayArg(args, ai) {
		return nil, noFunction(name, args)
	}
	elem, ok := b.combinedElem(name, args[ai].Type(), args[ei])
	if !ok {
		return nil, noFunction(name, args)
	}
	at := ArrayOf(elem)
	want := elem
	if name == "array_cat" {
		want = at
	}
	es := []Expr{args[ai], args[ei]}
	if err := b.coerceAll(es[:1], at); err != nil {
		return nil, err
	}
	if err := b.coerceAll(es[1:], want); err != nil {
		return nil, err
	}
	args[ai], args[ei] = es[0], es[1]
	t := at
	if name == "array_position" {
		t = Int32
	}
	return &Func{Name: name, Args: args, T: t}, nil
}

// untypedArrayArg reads an untyped array argument as an array of the other
// argument's type, as PostgreSQL resolves anycompatiblearray from its
// anycompatible partner: array_append('{3,4}', 1.5) is numeric[].
func (b callBinder) untypedArrayArg(name string, args []Expr, ai, ei int) error {
	if !isUnknown(args[ai]) || isUnknown(args[ei]) || name == "array_cat" {
		return nil
	}
	et := args[ei].Type()
	if et.IsArray() {
		return pgerr.Errorf(pgerr.UndefinedObject, "could not find array type for data type %s", et.SigName())
	}
	c, err := b.coerceUnknown(args[ai], ArrayOf(et))
	if err != nil {
		return err
	}
	args[ai] = c
	return nil
}

// combinedElem is the element type of an array of type at combined with e
// (an element, or an array for array_cat); ok is false when they have no
// common type. An untyped e takes the array's type.
func (b callBinder) combinedElem(name string, at Type, e Expr) (Type, bool) {
	et := e.Type()
	switch {
	case isUnknown(e):
		return at.ElemType(), true
	case name == "array_cat" && !et.IsArray(), name != "array_cat" && et.IsArray():
		return Unknown, false
	case name == "array_cat":
		et = et.ElemType()
	}
	first, second := at.ElemType(), et
	if name == "array_prepend" {
		first, second = et, first
	}
	switch {
	case first == second:
		return first, true
	case first.IsString() && second.IsString():
		// Text, varchar and bpchar cast to each other implicitly, so
		// PostgreSQL keeps the first one's type, without a length the
		// other does not share.
		first.Length = 0
		return first, true
	}
	t, err := b.commonType([]Expr{&Const{T: first}, &Const{T: second}}, name)
	if err != nil || !castable(second, t) || !castable(first, t) {
		return Unknown, false
	}
	return t, true
}

func arrayRow(_ *evaluator, x *Func) rowFunc {
	return func(a []any) (any, error) { return InputStyle{}.arrayScalar(x, a) }
}

// arrayScalar computes an array function for one row. Only ARRAY[...],
// array_cat and the append/prepend functions see NULL arguments.
func (in InputStyle) arrayScalar(x *Func, a []any) (any, error) {
	switch x.Name {
	case "__array":
		return formatArrayDatums(x.T.ElemType(), a), nil
	case "array_cat", "array_append", "array_prepend":
		return in.combineArrays(x, a)
	}
	for _, v := range a {
		if v == nil {
			return nil, nil
		}
	}
	ds, err := in.arrayDatums(a[0].(string), x.Args[0].Type())
	if err != nil {
		return nil, err
	}
	switch x.Name {
	case "__subscript":
		i := a[1].(int64)
		if i < 1 || i > int64(len(ds)) {
			return nil, nil
		}
		return ds[i-1], nil
	case "array_upper", "array_length":
		if a[1].(int64) != 1 || len(ds) == 0 {
			return nil, nil
		}
		return int64(len(ds)), nil
	case "array_lower":
		if a[1].(int64) != 1 || len(ds) == 0 {
			return nil, nil
		}
		return int64(1), nil
	case "cardinality":
		return int64(len(ds)), nil
	case "array_ndims":
		if len(ds) == 0 {
			return nil, nil
		}
		return int64(1), nil
	case "array_position":
		return arrayPosition(x, ds, a[1]), nil
	}
	return arrayToString(x, ds, a), nil
}

func arrayToString(x *Func, ds []any, a []any) string {
	elem := x.Args[0].Type().ElemType()
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		switch {
		case d != nil:
			// The output function's text: t and f for booleans.
			parts = append(parts, outputText(d, elem))
		case len(a) > 2:
			parts = append(parts, a[2].(string))
		}
	}
	return strings.Join(parts, a[1].(string))
}

func arrayPosition(x *Func, ds []any, v any) any {
	elem := x.Args[0].Type().ElemType()
	for i, d := range ds {
		if d != nil && compareDatums(elem, d, v) == 0 {
			return int64(i + 1)
		}
	}
	return nil
}

// combineArrays is array_cat, array_append and array_prepend: a NULL array
// is empty, a NULL element is appended as NULL.
func (in InputStyle) combineArrays(x *Func, a []any) (any, error) {
	read := func(v any, t Type) ([]any, error) {
		if v == nil {
			return nil, nil
		}
		return in.arrayDatums(v.(string), t)
	}
	at := x.T
	switch x.Name {
	case "array_append", "array_prepend":
		ai, ei := 0, 1
		if x.Name == "array_prepend" {
			ai, ei = 1, 0
		}
		ds, err := read(a[ai], at)
		if err != nil {
			return nil, err
		}
		if ai == 0 {
			return formatArrayDatums(at.ElemType(), append(ds, a[ei])), nil
		}
		return formatArrayDatums(at.ElemType(), append([]any{a[ei]}, ds...)), nil
	}
	if a[0] == nil && a[1] == nil {
		return nil, nil
	}
	l, err := read(a[0], at)
	if err != nil {
		return nil, err
	}
	r, err := read(a[1], at)
	if err != nil {
		return nil, err
	}
	return formatArrayDatums(at.ElemType(), append(l, r...)), nil
}
