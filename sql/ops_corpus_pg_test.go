package sql

// The operators and casts whose operand types decide the result's type:
// || between arrays, elements, bytea and untyped literals.

var (
	// opsArrays are arrays of several element types, typed and untyped.
	opsArrays = []string{"array[1,2]", "array[1.5]", "array['a']", "array['a'::varchar(3)]", "array[1::smallint]",
		"array[2::bigint]", "array[2.5::float8]", "array[true]", "array[date '2024-01-01']", "'{3,4}'", "NULL::int[]"}
	// opsBytes are bytea operands and untyped or text partners.
	opsBytes = []string{"'\\x01'::bytea", "'abc'::bytea", "''::bytea", "NULL::bytea", "'z'", "'\\x02'", "'a\\\\b'",
		"E'\\\\001'", "'\\xzz'", "'z'::text", "NULL", "1", "'c'::char(3)"}
	// opsElems are elements of every kind to append or prepend (not char(n):
	// magmalake's arrays do not keep its padding).
	opsElems = []string{"1", "1.5", "2.25", "'3'", "'x'", "NULL", "NULL::numeric", "3::bigint", "2::smallint", "3.0::float8",
		"'b'::text", "'b'::varchar(3)", "'bcde'::varchar(5)", "true", "timestamptz '2024-01-01 10:00+00'", "timestamp '2024-01-01 10:00'",
		"array[1.5]", "array['z']", "array[7]"}
)

// corpusOperators is every family of this file.
func corpusOperators() []string {
	return append(corpusArrayOps(), corpusBytea()...)
}

// corpusArrayOps combines arrays with elements and arrays: || and the
// functions behind it.
func corpusArrayOps() []string {
	var out []string
	for _, a := range opsArrays {
		for _, e := range opsElems {
			out = append(out, a+" || "+e, e+" || "+a)
		}
		out = append(out, cross("array_append", []string{a}, opsElems)...)
		out = append(out, cross("array_prepend", opsElems, []string{a})...)
		out = append(out, cross("array_cat", []string{a}, opsArrays)...)
		out = append(out, cross("array_position", []string{a}, opsElems)...)
	}
	return out
}

// corpusBytea is || between bytea and bytea, untyped and text operands.
func corpusBytea() []string {
	var out []string
	for _, l := range opsBytes {
		for _, r := range opsBytes {
			out = append(out, l+" || "+r)
		}
	}
	for _, x := range []string{"'\\x0'", "'\\x0z'", "'\\xz0'", "'\\xé0'", "'\\x 01 02 '", "'\\x0 1'", "'\\x+1'",
		"'\\x'", "'\\X01'", "E'\\\\x01\\t02\\n'", "'a\\b'", "'a\\\\b'", "'\\377'", "'\\400'"} {
		out = append(out, x+"::bytea", x+"::bytea || '\\x01'::bytea")
	}
	return out
}
