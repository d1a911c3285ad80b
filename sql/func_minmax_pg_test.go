package sql

// corpusMinMax mixes every pair and some triples of typed, untyped and NULL
// arguments in greatest and least.
func corpusMinMax() []string {
	vals := []string{"1", "-2", "2.5", "'3'", "NULL", "3000000000", "1.5::float8", "'NaN'::float8", "'abc'", "'ab'::text",
		"''", "'ü'", "date '2024-01-01'", "timestamp '2024-01-01 10:00'", "timestamptz '2023-12-31 23:00+00'", "true",
		"false", "NULL::int", "(-1)::smallint", "2.50"}
	var out []string
	for _, f := range []string{"greatest", "least"} {
		out = append(out, cross(f, vals, vals)...)
		out = append(out, cross(f, []string{"1", "NULL", "'x'"}, vals, []string{"2", "NULL"})...)
		out = append(out, f+"(NULL)", f+"(NULL, NULL)", f+"('a')", f+"(1)")
	}
	return out
}
