package sql

// bindMore binds the function families kept in files of their own
// (func_math.go, ...); ok is false for a name none of them has.
func (b *binder) bindMore(name string, args []Expr) (Expr, bool, error) {
	for _, bind := range [...]func(*binder, string, []Expr) (Expr, bool, error){
		(*binder).bindMath,
		(*binder).bindRegex,
		(*binder).bindTextMore,
		(*binder).bindMinMax,
		(*binder).bindDateTimeParts,
		(*binder).bindMakeDateTime,
		(*binder).bindStringMore,
		(*binder).bindToChar,
		(*binder).bindArrayFunc,
		(*binder).bindCatalog,
		(*binder).bindJSONGet,
	} {
		if e, ok, err := bind(b, name, args); ok {
			return e, true, err
		}
	}
	return nil, false, nil
}

// foldsNull reports whether the planner makes x NULL when an argument is a
// NULL constant (PostgreSQL's strict functions). Array constructors,
// subscripts and field selection are no function calls to PostgreSQL, and
// it simplifies those only when every operand is constant.
func foldsNull(x *Func) bool {
	switch x.Name {
	case "coalesce", "pg_typeof", "__array", "__subscript", "__field", "array_to_string":
		return false
	case "array_upper", "array_lower", "array_length", "cardinality", "array_ndims":
		return true
	}
	if isCatalogFunc(x.Name) {
		return catalogFuncs[x.Name].strict
	}
	_, strict := rowFunc(x)
	return strict
}

// rowFunc is how evalFunc computes x for one row's arguments; a strict
// function is NULL, without being called, when an argument is. The
// function may keep state for the rows of one evaluation (a compiled
// pattern), never across evaluations.
func rowFunc(x *Func) (fn func(a []any) (any, error), strict bool) {
	switch {
	case isJSONGet(x.Name):
		return func(a []any) (any, error) { return jsonGet(x, a) }, true
	case x.Name == "__field":
		return func(a []any) (any, error) { return InputStyle{}.fieldValue(x, a) }, true
	case isArrayFunc(x.Name):
		return func(a []any) (any, error) { return InputStyle{}.arrayScalar(x, a) }, false
	case x.Name == "to_char":
		return func(a []any) (any, error) { return toChar(x, a) }, true
	case isByteaFunc(x.Name):
		return func(a []any) (any, error) { return byteaScalar(x.Name, a[0].([]byte)), nil }, true
	case isStringMoreFunc(x.Name):
		_, nonStrict := isStringMore(x.Name)
		return func(a []any) (any, error) { return stringMore(x, a) }, !nonStrict
	case isVariadicText(x.Name):
		return func(a []any) (any, error) { return variadicText(x, a) }, false
	case isMath(x.Name):
		return func(a []any) (any, error) { return mathScalar(x, a) }, true
	case isMakeDateTime(x.Name):
		return func(a []any) (any, error) { return makeDateTime(x, a) }, true
	case isDateTimeParts(x.Name):
		return func(a []any) (any, error) { return dateTimePartsScalar(x, a) }, true
	case isMinMax(x.Name):
		return func(a []any) (any, error) { return minMax(x, a) }, false
	case isRegex(x.Name):
		cache := regexCache{}
		return func(a []any) (any, error) { return regexScalar(x, a, cache) }, true
	case x.Name == "translate":
		return func(a []any) (any, error) { return translateText(a[0].(string), a[1].(string), a[2].(string)), nil }, true
	}
	return func(a []any) (any, error) { return scalar(x, a) }, true
}
