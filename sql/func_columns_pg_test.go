package sql

import (
	"math/rand"
	"testing"

	"github.com/jackc/pgx/v5"
)

// checkFunctionsOverColumns evaluates the functions over a table's
// columns, row by row against PostgreSQL: NULLs and a different pattern or
// unit per row go through the per-evaluation caches.
func checkFunctionsOverColumns(t *testing.T, conn *pgx.Conn) {
	rng := rand.New(rand.NewSource(*diffSeed + 2000))
	sc := diffScope()
	rows := diffRows(rng, 40)
	loadDiffTable(t, conn, sc, rows)
	batch := buildBatch(t, sc, rows)
	defer batch.Release()
	for _, x := range []genExpr{
		{"s ~ 'a.'", "s REGEXP 'a.'"},
		{"s !~ '^[[:upper:]]'", "s NOT REGEXP '^[[:upper:]]'"},
		{"s ~* 'AB'", "__iregex(s, 'AB')"},
		{"'abcab' ~ s", "'abcab' REGEXP s"},
		{"regexp_replace(s, '[ab]', 'X', 'g')", "regexp_replace(s, '[ab]', 'X', 'g')"},
		{"regexp_replace('zabcab', s, '<\\&>', 'g')", "regexp_replace('zabcab', s, '<\\&>', 'g')"},
		{"regexp_count(s, '.')", "regexp_count(s, '.')"},
		{"(regexp_match(s, '(.)(.)'))[2]", "__subscript(regexp_match(s, '(.)(.)'), 2)"},
		{"translate(s, 'ab', 'B')", "translate(s, 'ab', 'B')"},
		{"position('b' IN s)", "position('b' IN s)"},
		{"extract(year from d)", "__extract('year', d)"},
		{"extract(epoch from ts)", "__extract('epoch', ts)"},
		{"extract(isodow from ts)", "__extract('isodow', ts)"},
		{"date_part('doy', d)", "date_part('doy', d)"},
		{"date_trunc('month', ts)", "date_trunc('month', ts)"},
		{"date_trunc('week', d)", "date_trunc('week', d)"},
		{"date_trunc(CASE WHEN i > 0 THEN 'hour' ELSE 'year' END, ts)", "date_trunc(CASE WHEN i > 0 THEN 'hour' ELSE 'year' END, ts)"},
		{"greatest(i, b, 0)", "greatest(i, b, 0)"},
		{"least(n, f)", "least(n, f)"},
		{"greatest(d, ts)", "greatest(d, ts)"},
		{"sqrt(abs(n))", "sqrt(abs(n))"},
		{"power(f, 2)", "power(f, 2)"},
		{"ln(abs(b) + 1)", "ln(abs(b) + 1)"},
		{"sign(n) * ceil(n) + floor(f)", "sign(n) * ceil(n) + floor(f)"},
		{"trunc(n, 1)", "trunc(n, 1)"},
		{"exp(i)", "exp(i)"},
		{"log(n + 100)", "log(n + 100)"},
		{"CASE WHEN NULL THEN 1 ELSE 2 END", "CASE WHEN NULL THEN 1 ELSE 2 END"},
		same("to_char(ts, 'FMDay DDth Month YYYY HH12:MI:SS.US AM')"),
		same("to_char(d, 'IYYY-IW-ID CC J Q RM')"),
		same("to_char(n, 'FM999,990.00PR')"),
		same("to_char(f, '9.999EEEE')"),
		same("to_char(i, 'S9999th')"),
		same("to_char(b, CASE WHEN i > 0 THEN 'RN' ELSE '0000' END)"),
		same("lpad(s, i, 'xy')"),
		same("to_hex(b)"),
		same("quote_nullable(s)"),
		same("num_nulls(s, i, n)"),
		{"array[i, b] || n", "__array(i, b) || n"},
		{"array_to_string(array[bo, NULL], ',', '-')", "array_to_string(__array(bo, NULL), ',', '-')"},
		same("json_build_object('s', s, 'ts', ts, 'f', f, 'n', n)"),
		same("CASE s WHEN 'a' THEN 1 WHEN 'ab' THEN 2 END"),
		same("d - ts"),
		same("s LIKE 'a\\'"),
		same("format('%s|%s', pg_typeof(s), s)"),
		{"s::char(3)::bytea", "__cast(__cast(s, 'char(3)'), 'bytea')"},
		same("nullif(s, 'a')"),
	} {
		checkScalar(t, conn, sc, batch, x)
	}
	// WHERE NULL is boolean NULL: valid, matching nothing (normalised forms).
	for _, w := range []genExpr{same("NULL"), same("NOT NULL"), same("NULL AND bo"), same("NULL OR i > 0"), {"s ~ NULL", "s REGEXP NULL"}} {
		e, err := bindConditionAST(parseExprNode(t, w.my), sc, nil, "WHERE")
		if err != nil {
			t.Errorf("WHERE %s: %v", w.pg, err)
			continue
		}
		pgRows, code := pgRun(t, conn, "SELECT id FROM t WHERE "+w.pg)
		got, err := Match(t.Context(), e, batch, nil)
		if err != nil || code != "" {
			t.Errorf("WHERE %s: ours %v, PostgreSQL %q", w.pg, err, code)
			continue
		}
		n := 0
		for _, ok := range got {
			if ok {
				n++
			}
		}
		if n != len(pgRows) {
			t.Errorf("WHERE %s: %d rows, PostgreSQL %d", w.pg, n, len(pgRows))
		}
	}
}
