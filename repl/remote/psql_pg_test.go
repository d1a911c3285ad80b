package remote_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// psqlScript covers what a session hands the shell: values of many types
// and NULLs, numerics (NaN too), dates and timestamptz, arrays, values
// whose text a setting changes (TimeZone, DateStyle, IntervalStyle,
// bytea_output, extra_float_digits), an error
// with a caret, one at the end of input, NOTICE and WARNING (also raised
// while a statement runs), CONTEXT, a failed block, \copy to and from a
// file and stdout, COPY FROM STDIN data in the script, \x, \pset formats
// and \conninfo. %DIR% is a scratch directory.
const psqlScript = `select 1 as one, 'x'::text as t, null::int as n, true as b, false as f;
select 12345.678::numeric(10,3) as num, 1.50::numeric as free, 'NaN'::numeric as nan, 2.5::float8 as f8,
       0.1::float4 as f4, 9223372036854775807 as big, (-32768)::int2 as small, 1e100::float8 as huge;
select date '2024-02-29' as d, timestamp '2024-01-02 03:04:05.5' as ts, timestamptz '2024-01-02 03:04:05+02' as tstz,
       time '12:34:56' as tm, interval '1 year 2 days 03:04:05' as iv, date 'infinity' as inf;
select array[1,null,3] as ints, array['a b', null, 'c"d'] as texts, '{}'::int[] as empty,
       uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' as u, '\x0102ff'::bytea as bin, '{"a": [1, 2]}'::json as j,
       '{"b": 1}'::jsonb as jb;
select n from (values (1.5::numeric), ('NaN'), (-2), (null)) v(n);
set timezone = 'Europe/Paris';
select timestamptz '2024-07-01 12:00:00+00' as paris, date '2024-07-01' as d;
reset timezone;
set bytea_output = escape;
select 'ab\001'::bytea as esc;
reset bytea_output;
set datestyle = 'SQL, DMY';
select date '2024-07-01' as d, timestamp '2024-07-01 12:00:00' as ts;
reset datestyle;
set extra_float_digits = 0;
select 1.2345678901234567::float8 as f, 123456789012345680000::float8 as big, 42::float8 as whole;
reset extra_float_digits;
set intervalstyle = 'iso_8601';
select interval '1 day 2 hours' as iv;
reset intervalstyle;
select 'ab'::char(5) as c5, 'xyz'::varchar(10) as vc, 'pg_class'::regclass as rc, 42::oid as o, '127.0.0.1'::inet as ip;
create temp table t (id int primary key, name text, price numeric(8,2), at timestamptz);
insert into t values (1, 'one', 1.50, '2024-01-01 00:00:00+00'), (2, null, null, null),
  (3, 'three', 300, '2024-06-30 12:00:00.25+00');
select * from t order by id;
update t set name = 'uno' where id = 1 returning id, name;
select id
  from nosuch;
select 1 +;
do $$ begin raise notice 'a notice with %', 42; raise warning 'careful'; end $$;
drop table if exists nosuch;
commit;
do $$ begin raise exception 'boom' using detail = 'the detail', hint = 'a hint'; end $$;
begin;
insert into t values (4, 'four', 4, '2024-12-24 18:00:00+00');
select count(*) from t;
select 1/0;
select 1;
rollback;
select count(*) from t;
\copy t to '%DIR%/t.csv' with (format csv, header)
create temp table t2 (like t);
\copy t2 from '%DIR%/t.csv' with (format csv, header)
select * from t2 order by id;
\copy t2 to stdout
\copy (select id, name from t2 order by id) to stdout with (format csv, header)
copy t2 from stdin;
5	five	5.00	\N
\.
copy t2 from stdin with (format csv);
6,six,x,
\.
copy (select id, name from t2 order by id) to stdout with (format csv);
\x
select * from t order by id;
\x off
\pset format unaligned
select * from t order by id;
\pset format csv
select id, name from t order by id;
\pset format html
select id, name from t where id = 1;
\pset format asciidoc
select id, name from t where id = 1;
\pset format aligned
\pset border 2
select id, name from t order by id;
\pset border 1
\pset null '(null)'
select null::text as nothing, 1 as one;
\pset tuples_only on
select id from t order by id;
\pset tuples_only off
\conninfo
select repeat('x', 3) as "Mixed Case", E'two\nlines' as multi;
`

// TestScriptMatchesPsql: the shell on a remote session prints, on stdout
// and stderr, what psql 15 prints for the same script against the same
// PostgreSQL, byte for byte (psql's "psql:<stdin>:N: " prefixes aside).
func TestScriptMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	run := func(dir string) string { return strings.ReplaceAll(psqlScript, "%DIR%", dir) }
	wantDir, gotDir := t.TempDir(), t.TempDir()
	want, wantErr := runPsql(t, pg, run(wantDir))
	sh, o := remoteShell(connect(t, pgSettings(pg)))
	sh.StopOnError = false
	if err := sh.RunScript(context.Background(), strings.NewReader(run(gotDir))); err != nil {
		t.Fatalf("RunScript: %v", err) // failed statements go on, as psql without ON_ERROR_STOP
	}
	compare(t, "stdout", strings.ReplaceAll(o.out.String(), gotDir, wantDir), want)
	compare(t, "stderr", o.err.String(), wantErr)
	if !strings.Contains(want, "NaN") || !strings.Contains(wantErr, "LINE 2:") || !strings.Contains(wantErr, "WARNING:  careful") {
		t.Fatalf("psql's output lacks what the script is about:\n%s\n%s", want, wantErr)
	}
	if got, want := testenv.ReadFile(t, filepath.Join(gotDir, "t.csv")), testenv.ReadFile(t, filepath.Join(wantDir, "t.csv")); got != want {
		t.Errorf("\\copy to a file wrote\n%s\nwant\n%s", got, want)
	}
}
