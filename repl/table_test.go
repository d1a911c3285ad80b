package repl

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/sql"
)

// formatQueries exercise the aligned and expanded layouts: widths from
// headers and from values, numeric right alignment, NULL, multi-line values
// and headers, tabs, control characters, wide and combining characters.
var formatQueries = []struct{ name, query string }{
	{"one value", `select 1`},
	{"mixed", `select 1 as id, 'Wolverine' as alias, true as active`},
	{"nulls", `select * from (values (1, 'a', null::text), (22, null, 'xyz'), (null, 'bb', '')) v(a, b, c)`},
	{"no rows", `select 1 as a, 'x' as b where false`},
	{"many rows", `select g, repeat('x', g) as r, g * 1.5 as half from generate_series(1, 12) g`},
	{"numbers", `select -3::int2 as s, 2.25::float8 as f, 12345678901::int8 as big, 1.50::numeric(5,2) as n, 26::oid as o`},
	{"long header", `select 'a' as "a very long header", 7 as "another long one"`},
	{"multi-line last column", `select 1 as id, E'first\nsecond line\nthird' as txt`},
	{"multi-line middle column", `select E'a\nbbb' as x, 5 as n, E'p\nq\nr' as y`},
	{"multi-line many columns", `select E'x\ny' as a, E'1\n2\n3' as b, 'z' as c union all select 'w', 'v', E'u\nt'`},
	{"multi-line header", `select 1 as "two
lines", 'v' as "b"`},
	{"tabs and control", `select E'a\tb' as t, E'x\ry' as cr, E'bell\x07' as ctl, E'\tlead' as lead`},
	{"unicode", `select '日本語' as jp, 'héllo' as accent, E'e\u0301' as combining, 'ok' as "列"`},
	{"empty strings", `select '' as a, '' as b`},
}

// pgTable runs query on real PostgreSQL and returns its text result as the
// shell would hold it.
func pgTable(t *testing.T, conn *pgx.Conn, query string) *table {
	t.Helper()
	results, e := pgtest.Exec(t, conn, query)
	if e != nil {
		t.Fatalf("%s: %s", query, e.Message)
	}
	res := results[len(results)-1]
	tb := &table{footer: true}
	for _, fd := range res.FieldDescriptions {
		tb.headers = append(tb.headers, fd.Name)
		tb.right = append(tb.right, rightAligned(sql.TypeFromOID(fd.DataTypeOID)))
	}
	for _, row := range res.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = string(v) // NULL (nil) prints as the empty string
		}
		tb.rows = append(tb.rows, vals)
	}
	return tb
}

func TestAlignedMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	conn := pg.connect(t)
	for _, q := range formatQueries {
		t.Run(q.name, func(t *testing.T) {
			want, stderr := pg.psql(t, "", "-c", q.query)
			if stderr != "" {
				t.Fatalf("psql: %s", stderr)
			}
			var got strings.Builder
			if err := writeAligned(&got, pgTable(t, conn, q.query)); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("aligned output differs from psql\n got:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

func TestExpandedMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	conn := pg.connect(t)
	for _, q := range formatQueries {
		t.Run(q.name, func(t *testing.T) {
			want, stderr := pg.psql(t, "", "-x", "-c", q.query)
			if stderr != "" {
				t.Fatalf("psql: %s", stderr)
			}
			var got strings.Builder
			if err := writeExpanded(&got, pgTable(t, conn, q.query)); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("expanded output differs from psql\n got:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

func TestTitleMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	conn := pg.connect(t)
	for _, q := range []struct{ title, query string }{
		{"List of relations", `select 'xmen' as "Schema", 'characters' as "Name", 'table' as "Type", 'postgres' as "Owner"`},
		{"A title much wider than the table", `select 1 as a`},
	} {
		for _, expanded := range []bool{false, true} {
			args := []string{"-P", "title=" + q.title, "-c", q.query}
			if expanded {
				args = append([]string{"-x"}, args...)
			}
			want, _ := pg.psql(t, "", args...)
			tb := pgTable(t, conn, q.query)
			tb.title = q.title
			var got strings.Builder
			write := writeAligned
			if expanded {
				write = writeExpanded
			}
			if err := write(&got, tb); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("title %q expanded=%v\n got:\n%s\nwant:\n%s", q.title, expanded, got.String(), want)
			}
		}
	}
}
