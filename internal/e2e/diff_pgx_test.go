package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgxDiffModes are the ways pgx talks to a server: the simple protocol
// (values inlined, text results), the default extended mode (binary
// results for every type pgx knows), the same with text results asked
// for, and the modes that send parameters without a prepared description.
var pgxDiffModes = []struct {
	name   string
	mode   pgx.QueryExecMode
	format int16 // result format asked for; -1 leaves it to pgx
}{
	{"simple", pgx.QueryExecModeSimpleProtocol, -1},
	{"extended-binary", pgx.QueryExecModeCacheStatement, -1},
	{"extended-text", pgx.QueryExecModeCacheStatement, pgx.TextFormatCode},
	{"describe-exec", pgx.QueryExecModeDescribeExec, -1},
	{"exec", pgx.QueryExecModeExec, -1},
}

// TestDiffPgx runs one pgx program (typed parameters of every stored type
// and arrays, written, read back as Values and in WHERE and the select
// list) in each mode on magmalake and on PostgreSQL 15.
func TestDiffPgx(t *testing.T) {
	ml, pg := diffTargets(t)
	for _, m := range pgxDiffModes {
		t.Run(m.name, func(t *testing.T) {
			table := "pgx_diff_" + strings.ReplaceAll(m.name, "-", "_")
			run := func(d diffTarget) string {
				cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s/e2e?sslmode=disable", d.User, d.Addr()))
				if err != nil {
					t.Fatal(err)
				}
				cfg.DefaultQueryExecMode = m.mode
				conn, err := pgx.ConnectConfig(context.Background(), cfg)
				if err != nil {
					t.Fatalf("%s: %v", d.Name, err)
				}
				defer conn.Close(context.Background())
				p := &pgxProgram{t: t, conn: conn, table: table}
				if m.format >= 0 {
					p.opts = []any{pgx.QueryResultFormats{m.format}}
				}
				p.run()
				return p.out.String()
			}
			want := run(pg)
			compareOutputs(t, run(ml), want)
		})
	}
}

// pgxProgram is the script; out is its transcript.
type pgxProgram struct {
	t     *testing.T
	conn  *pgx.Conn
	table string
	opts  []any // leading Query arguments (result formats)
	out   strings.Builder
}

func (p *pgxProgram) printf(format string, args ...any) { fmt.Fprintf(&p.out, format+"\n", args...) }

// query runs q and prints every row's Values with their Go types, or the
// SQLSTATE it fails with.
func (p *pgxProgram) query(what, q string, args ...any) {
	rows, err := p.conn.Query(context.Background(), q, append(append([]any{}, p.opts...), args...)...)
	if err == nil {
		var fields []string
		for _, f := range rows.FieldDescriptions() {
			fields = append(fields, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
		}
		p.printf("%s fields %s", what, strings.Join(fields, " "))
		n := 0
		for rows.Next() {
			n++
			vals, err := rows.Values()
			if err != nil {
				p.printf("%s row %d values error %v", what, n, err)
				continue
			}
			for i, v := range vals {
				p.printf("%s row %d %s %s", what, n, rows.FieldDescriptions()[i].Name, pgxShow(v))
			}
		}
		err = rows.Err()
		if err == nil {
			p.printf("%s %s", what, rows.CommandTag())
			return
		}
	}
	p.printf("%s error %s", what, sqlState(err))
}

// pgxShow is a value as pgx hands it over: Go type and a canonical form.
func pgxShow(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case time.Time:
		return fmt.Sprintf("time.Time %s %s", x.Format("2006-01-02T15:04:05.999999999Z07:00"), x.Location())
	case pgtype.Numeric:
		s, err := x.Value()
		return fmt.Sprintf("pgtype.Numeric %v %v", s, err)
	case pgtype.Time:
		return fmt.Sprintf("pgtype.Time %d %v", x.Microseconds, x.Valid)
	case []byte:
		return fmt.Sprintf("[]byte %x", x)
	case [16]byte:
		return fmt.Sprintf("[16]byte %x", x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pgxShow(e)
		}
		return "[]any[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%T %v", v, v)
}

func num(s string) pgtype.Numeric {
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		panic(err)
	}
	return n
}

func (p *pgxProgram) run() {
	ctx := context.Background()
	t := p.table
	if _, err := p.conn.Exec(ctx, "CREATE TABLE "+t+` (id integer NOT NULL, i2 smallint, i8 bigint, f4 real,
		f8 double precision, n numeric(20,5), s text, v varchar(10), b boolean, d date, tm time, ts timestamp,
		tz timestamptz, bt bytea, u uuid)`); err != nil {
		p.t.Fatal(err)
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	plus2 := time.FixedZone("", 2*3600)
	rows := [][]any{
		{int32(1), int16(12), int64(1234567890123), float32(1.5), 2.25, num("123.45"), "hello", "varchar", true,
			day(2024, 4, 11), pgtype.Time{Microseconds: (10*3600 + 11*60 + 12) * 1e6, Valid: true},
			time.Date(2024, 4, 11, 10, 11, 12, 123456000, time.UTC), time.Date(2024, 4, 12, 1, 59, 59, 5e8, plus2),
			[]byte{0, 1, 0xfe, 0xff}, pgtype.UUID{Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, Valid: true}},
		{int32(2), int16(-32768), int64(-9223372036854775808), float32(-0.1), -1e300, num("-999999999999999.99999"),
			`it's "quoted" \ back`, "", false, day(1970, 1, 1), pgtype.Time{Valid: true},
			time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
			[]byte{}, pgtype.UUID{Valid: true}},
		{int32(3), int16(32767), int64(9223372036854775807), float32(3.4e38), 5e-324, num("0.00001"), "ünïcødé ✓",
			"ten chars!", true, day(2038, 1, 19), pgtype.Time{Microseconds: 86399999999, Valid: true},
			time.Date(2038, 1, 19, 3, 14, 7, 999999000, time.UTC), time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC),
			[]byte("bytes"), "ffffffff-ffff-ffff-ffff-ffffffffffff"},
		{int32(4), int16(0), int64(0), float32(0), 0.1, num("100000"), nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{int32(5), nil, nil, nil, nil, "3.141592653", "x", "y", "false", "2000-02-29", "12:34:56.7",
			"2000-02-29 12:34:56.7", "2000-02-29 12:34:56.7-05:30", []byte("*"), "123e4567-e89b-12d3-a456-426614174000"},
	}
	for _, r := range rows {
		tag, err := p.conn.Exec(ctx, "INSERT INTO "+t+" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)", r...)
		p.printf("insert %v %s %s", r[0], tag, sqlState(err))
	}
	p.query("typed", "SELECT id, i2, i8, f4, f8, n, s, v, b, d, tm, ts, tz, bt, u FROM "+t+" ORDER BY id")

	for _, w := range []struct {
		col string
		val any
	}{
		{"i2", int16(12)}, {"i2", int64(32767)}, {"i8", int64(9223372036854775807)}, {"i8", 3}, {"n", num("123.450")},
		{"n", 123.45}, {"n", "0.00001"}, {"f8", 2.25}, {"f4", float32(1.5)}, {"s", "hello"}, {"v", ""}, {"b", true},
		{"d", day(2024, 4, 11)}, {"d", "2024-04-11"}, {"tm", pgtype.Time{Microseconds: 86399999999, Valid: true}},
		{"ts", time.Date(2024, 4, 11, 10, 11, 12, 123456000, time.UTC)},
		{"tz", time.Date(2024, 2, 29, 14, 0, 0, 0, plus2)}, {"bt", []byte("*")},
		{"u", pgtype.UUID{Valid: true}}, {"u", "00000000-0000-0000-0000-000000000000"}, {"s", nil},
	} {
		p.query(fmt.Sprintf("where %s %s", w.col, pgxShow(w.val)), "SELECT id FROM "+t+" WHERE "+w.col+" = $1 ORDER BY id", w.val)
	}
	for _, a := range []struct {
		col string
		val any
	}{
		{"id", []int32{1, 3, 99}}, {"id", []int64{}}, {"s", []string{"hello", "x", "nope"}},
		{"d", []time.Time{day(2024, 4, 11), day(2038, 1, 19)}}, {"u", []string{"00000000-0000-0000-0000-000000000000"}},
		{"n", []pgtype.Numeric{num("0.00001"), num("100000")}}, {"f8", []float64{2.25, 0.1}},
	} {
		p.query(fmt.Sprintf("any %s %v", a.col, a.val), "SELECT id FROM "+t+" WHERE "+a.col+" = ANY($1) ORDER BY id", a.val)
	}

	for _, s := range []struct {
		expr string
		val  any
	}{
		{"$1::int2", int16(-7)}, {"$1::int4", int32(7)}, {"$1::int8", int64(1) << 53}, {"$1::float4", float32(0.1)},
		{"$1::float8", 0.1}, {"$1::numeric", num("-0.50")}, {"$1::numeric(10,3)", "1.23456"}, {"$1::text", "text"},
		{"$1::varchar", "vc"}, {"$1::bool", false}, {"$1::date", day(2024, 1, 2)},
		{"$1::time", pgtype.Time{Microseconds: 3*3600e6 + 4*60e6 + 5.5e6, Valid: true}},
		{"$1::timestamp", time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC)},
		{"$1::timestamptz", time.Date(2024, 1, 2, 3, 4, 5, 0, plus2)}, {"$1::bytea", []byte{0, 'x'}},
		{"$1::uuid", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"}, {"$1::text", nil}, {"$1::int4", nil},
		{"$1::int4[]", []int32{1, 2}}, {"$1::int4[]", []*int32{nil}}, {"$1::int8[]", []int64{1, -2}},
		{"$1::int2[]", []int16{3}}, {"$1::text[]", []string{"a", "b c", `"q"`, ""}}, {"$1::float8[]", []float64{1.5, -2}},
		{"$1::float4[]", []float32{0.5}}, {"$1::numeric[]", []string{"1.10", "2"}}, {"$1::bool[]", []bool{true, false}},
		{"$1::date[]", []time.Time{day(2024, 1, 2)}}, {"$1::uuid[]", []string{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
		{"$1::timestamp[]", []time.Time{time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}}, {"$1::varchar[]", []string{"x"}},
		{"$1::bytea[]", [][]byte{{1}, {2, 3}}}, {"ARRAY[$1::int4, 2]", int32(1)},
		{"$1::int4 + 1", int32(41)}, {"$1::numeric * 2", num("1.25")}, {"$1::date + 1", day(2024, 2, 28)},
		{"length($1::text)", "héllo"}, {"$1::text || 'x'", "a"}, {"$1::int8 / 2", int64(7)},
	} {
		p.query(fmt.Sprintf("select %s %s", s.expr, pgxShow(s.val)), "SELECT "+s.expr+" AS v", s.val)
	}

	// Scanning into typed destinations, as applications do.
	var (
		id                 int32
		i8                 *int64
		f4                 *float32
		n                  pgtype.Numeric
		s, v               *string
		b                  *bool
		d, ts, tz          *time.Time
		tm                 pgtype.Time
		bt                 []byte
		u                  pgtype.UUID
		nstr               *string
		dstr, tsstr, tzstr *string
	)
	r, err := p.conn.Query(ctx, "SELECT id, i8, f4, n, s, v, b, d, ts, tz, tm, bt, u, n::text, d::text, ts::text, tz::text FROM "+t+" ORDER BY id", p.opts...)
	if err != nil {
		p.t.Fatal(err)
	}
	for r.Next() {
		if err := r.Scan(&id, &i8, &f4, &n, &s, &v, &b, &d, &ts, &tz, &tm, &bt, &u, &nstr, &dstr, &tsstr, &tzstr); err != nil {
			p.printf("scan error %v", err)
			continue
		}
		deref := func(x any) string {
			switch y := x.(type) {
			case *int64:
				if y != nil {
					return fmt.Sprint(*y)
				}
			case *float32:
				if y != nil {
					return fmt.Sprint(*y)
				}
			case *string:
				if y != nil {
					return fmt.Sprintf("%q", *y)
				}
			case *bool:
				if y != nil {
					return fmt.Sprint(*y)
				}
			case *time.Time:
				if y != nil {
					return pgxShow(*y)
				}
			}
			return "NULL"
		}
		p.printf("scan %d %s %s %s %s %s %s %s %s %s %s %s %x %s %s %s %s %s", id, deref(i8), deref(f4), pgxShow(n),
			deref(s), deref(v), deref(b), deref(d), deref(ts), deref(tz), pgxShow(tm), pgxShow(bt), u.Bytes,
			deref(nstr), deref(dstr), deref(tsstr), deref(tzstr), fmt.Sprint(u.Valid))
	}
	if err := r.Err(); err != nil {
		p.printf("scan error %s", sqlState(err))
	}

	// A batch: several statements sent at once, one result each. None
	// fails: PostgreSQL runs a batch (one Sync, or one simple Query) as one
	// implicit transaction that a failing statement rolls back whole;
	// magmalake commits each statement on its own, so a failing batch is
	// not compared.
	batch := &pgx.Batch{}
	batch.Queue("UPDATE "+t+" SET s = $1 WHERE id = $2", "batched", int32(4))
	batch.Queue("DELETE FROM "+t+" WHERE id = $1", int32(5))
	batch.Queue("SELECT count(*), sum(i8) FROM " + t)
	batch.Queue("INSERT INTO "+t+" (id, i2) VALUES ($1, $2)", int32(6), int16(-1))
	br := p.conn.SendBatch(ctx, batch)
	tag, err := br.Exec()
	p.printf("batch update %s %s", tag, sqlState(err))
	tag, err = br.Exec()
	p.printf("batch delete %s %s", tag, sqlState(err))
	var cnt int64
	var sum pgtype.Numeric
	err = br.QueryRow().Scan(&cnt, &sum)
	p.printf("batch select %d %s %s", cnt, pgxShow(sum), sqlState(err))
	tag, err = br.Exec()
	p.printf("batch insert %s %s", tag, sqlState(err))
	p.printf("batch close %s", sqlState(br.Close()))
	tag, err = p.conn.Exec(ctx, "INSERT INTO "+t+" (id) VALUES ($1)", nil)
	p.printf("null id %s %s", tag, sqlState(err))
	// A smallint column's parameter is int2 on both: pgx refuses a value
	// out of its range before sending it.
	_, err = p.conn.Exec(ctx, "INSERT INTO "+t+" (id, i2) VALUES ($1, $2)", int32(98), int64(70000))
	p.printf("int2 parameter out of range: refused %v", err != nil)

	// A transaction with DDL, rolled back then committed.
	tx, err := p.conn.Begin(ctx)
	if err != nil {
		p.printf("begin error %v", err)
		return
	}
	_, err = tx.Exec(ctx, "CREATE TABLE "+t+"_rb (id integer)")
	p.printf("tx create %s", sqlState(err))
	_, err = tx.Exec(ctx, "INSERT INTO "+t+"_rb VALUES ($1)", int32(1))
	p.printf("tx insert %s", sqlState(err))
	p.printf("tx rollback %v", tx.Rollback(ctx))
	p.query("after rollback", "SELECT * FROM "+t+"_rb")
	p.query("after", "SELECT id, s FROM "+t+" ORDER BY id")
}
