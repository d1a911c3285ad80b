package sql

import (
	"slices"
	"testing"
)

func TestShapeInsert(t *testing.T) {
	for _, c := range []struct {
		q, text string
		args    []string
	}{
		{"INSERT INTO t VALUES (1, 'a''b', '2026-01-01T00:00:00'::timestamp)",
			"INSERT INTO t VALUES ($1::integer, $2, $3::timestamp)", []string{"1", "a'b", "2026-01-01T00:00:00"}},
		{"insert into s.t (a, \"B\") values (-2147483648, 2147483648), (+1.5, 9223372036854775808);",
			"insert into s.t (a, \"B\") values ($1::integer, $2::bigint), ($3::numeric, $4::numeric);", []string{"-2147483648", "2147483648", "1.5", "9223372036854775808"}},
		{"INSERT INTO t VALUES (NULL, true, DEFAULT, E'x\\ty', $$d$$, 1e3, - 7, 'x'::double precision)",
			"INSERT INTO t VALUES (NULL, true, DEFAULT, $1, $2, $3::numeric, $4::integer, $5::double precision)", []string{"x\ty", "d", "1e3", "-7", "x"}},
	} {
		sh, ok := ShapeInsert(c.q)
		if !ok || sh.Text != c.text || !slices.Equal(sh.Args, c.args) {
			t.Errorf("ShapeInsert(%q) = %q %q %v; want %q %q", c.q, sh.Text, sh.Args, ok, c.text, c.args)
		}
	}
	for _, q := range []string{
		"INSERT INTO t VALUES (date '2024-01-01')",           // typed literal
		"INSERT INTO t VALUES (1 + 2)",                       // expression
		"INSERT INTO t VALUES (lower('A'))",                  // function
		"INSERT INTO t VALUES ('1'::numeric(10, 2))",         // type modifier
		"INSERT INTO t VALUES (B'101')",                      // bit string
		"INSERT INTO t VALUES (U&'d\\0061t')",                // Unicode escapes
		"INSERT INTO t VALUES ($1)",                          // a parameter
		"INSERT INTO t VALUES (1) RETURNING *",               // RETURNING
		"INSERT INTO t SELECT 1",                             // a query
		"INSERT INTO t VALUES (NULL)",                        // no literal
		"INSERT INTO t VALUES (ARRAY[1])",                    // array
		"INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)", // two statements
		"UPDATE t SET a = 1",
	} {
		if sh, ok := ShapeInsert(q); ok {
			t.Errorf("ShapeInsert(%q) shaped it: %q", q, sh.Text)
		}
	}
}
