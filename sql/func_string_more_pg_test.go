package sql

// The string and general functions: every one-argument function on a pool
// of texts (NULLs, empty strings, multibyte UTF-8, quotes, backslashes,
// keywords) and of values of other types, the ones with counts and
// positions on a cross of texts and integers (negative, zero, huge,
// untyped, of the wrong type).

var (
	strTexts = []string{"'abc'", "''", "NULL", "NULL::text", "'ÄbC dEf'", "'a-b-c'", "'héllo wörld'", "'  x  '",
		"'x''y\\z'", "'日本語'", "'select'", "'Foo_1'", "'1abc'", "'a\"b'", "E'tab\\there'", "'x'::varchar(5)",
		"'hello world-foo_bar'", "'ab,cd,,ef'", "'aaa'", "'ǅungla'", "'mIxEd CaSe 42x'", "'_x9'", "'ÿ'"}
	strOthers = []string{"123", "-7", "1.5", "2.5::float8", "true", "date '2024-02-29'", "timestamp '2024-01-02 03:04:05.5'",
		"'\\x0102'::bytea", "9000000000", "(-5)::smallint", "0.0"}
	strInts = []string{"0", "1", "-1", "2", "3", "5", "100", "-3", "NULL", "2147483647", "'2'", "'x'", "1.5",
		"(-2147483647 - 1)", "9000000000", "(2)::smallint", "NULL::int"}
	strFills = []string{"'ab'", "''", "'é'", "NULL", "' '", "'xyz'"}
)

func corpusStringMore() []string {
	var out []string
	one := append(append([]string{}, strTexts...), strOthers...)
	for _, f := range []string{"lower", "upper", "length", "char_length", "character_length", "octet_length",
		"bit_length", "btrim", "ltrim", "rtrim", "quote_ident", "quote_literal", "quote_nullable", "reverse",
		"md5", "initcap", "ascii", "num_nulls", "num_nonnulls", "concat", "sha224", "sha256", "sha384", "sha512"} {
		out = append(out, cross(f, one)...)
	}
	two := []string{"'a'", "''", "NULL", "'é'", "'-'", "','", "'abc'", "' x'", "'b'", "'日'"}
	for _, f := range []string{"strpos", "starts_with", "btrim", "ltrim", "rtrim", "concat_ws", "concat"} {
		out = append(out, cross(f, strTexts, two)...)
	}
	for _, f := range []string{"repeat", "left", "right", "lpad", "rpad", "substr"} {
		for _, e := range cross(f, strTexts, strInts) {
			// PostgreSQL loops 2^31 times to repeat an empty string (20 s).
			if e != "repeat('', 2147483647)" {
				out = append(out, e)
			}
		}
	}
	out = append(out, cross("lpad", []string{"'abc'", "'日本語'", "''", "NULL"}, []string{"0", "2", "5", "8", "-1"}, strFills)...)
	out = append(out, cross("rpad", []string{"'abc'", "'日本語'", "''", "NULL"}, []string{"0", "2", "5", "8", "-1"}, strFills)...)
	out = append(out, cross("split_part", strTexts, []string{"','", "'-'", "''", "' '", "'o'", "NULL", "'bc'"}, []string{"1", "2", "-1", "-2", "0", "3", "NULL", "100"})...)
	out = append(out, cross("replace", strTexts, []string{"'a'", "''", "'l'", "NULL", "'ö'"}, []string{"'X'", "''", "NULL", "'日'"})...)
	out = append(out, cross("substr", strTexts, []string{"1", "0", "-2", "3"}, []string{"2", "0", "-1", "100", "NULL"})...)
	out = append(out, cross("translate", strTexts, []string{"'abc'", "'é'", "''"}, []string{"'xy'", "''", "'日本'"})...)
	out = append(out, cross("chr", []string{"65", "0", "-1", "233", "26085", "1114111", "1114112", "55296", "57343",
		"'66'", "NULL", "2147483647", "1.5", "9000000000", "(97)::smallint", "127", "128"})...)
	out = append(out, cross("to_hex", []string{"0", "255", "-1", "2147483647", "(-2147483647 - 1)", "9000000000",
		"(-1)::bigint", "(-9223372036854775807 - 1)", "(-1)::smallint", "'10'", "NULL", "NULL::int", "1.5", "'x'::text", "4096::bigint"})...)
	out = append(out, cross("num_nulls", strTexts, []string{"NULL", "1", "'x'"})...)
	out = append(out, cross("num_nonnulls", strTexts, []string{"NULL", "1", "NULL::int"})...)
	out = append(out, "num_nulls()", "num_nonnulls()", "num_nulls(NULL)", "to_hex()", "to_hex(1, 2)", "bit_length()",
		"quote_nullable()", "quote_nullable(NULL)", "quote_nullable(NULL::int)", "quote_nullable(12.50)",
		"quote_nullable(E'a\\\\b''c')", "quote_nullable(true)", "quote_nullable(date '2024-01-01')",
		"concat()", "concat_ws(',')", "concat_ws(NULL, 'a')", "clock_timestamp() >= now()",
		"length(timeofday()) > 20", "timeofday() LIKE '% UTC'",
		"now() = current_timestamp", "now() = transaction_timestamp()",
		"current_date = now()::date", "localtimestamp = now()::timestamp", "extract(year from now()) > 2000",
		"to_char(now(), 'YYYY') = extract(year from current_date)::text", "date_trunc('day', now()) <= now()", "localtime IS NOT NULL", "localtime(2) IS NOT NULL",
		"current_timestamp(-1)", "localtime(-1)", "current_timestamp(7) = now()", "current_timestamp(6) = now()",
		"localtime(6) = localtimestamp::time", "localtime = localtimestamp::time", "to_char(current_timestamp(0), 'US')",
		"to_char(localtimestamp(2), 'FF6') LIKE '%0000'", "extract(microsecond from localtime(1)) % 100000",
		"repeat('ab', 600000000)", "repeat('abcd', 268435455)")
	for _, f := range []string{"format('%s|%s', %s, %s)", "format('%I.%L', %s, %s)", "format('[%-6s][%6s]', %s, %s)",
		"format('%2$s %1$s', %s, %s)"} {
		for _, a := range strTexts[:12] {
			for _, b := range []string{"1", "NULL", "'x'", "true", "1.50"} {
				out = append(out, sprintfArgs(f, a, b))
			}
		}
	}
	return out
}

// sprintfArgs fills a format() call's two %s placeholders after the
// pattern (the pattern's own % signs are left alone).
func sprintfArgs(f, a, b string) string {
	i := len("format('") + indexAfterQuote(f[len("format('"):])
	rest := f[i:]
	rest = replaceFirst(rest, "%s", a)
	rest = replaceFirst(rest, "%s", b)
	return f[:i] + rest
}

func indexAfterQuote(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			return i + 1
		}
	}
	return len(s)
}

func replaceFirst(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	return s
}
