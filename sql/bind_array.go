package sql

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// ARRAY[...], ARRAY(subquery) and subscripts, bound by compositeBinder.

// bindArrayNode binds the normaliser's array forms; ok is false for others.
func (b compositeBinder) bindArrayNode(n *parse.FuncCall) (Expr, bool, error) {
	switch n.Name {
	case "__array":
		e, err := b.bindArrayConstructor(n.Args)
		return e, true, err
	case "__array_sub":
		sq, ok := n.Args[0].(*parse.Subquery)
		if len(n.Args) != 1 || !ok {
			return nil, true, pgerr.Errorf(pgerr.SyntaxError, "ARRAY() needs a subquery")
		}
		e, err := b.bindSubquery(SubArray, sq, nil, OpEQ)
		return e, true, err
	case "__subscript":
		if e, ok, err := b.calls().bindRegexpMatchSubscript(n); ok {
			return e, true, err
		}
		e, err := b.bindSubscript(n.Args)
		return e, true, err
	}
	return nil, false, nil
}

func (b compositeBinder) bindArrayConstructor(items []parse.Expr) (Expr, error) {
	if len(items) == 0 {
		// ARRAY[] only has a type under a cast, which reads '{}' again.
		return &Const{Value: "{}", T: ArrayOf(Text)}, nil
	}
	args, err := b.bindArrayItems(items)
	if err != nil {
		return nil, err
	}
	return &Func{Name: "__array", Args: args, T: ArrayOf(args[0].Type())}, nil
}

// bindArrayItems binds ARRAY[...]'s elements, converted to their common
// type (untyped ones alone are text).
func (b compositeBinder) bindArrayItems(items []parse.Expr) ([]Expr, error) {
	args := make([]Expr, len(items))
	for i, it := range items {
		var err error
		if args[i], err = b.bind(it); err != nil {
			return nil, err
		}
		if args[i].Type().IsArray() {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
	}
	t, err := b.commonType(args, "ARRAY")
	if err != nil {
		return nil, err
	}
	if err := b.coerceAll(args, t); err != nil {
		return nil, err
	}
	return args, nil
}

func (b compositeBinder) bindSubscript(items []parse.Expr) (Expr, error) {
	if len(items) != 2 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "array slices are not supported")
	}
	arr, err := b.bind(items[0])
	if err != nil {
		return nil, err
	}
	if !arr.Type().IsArray() {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", arr.Type())
	}
	idx, err := b.bind(items[1])
	if err != nil {
		return nil, err
	}
	args := []Expr{arr, idx}
	if err := b.calls().intArg("subscript", args, 1); err != nil {
		if args[1].Type().Kind != KindInt64 {
			return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "array subscript must have type integer")
		}
	}
	return &Func{Name: "__subscript", Args: args, T: arr.Type().ElemType()}, nil
}
