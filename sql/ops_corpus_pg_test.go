package sql

import "strings"

// The operators and casts whose operand types decide the result's type:
// || between arrays, elements, bytea and untyped literals; casts of
// char(n) (the padding it keeps or drops); the reg* types as text (named,
// not numbered) wherever a value turns into text; json_build_object's JSON.

var (
	// opsArrays are arrays of several element types, typed and untyped.
	opsArrays = []string{"array[1,2]", "array[1.5]", "array['a']", "array['a'::varchar(3)]", "array[1::smallint]",
		"array[2::bigint]", "array[2.5::float8]", "array[true]", "array[date '2024-01-01']", "'{3,4}'", "NULL::int[]"}
	// opsBytes are bytea operands and untyped or text partners.
	opsBytes = []string{"'\\x01'::bytea", "'abc'::bytea", "''::bytea", "NULL::bytea", "'z'", "'\\x02'", "'a\\\\b'",
		"E'\\\\001'", "'\\xzz'", "'z'::text", "NULL", "1", "'c'::char(3)"}
	// opsChars are char(n) values with their padding, and padded texts.
	opsChars = []string{"'x'::char(3)", "' '::char(2)", "''::char(2)", "'日'::char(3)", "'ab  '::char(3)", "'x'::bpchar",
		"NULL::char(2)", "'x  '::text", "'x '::varchar(3)", "'x'::char(3)::varchar(3)"}
	// opsRegs are reg* values: pg_typeof of several types, and casts.
	opsRegs = []string{"pg_typeof(1)", "pg_typeof('x'::varchar(3))", "pg_typeof(1::numeric(5,2))", "pg_typeof(array[1])",
		"pg_typeof(NULL)", "pg_typeof(now())", "pg_typeof('x'::char(2))", "pg_typeof(pg_typeof(1))", "23::regtype",
		"1043::oid::regtype", "pg_typeof(array['a'::varchar])", "pg_typeof(1.5::float4)", "pg_typeof(true)",
		"pg_typeof(interval '1 day')", "pg_typeof('\\x01'::bytea)", "pg_typeof(date '2024-01-01')"}
	// opsElems are elements of every kind to append or prepend (not char(n):
	// magmalake's arrays do not keep its padding).
	opsElems = []string{"1", "1.5", "2.25", "'3'", "'x'", "NULL", "NULL::numeric", "3::bigint", "2::smallint", "3.0::float8",
		"'b'::text", "'b'::varchar(3)", "'bcde'::varchar(5)", "true", "timestamptz '2024-01-01 10:00+00'", "timestamp '2024-01-01 10:00'",
		"array[1.5]", "array['z']", "array[7]"}
)

// corpusOperators is every family of this file.
func corpusOperators() []string {
	out := append(corpusArrayOps(), corpusBytea()...)
	out = append(append(out, corpusCharCasts()...), corpusOIDCasts()...)
	out = append(append(out, corpusRegText()...), corpusJSONBuild()...)
	out = append(append(out, corpusCommonTypes()...), corpusSignedLiterals()...)
	out = append(append(out, corpusDateTimeEdges()...), corpusArrayOutput()...)
	out = append(append(out, corpusLikeEscapes()...), corpusFloatInput()...)
	out = append(append(out, corpusTimeArith()...), corpusMakeDateTime()...)
	return append(out, corpusQuantified()...)
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

// corpusCharCasts casts char(n) values to the string types, bytea and
// the types read from text; and text to json and uuid.
func corpusCharCasts() []string {
	var out []string
	for _, c := range opsChars {
		// Not bpchar: without a length, magmalake's char drops the
		// trailing blanks PostgreSQL keeps ('x'::char(3)::bpchar is 'x  ').
		for _, t := range []string{"bytea", "text", "varchar", "varchar(2)", "char(5)", "char(1)"} {
			out = append(out, c+"::"+t, "length("+c+"::"+t+")")
		}
		out = append(out, c+"::json")
		out = append(out, c+" || '|'", "concat("+c+", '|')", "format('%s|', "+c+")", c+"::text = 'x'",
			c+"::bytea = 'x'::bytea", "octet_length("+c+")")
	}
	// Other types read char(n)'s padded output.
	for _, c := range []string{"' 1'::char(4)", "'t'::char(3)", "'2024-01-02'::char(12)", "'1.5'::char(5)",
		"'1 day'::char(8)", "'2024-01-02 03:04'::char(20)", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::char(40)",
		"'{1,2}'::char(7)", "'{\"a\": 1}'::char(12)", "'1'::char(2)"} {
		for _, t := range []string{"int", "bool", "date", "numeric", "float8", "interval", "timestamp", "uuid", "int[]", "json", "time"} {
			out = append(out, c+"::"+t)
		}
	}
	// json reads text as json and nothing else.
	for _, j := range []string{"'x'", "'{\"a\":1}'", "'{\"a\":1,}'", "' 1 '", "'[1,2'", "'nul'", "'01'", "'-0'", "'1e5'",
		"'.5'", "'\"\\u00e9\"'", "'\"\\uZZZZ\"'", "E'\"a\\tb\"'", "''", "'null'", "'[]'", "'\"\\ud800\"'", "E'[1,\\n2]'"} {
		out = append(out, j+"::json", j+"::text::json") // not jsonb: magmalake reads it as json

	}
	for _, x := range []string{"1", "1.5", "true", "date '2024-01-01'", "array[1]", "'\\x01'::bytea"} {
		out = append(out, x+"::json")
	}
	// uuid input takes no blanks, and hyphens only between groups of four.
	u := "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	for _, x := range []string{u, "{" + u + "}", "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"a0-eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", " " + u, u + " ", u + "-", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
		"{" + u, u + "}", u[:35], u + "1", "", "-" + u, u[:35] + "g"} {
		out = append(out, "'"+x+"'::uuid")
	}
	return out
}

// corpusRegText turns reg* values into text every way there is.
func corpusRegText() []string {
	var out []string
	for _, r := range opsRegs {
		for _, f := range []string{"%s", "%s::text", "%s::varchar", "%s::varchar(3)", "%s::char(3)", "%s::char(30)",
			"'t: ' || %s", "%s || ' x'", "format('%%s', %s)", "format('%%I|%%L', %s, %s)", "concat(%s, 'x')",
			"concat_ws(',', %s, %s)", "quote_literal(%s)", "quote_nullable(%s)", "%s::text = 'integer'",
			"length(%s::text)", "%s::text LIKE 'int%%'", "%s IN ('integer', 'text')", "%s::oid", "%s::int8",
			"%s::int2", "%s::numeric", "%s::regclass", "array[%s]", "array[%s]::text",
			"array_to_string(array[%s], ',')", "(array[%s])[1]", "array[%s, 25::regtype]::oid[]",
			"concat(array[%s])", "array[%s]::int8[]", "array[%s]::varchar(5)", "coalesce(%s, 'text')", "greatest(%s, 'text')",
			"CASE WHEN true THEN %s END", "%s = 'integer'", "%s = 23", "%s = '23'", "%s IN ('integer')",
			"%s IN ('nosuchtype', 'integer')", "%s IN (23::regtype, 'text')", "%s LIKE 'int%%'", "nullif(%s, 'integer')",
			"CASE %s WHEN 'integer' THEN 1 END", "json_build_object('t', %s)", "%s IS DISTINCT FROM 'integer'",
			"%s::regproc", "%s::bool", "'x' || %s::varchar(3)", "%s::int4", "%s::oid::regtype", "%s::int8::regtype"} {
			out = append(out, sprintfAll(f, r))
		}
	}
	for _, s := range []string{"'int4'", "'integer'", "'int[]'", "'varchar(3)'", "'double precision'", "'character varying'",
		"'nosuchtype'", "'23'", "' int4 '", "'pg_catalog.int8'", "'timestamptz'", "'bpchar'", "'char'", "'INT4'",
		"'numeric(5,2)'", "'timestamp(3) with time zone'", "'interval'", "'regtype'", "'unknown'", "'record'", "'double'",
		"'int4[][]'", "'-1'", "'4294967295'", "'4294967296'", "''"} {
		out = append(out, s+"::regtype", s+"::regtype::text", s+"::regtype::oid")
	}
	for _, a := range []string{"'{int4,text}'", "'{integer,NULL,\"character varying\"}'", "'{}'", "'{23,nosuchtype}'",
		"'int4'", "array[23, 25]", "array[-1]", "array[23::oid]", "array['int4']", "NULL"} {
		out = append(out, a+"::regtype[]", a+"::regtype[]::text", a+"::regtype[]::oid[]", "pg_typeof("+a+"::regtype[])",
			"array_length("+a+"::regtype[], 1)", "("+a+"::regtype[])[2]")
	}
	for _, n := range []string{"1", "-1", "(-1)", "0", "4294967295", "4294967296", "(-1)::bigint", "(2)::smallint",
		"(-2)::smallint", "NULL::int", "' 23'", "'23 '", "'-'", "'0'", "'00023'", "'+23'", "'-23'"} {
		out = append(out, n+"::regtype", n+"::regtype::text", n+"::oid::regtype", n+"::regtype::int8", n+"::regtype::int4",
			n+"::regclass::text", n+"::regnamespace::oid", n+"::regproc::text")
	}
	return out
}

// corpusOIDCasts casts among oid and the integers, and the constants of
// types that have no cast; LIKE of other types than strings.
func corpusOIDCasts() []string {
	var out []string
	// oid is int4's bits: casts among oid and the integers, and its input.
	for _, n := range []string{"(-1)", "(-1)::int2", "(-1)::int8", "4294967295", "4294967296", "'-1'", "'-2147483648'",
		"'-2147483649'", "'4294967295'", "'4294967296'", "' 12 '", "'+12'", "1.5", "4.0", "4::float8", "true", "'x'"} {
		out = append(out, n+"::oid", n+"::oid::int4", n+"::oid::int8", n+"::oid::text")
	}
	// (Not after a failing constant cast: PostgreSQL finds no cast before it
	// folds the constant one.)
	out = append(out, "4::oid::int2", "4::oid::numeric", "4::oid::float8", "4::oid::bool", "'4'::oid::int2")
	out = append(out, "true::int8", "true::int2", "false::int4", "1::bool", "1::int8::bool", "true::numeric",
		"true::float8", "1.5::bool", "'t'::bool::int4")
	// Only strings have LIKE: the other side's untyped literal is not read.
	return append(out, "1 LIKE 'a'", "1 LIKE '1'", "'a' LIKE 1", "date '2024-01-01' LIKE '2024%'", "true ILIKE 't'",
		"'a' LIKE 'a'", "NULL LIKE 'a'")
}

// corpusJSONBuild is json_build_object over values of every type, as keys
// and as values: how each is written in JSON.
func corpusJSONBuild() []string {
	vals := []string{"'<b>&'", "E'\\u2028x'", "E'tab\\there'", "E'\\x01\\x1f'", "'é日'", "E'\\\\'", "E'\"q\"'",
		"E'a\\nb\\rc\\fd\\be'", "1.50", "'NaN'::float8", "'-Infinity'::float8", "1e20::float8", "'-0'::float8",
		"1.5::real", "123456789012345678901234567890.5", "true", "NULL", "NULL::int", "date '2024-01-01'",
		"date '0044-03-15 BC'", "'infinity'::date", "timestamp '2024-01-01 10:00'", "timestamp '2024-01-01 10:00:00.5'",
		"timestamp '0044-03-15 10:00:00 BC'", "'-infinity'::timestamp", "timestamptz '2024-01-01 10:00:00.123456+00'",
		"'infinity'::timestamptz", "time '10:00'", "interval '1 day 2 hours'", "'{\"x\":1}'::json", "array[1,2]",
		"array['a',NULL]", "array[1.5::float8,'NaN']", "'{}'::int[]", "array[true]", "array[date '2024-01-01']",
		"array[timestamptz '2024-01-01 10:00+00']", "'x'::char(3)", "'\\x01'::bytea",
		"uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "pg_typeof(1)", "array[pg_typeof(1)]", "42", "(-7)::smallint"}
	var out []string
	for _, v := range vals {
		out = append(out, "json_build_object('a', "+v+")", "json_build_object("+v+", 1)")
	}
	return append(out, "json_build_object()", "json_build_object('a')", "json_build_object('a', 1, 'b', 2)")
}

// corpusCommonTypes pairs values of every type in the forms that resolve
// one type for several: COALESCE, CASE, NULLIF, IN, CASE x WHEN, = and <.
// Left out: char(n) and numeric(p,s) beside other types (magmalake keeps
// one padding and one scale per result, PostgreSQL one per value), and an
// unknown name read as regtype in an arm that is never taken (PostgreSQL
// reads the constant when it plans; magmalake only when it is used).
func corpusCommonTypes() []string {
	vals := []string{"1", "2.5", "'3'", "NULL", "3000000000", "1.5::float8", "'abc'", "true", "date '2024-01-01'",
		"timestamp '2024-01-01 10:00'", "timestamptz '2024-01-01 10:00+00'", "interval '1 day'", "1::int2",
		"'\\x41'::bytea", "array[1]", "pg_typeof(1)", "23::oid"}
	var out []string
	for _, a := range vals {
		for _, b := range vals {
			out = append(out, "CASE "+a+" WHEN "+b+" THEN 'y' ELSE 'n' END", a+" IN ("+b+", "+a+")", a+" = "+b,
				a+" < "+b, a+" IS DISTINCT FROM "+b)
			if !(isUnknownName(a) || isUnknownName(b)) {
				out = append(out, "coalesce("+a+", "+b+")", "CASE WHEN random() < 2 THEN "+a+" ELSE "+b+" END")
			}
			out = append(out, "nullif("+a+", "+b+")")
		}
	}
	// One string type throughout keeps it, char(n)'s padding too.
	for _, t := range []string{"char(3)", "varchar(3)", "char(1)", "bpchar", "text"} {
		x, y := "'y'::"+t, "NULL::"+t
		out = append(out, "coalesce("+y+", "+x+")", "CASE WHEN random() < 2 THEN "+x+" ELSE "+y+" END",
			"greatest("+x+", 'a'::"+t+")", "least("+x+", "+x+")", "array["+x+", "+x+"]", "pg_typeof(coalesce("+x+", "+x+"))")
	}
	return out
}

// isUnknownName is a literal that names no type.
func isUnknownName(s string) bool { return s == "'abc'" }

// corpusSignedLiterals negates numeric literals: the grammar folds the
// minus into the literal, whose value decides its type.
func corpusSignedLiterals() []string {
	var out []string
	for _, x := range []string{"-2147483648", "- 2147483648", "-(2147483648)", "-(-2147483648)", "- -2147483648",
		"-(-(2147483648))", "- - - 2147483648", "-(+2147483648)", "-2147483649", "-32768", "-1", "-0", "-1.5",
		"-9223372036854775808", "-9223372036854775809", "-(9223372036854775808)", "-2147483648::int",
		"-2147483648::bigint", "-(2147483648::bigint)", "-(2147483647+1)", "-'1'", "-(1+2)"} {
		out = append(out, x, "pg_typeof("+x+")", x+" - 1", x+" / -1", "abs("+x+")", x+" * 2")
	}
	return out
}

// corpusDateTimeEdges combines dates, timestamps and intervals at their
// edges: infinities, int32's lowest day and month counts, a date beside a
// timestamp.
func corpusDateTimeEdges() []string {
	vals := []string{"date '2024-02-29'", "date '2024-01-31'", "timestamp '2024-01-31 10:00:00.5'",
		"timestamptz '2024-03-10 02:30+00'", "interval '1 month'", "interval '1 mon -1 day'", "interval '-1 day 2 hours'",
		"interval '1.5 years'", "interval '25 hours'", "interval '0.5 month'", "interval '1 day 0.000001 sec'", "5", "1.5",
		"interval '-2147483648 days'", "interval '2147483647 days'", "interval '-2147483648 months'", "'infinity'::timestamp",
		"'infinity'::date", "'-infinity'::date", "'-infinity'::timestamptz"}
	var out []string
	for _, op := range []string{"+", "-", "*", "/", "<", "=", ">"} {
		for _, a := range vals {
			for _, b := range vals {
				out = append(out, a+" "+op+" "+b)
			}
		}
	}
	for _, v := range vals {
		out = append(out, "-"+v, v+"::text", v+"::timestamp", v+"::date",
			v+" IN (timestamp 'infinity', date '2024-01-31')", "greatest("+v+", timestamp '2024-01-01')")
		// (Not interval::time, nor numeric Infinity: magmalake has neither.)
		if !strings.HasPrefix(v, "interval") {
			out = append(out, v+"::time")
		}
		if !strings.Contains(v, "infinity") {
			out = append(out, "extract(epoch from "+v+")")
		}
	}
	return out
}

// corpusArrayOutput prints arrays of every element type (char(n) padded,
// booleans as t and f in array_to_string) and reads their elements back.
// (Not char(n) beside other lengths: PostgreSQL keeps each value's padding.)
func corpusArrayOutput() []string {
	arrays := []string{"array['a b', 'NULL', '', 'x\"y', E'a\\\\b', 'null', ' ', '{', 'a,b']", "array[NULL::text]",
		"array[1.50, NULL]", "array[true,false]", "array[NULL::bool, true]", "array['2024-01-01'::date]",
		"array[timestamp '2024-01-01 10:00']", "array[1e20::float8, 'NaN', '-0']", "array['\\x01'::bytea]",
		"array[interval '1 day']", "'{\"a b\",NULL,\"\"}'::text[]", "'{ 1 , 2 }'::int[]", "'{}'::text[]",
		"array['x'::char(3)]", "array['ab '::char(4), 'c'::char(4)]", "array[''::char(2)]", "array['日本'::char(4)]",
		"'{a,b}'::char(3)[]", "array['x'::char(3)]::char(5)[]", "(array['x'::char(3)] || 'y'::char(3))"}
	var out []string
	for _, a := range arrays {
		for _, f := range []string{"%s", "%s::text", "array_to_string(%s, ',')", "array_to_string(%s, ',', '*')",
			"cardinality(%s)", "%s = %s", "(%s)[1]", "(%s)[2]", "concat(%s)", "format('%%s', %s)", "quote_literal(%s)",
			"json_build_object('a', %s)", "pg_typeof(%s)", "(%s)[1] || '|'"} {
			out = append(out, sprintfAll(f, a))
		}
	}
	return out
}

// corpusLikeEscapes matches patterns that end with their escape character:
// an error only when the match gets there with text left.
func corpusLikeEscapes() []string {
	var out []string
	texts := []string{"'abc'", "'a'", "''", "'ab'", "'aab'", "'ba'", "'a\\'", "'A'", "NULL"}
	pats := []string{"'a\\'", "'%\\'", "'a%\\'", "'%a\\'", "'\\'", "'_\\'", "'ab#' ESCAPE '#'", "'%#' ESCAPE '#'",
		"'a%' ESCAPE ''", "'a\\%'", "'a\\_'"}
	for _, t := range texts {
		for _, p := range pats {
			out = append(out, t+" LIKE "+p, t+" NOT LIKE "+p, t+" ILIKE "+p)
		}
	}
	return out
}

// corpusFloatInput reads floats at the edges of their types: a value too
// small to tell from zero is out of range, a subnormal is not.
func corpusFloatInput() []string {
	var out []string
	for _, x := range []string{"'1e-46'", "'1e-45'", "'-1e-46'", "'7e-46'", "'8e-46'", "'1e-400'", "'1e-320'", "'0e-500'",
		"'0.0'", "'1e39'", "'1e309'", "'-0'", "'0.000e-999'", "' 1e-46 '"} {
		out = append(out, x+"::real", x+"::float8")
	}
	return out
}

// corpusQuantified is IN and op ANY|ALL (ARRAY[...]) over values of several
// types: the array is typed before the operator is found, one IN item is a
// plain comparison, several take their common type.
func corpusQuantified() []string {
	vals := []string{"1", "1.0", "1.5", "'1'", "NULL", "2::int8", "1::int2", "1.0::float8", "'a'", "'a'::char(3)",
		"'a '::varchar", "true", "date '2024-01-01'", "timestamp '2024-01-01'"}
	var out []string
	for _, a := range vals {
		for _, b := range vals {
			out = append(out, a+" IN ("+b+")", a+" NOT IN ("+b+")", a+" IN ("+b+", "+b+")", a+" NOT IN ("+b+", NULL)",
				a+" = ANY(array["+b+"])", a+" <> ALL(array["+b+", "+b+"])", a+" < ANY(array["+b+", NULL])",
				a+" >= ALL(array["+b+"])")
		}
	}
	return out
}

// sprintfAll puts r in every %s of f (%% is a per cent sign).
func sprintfAll(f, r string) string {
	var out []byte
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == '%' && i+1 < len(f) && f[i+1] == 's':
			out = append(out, r...)
			i++
		case f[i] == '%' && i+1 < len(f) && f[i+1] == '%':
			out = append(out, '%')
			i++
		default:
			out = append(out, f[i])
		}
	}
	return string(out)
}

// corpusTimeArith combines times with times, intervals, dates, timestamps,
// numbers and untyped literals: PostgreSQL's time operators, and the ones
// its implicit cast of time to interval makes (timestamp - time, time *
// 2); then the casts between time and interval, and dates past the last
// timestamp (converted: 22008; compared: after every finite timestamp).
func corpusTimeArith() []string {
	times := []string{"time '03:04:05.5'", "time '24:00'", "time '00:00:00.000001'", "time '23:59:59'", "NULL::time"}
	others := []string{"time '01:30'", "interval '25 hours'", "interval '-1 day -3 hours'", "interval '1 mon 2 days 03:00'",
		"date '2024-02-29'", "'infinity'::date", "timestamp '2024-01-31 10:00:00.5'", "timestamptz '2024-03-10 02:30+00'",
		"'-infinity'::timestamp", "2", "1.5", "'01:00'", "NULL::interval"}
	var out []string
	for _, op := range []string{"+", "-", "*", "/", "<", "="} {
		for _, a := range times {
			for _, b := range others {
				out = append(out, a+" "+op+" "+b, b+" "+op+" "+a)
			}
		}
	}
	for _, v := range append(times, "interval '-1 day -3 hours 5 minutes'", "interval '49 hours'", "interval '1 year 2 hours'") {
		out = append(out, v+"::interval", v+"::time", "pg_typeof("+v+" + interval '1 hour')")
	}
	// Casts to a precision round as PostgreSQL's typmods do: half away
	// from zero counted from 2000-01-01 for timestamps, half up for times.
	stamps := []string{"'1990-01-01 00:00:00.5'", "'2024-01-01 00:00:00.5'", "'1969-12-31 23:59:59.95'",
		"'2024-02-29 23:59:59.999999'", "'1999-12-31 23:59:59.4999995'", "'infinity'", "'-infinity'"}
	clocks := []string{"'23:59:59.9'", "'10:00:00.125'", "'00:00:00.0000005'", "'12:34:56.789012'"}
	for _, p := range []string{"0", "1", "2", "3", "5", "6", "7"} {
		for _, v := range stamps {
			out = append(out, v+"::timestamp("+p+")", "CAST("+v+" AS timestamp("+p+") with time zone)", "("+v+"::timestamp)::timestamp("+p+")")
		}
		for _, v := range clocks {
			out = append(out, v+"::time("+p+")", "(time "+v+")::time("+p+")", "(time "+v+" + interval '1 hour')::time("+p+")")
		}
		out = append(out, "date '2024-02-29'::timestamp("+p+")", "(timestamp '2024-01-01 10:00:00.555555')::time("+p+")")
	}
	for _, d := range []string{"date '300000-01-01'", "date '2024-02-29'"} {
		out = append(out, d+"::timestamp", d+"::timestamptz", d+" + interval '1 hour'", d+" - time '01:00'", d+" + time '01:00'",
			d+" < timestamp '2024-01-01'", d+" > timestamptz 'infinity'", d+" = timestamp '2024-02-29'", "timestamp '2024-01-01' - "+d)
	}
	return out
}

// corpusMakeDateTime builds dates, times and timestamps from fields at
// their edges: BC years and year 0, the last day of February, the ends of
// the date range, hour 24 and second 60, seconds that round across a
// limit, NaN and infinite seconds, untyped and mistyped arguments.
func corpusMakeDateTime() []string {
	dates := [][3]string{{"2024", "2", "29"}, {"2023", "2", "29"}, {"0", "1", "1"}, {"-1", "2", "29"}, {"-44", "3", "15"},
		{"2024", "13", "1"}, {"2024", "0", "10"}, {"2024", "4", "31"}, {"-4713", "11", "24"}, {"-4714", "12", "31"},
		{"5874897", "12", "31"}, {"5874898", "1", "1"}, {"'2024'", "'1'", "'1'"}, {"NULL", "1", "1"}}
	clocks := [][3]string{{"0", "0", "0"}, {"23", "59", "59.9999999"}, {"23", "59", "60"}, {"24", "0", "0"},
		{"24", "0", "0.000001"}, {"25", "0", "0"}, {"-1", "0", "0"}, {"1", "60", "0"}, {"1", "2", "-0.0000004"},
		{"1", "2", "-0.000001"}, {"1", "2", "60.0000004"}, {"1", "2", "'NaN'"}, {"1", "2", "'Infinity'"},
		{"1", "2", "1e20"}, {"1", "2", "12.3456789"}, {"1", "2", "3::numeric"}, {"1::smallint", "2", "3.25::float4"},
		{"1", "2", "NULL"}}
	var out []string
	for _, d := range dates {
		out = append(out, "make_date("+strings.Join(d[:], ", ")+")")
	}
	for _, c := range clocks {
		out = append(out, "make_time("+strings.Join(c[:], ", ")+")")
	}
	for _, d := range dates[:9] {
		for _, c := range clocks {
			out = append(out, "make_timestamp("+strings.Join(d[:], ", ")+", "+strings.Join(c[:], ", ")+")")
		}
	}
	return append(out, "make_date(2024::bigint, 1, 1)", "make_date(2024, 1)", "make_time(1, 2, 'x')", "make_time(1, 2, true)",
		"pg_typeof(make_timestamp(2024, 1, 1, 0, 0, 0))", "make_timestamp(1999, 12, 31, 24, 0, 0)")
}
