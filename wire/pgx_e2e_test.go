// These tests drive the server with pgx itself.

package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

func dsn(addr, extra string) string {
	return "postgres://postgres:secret@" + addr + "/tracedb?sslmode=disable" + extra
}

func sqlState(err error) pgerr.Code {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgerr.Code(pe.Code)
	}
	return ""
}

func TestPgxModes(t *testing.T) {
	_, addr := testServer(t, nil)
	modes := map[string]pgx.QueryExecMode{
		"cache_statement": pgx.QueryExecModeCacheStatement, "simple": pgx.QueryExecModeSimpleProtocol,
		"exec": pgx.QueryExecModeExec, "describe": pgx.QueryExecModeDescribeExec,
	}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			conn := testenv.PgxConnect(t, dsn(addr, ""), func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = mode })
			ctx := context.Background()
			var one int32
			if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("SELECT 1: %v %v", one, err)
			}
			// A parameterised query run 7 times: pgx prepares once, then reuses.
			for id := int64(1); id <= 7; id++ {
				var gotID int64
				var name string
				var grp int32
				if err := conn.QueryRow(ctx, "SELECT id, name, grp FROM t WHERE id = $1", id).Scan(&gotID, &name, &grp); err != nil {
					t.Fatalf("id %d: %v", id, err)
				}
				if gotID != id || name != fmt.Sprintf("name%d", id) || grp != int32(id%3) {
					t.Fatalf("id %d: got %d %q %d", id, gotID, name, grp)
				}
			}
			rows, err := conn.Query(ctx, "SELECT * FROM t")
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (int64, error) {
				var id int64
				var n string
				var g int32
				return id, r.Scan(&id, &n, &g)
			})
			if err != nil || len(ids) != fakeRows || ids[fakeRows-1] != fakeRows {
				t.Fatalf("SELECT *: %v %v", ids, err)
			}
			tag, err := conn.Exec(ctx, "DELETE FROM t WHERE id = $1", int64(4))
			if err != nil || tag.String() != "DELETE 1" {
				t.Fatalf("DELETE: %q %v", tag, err)
			}
			// An error, then a working statement on the same connection.
			_, err = conn.Exec(ctx, "SELECT * FROM missing")
			if sqlState(err) != pgerr.UndefinedTable {
				t.Fatalf("missing table: want 42P01, got %v", err)
			}
			if err := conn.QueryRow(ctx, "SELECT 2").Scan(&one); err != nil || one != 2 {
				t.Fatalf("after error: %v %v", one, err)
			}
			var n int64
			if err := conn.QueryRow(ctx, "SELECT generate_series(1, 25000)").Scan(&n); err != nil || n != 1 {
				t.Fatalf("series: %v %v", n, err)
			}
		})
	}
}

// TestPgxTypesRoundTrip sends every type as a parameter (binary where pgx
// chooses binary, text otherwise) and reads it back in binary and in text.
func TestPgxTypesRoundTrip(t *testing.T) {
	_, addr := testServer(t, nil)
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	cases := []struct {
		typ  string
		in   any
		want string // pgx's rendering through a text scan
	}{
		{"bool", true, "true"},
		{"int2", int16(-12), "-12"},
		{"int4", int32(123456), "123456"},
		{"int8", int64(-9000000000), "-9000000000"},
		{"float4", float32(1.5), "1.5"},
		{"float8", 0.1, "0.1"},
		{"text", "héllo", "héllo"},
		{"bytea", []byte{0xde, 0xad, 0x00}, "\\xdead00"},
		{"date", time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), "1999-12-31"},
		{"timestamp", ts, "2024-01-02 03:04:05.123456"},
		{"timestamptz", ts, "2024-01-02 03:04:05.123456+00"},
		{"uuid", fakeUUID, "12345678-9abc-def0-0123-456789abcdef"},
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := testenv.PgxConnect(t, dsn(addr, ""), func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = mode })
		for _, tc := range cases {
			if tc.typ == "uuid" && mode == pgx.QueryExecModeSimpleProtocol {
				continue // pgx cannot interpolate a [16]byte without a type OID
			}
			q := "SELECT $1::" + tc.typ
			// Binary results (pgx asks for binary for these types in extended mode).
			dst := newLike(tc.in)
			if err := conn.QueryRow(context.Background(), q, tc.in).Scan(dst.ptr); err != nil {
				t.Fatalf("mode %v %s: %v", mode, tc.typ, err)
			}
			if !dst.equal(tc.in) {
				t.Errorf("mode %v %s: sent %#v, got back %#v", mode, tc.typ, tc.in, dst.value())
			}
			// Text results, compared with PostgreSQL's text form.
			rows, err := conn.Query(context.Background(), q, pgx.QueryResultFormats{pgx.TextFormatCode}, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var raw []byte
			for rows.Next() {
				raw = append([]byte(nil), rows.RawValues()[0]...)
			}
			if rows.Err() != nil {
				t.Fatal(rows.Err())
			}
			if mode == pgx.QueryExecModeCacheStatement && string(raw) != tc.want && !(tc.typ == "bool" && string(raw) == "t") {
				t.Errorf("%s text: got %q want %q", tc.typ, raw, tc.want)
			}
		}
	}
	// numeric travels as binary numeric from pgx and comes back exact.
	conn := testenv.PgxConnect(t, dsn(addr, ""), nil)
	var num pgtype.Numeric
	in := pgtype.Numeric{Int: big.NewInt(-1234567891), Exp: -4, Valid: true}
	if err := conn.QueryRow(context.Background(), "SELECT $1::numeric", in).Scan(&num); err != nil {
		t.Fatal(err)
	}
	if v, _ := num.Value(); v != "-123456.7891" {
		t.Errorf("numeric round trip: got %v", v)
	}
	// All types in one row, binary, and a NULL row.
	rows, err := conn.Query(context.Background(), "SELECT alltypes")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			for i, v := range vals {
				if v != nil {
					t.Errorf("NULL row column %d: %v", i, v)
				}
			}
		} else if vals[0] != true || vals[3] != int64(-9000000000) || vals[7] != "héllo" || !bytes.Equal(vals[9].([]byte), []byte{0xde, 0xad, 0}) {
			t.Errorf("alltypes: %#v", vals)
		}
		n++
	}
	if rows.Err() != nil || n != 2 {
		t.Fatalf("alltypes: %d rows, %v", n, rows.Err())
	}
}

type likeVal struct {
	ptr   any
	value func() any
}

func (l likeVal) equal(want any) bool {
	got := l.value()
	if b, ok := want.([]byte); ok {
		return bytes.Equal(b, got.([]byte))
	}
	if w, ok := want.(time.Time); ok {
		return w.Equal(got.(time.Time))
	}
	return got == want
}

func newLike(v any) likeVal {
	switch v.(type) {
	case bool:
		var x bool
		return likeVal{&x, func() any { return x }}
	case int16:
		var x int16
		return likeVal{&x, func() any { return x }}
	case int32:
		var x int32
		return likeVal{&x, func() any { return x }}
	case int64:
		var x int64
		return likeVal{&x, func() any { return x }}
	case float32:
		var x float32
		return likeVal{&x, func() any { return x }}
	case float64:
		var x float64
		return likeVal{&x, func() any { return x }}
	case string:
		var x string
		return likeVal{&x, func() any { return x }}
	case []byte:
		var x []byte
		return likeVal{&x, func() any { return x }}
	case time.Time:
		var x time.Time
		return likeVal{&x, func() any { return x }}
	case [16]byte:
		var x [16]byte
		return likeVal{&x, func() any { return x }}
	}
	panic(fmt.Sprintf("no like for %T", v))
}

func TestPgxCancelRequest(t *testing.T) {
	_, addr := testServer(t, nil)
	conn := testenv.PgxConnect(t, dsn(addr, ""), func(c *pgx.ConnConfig) {
		c.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: 5 * time.Second}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := conn.Exec(ctx, "SELECT pg_sleep(30)", pgx.QueryExecModeSimpleProtocol)
	if sqlState(err) != pgerr.QueryCanceled {
		t.Fatalf("want 57014, got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("cancel took %v", time.Since(start))
	}
	var one int32
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("connection unusable after cancel: %v", err)
	}
}

func TestPgxDisconnectCancelsStatement(t *testing.T) {
	started := make(chan context.Context, 1)
	_, addr := testServer(t, func(c *Config) {
		c.NewSession = func(info stmt.SessionInfo) (Session, error) {
			s, _ := newFakeSession(info)
			return &ctxSpy{Session: s, started: started}, nil
		}
	})
	conn := testenv.PgxConnect(t, dsn(addr, ""), nil) // default handler: closes the socket on cancel
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	conn.Exec(ctx, "SELECT pg_sleep(30)")
	stmtCtx := <-started
	select {
	case <-stmtCtx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("statement context not cancelled after the client disconnected")
	}
}

type ctxSpy struct {
	Session
	started chan context.Context
}

func (s *ctxSpy) Execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	select {
	case s.started <- ctx:
	default:
	}
	return s.Session.Execute(ctx, p, params)
}

func TestPgxAuthAndTLS(t *testing.T) {
	tlsCfg, err := SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]string{"postgres": "secret", "alice": ScramVerifier("wonderland")}
	for _, method := range []AuthMethod{AuthSCRAM, AuthMD5, AuthPassword} {
		_, addr := testServer(t, func(c *Config) { c.Auth, c.Users, c.TLS = method, users, tlsCfg })
		t.Run(fmt.Sprint("method", method), func(t *testing.T) {
			conn := testenv.PgxConnect(t, "postgres://postgres:secret@"+addr+"/db?sslmode=require", nil)
			if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
				t.Fatalf("sslmode=require: connection is %T, not TLS", conn.PgConn().Conn())
			}
			var one int32
			if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
				t.Fatal(err)
			}
			if method != AuthMD5 { // md5 cannot use a SCRAM verifier: PostgreSQL falls back to SCRAM, as we do
				testenv.PgxConnect(t, "postgres://alice:wonderland@"+addr+"/db?sslmode=disable", nil)
			}
			cfg, _ := pgx.ParseConfig("postgres://postgres:wrong@" + addr + "/db?sslmode=disable")
			_, err := pgx.ConnectConfig(context.Background(), cfg)
			if sqlState(err) != pgerr.InvalidPassword {
				t.Fatalf("bad password: want 28P01, got %v", err)
			}
			cfg, _ = pgx.ParseConfig("postgres://nobody:secret@" + addr + "/db?sslmode=disable")
			if _, err := pgx.ConnectConfig(context.Background(), cfg); sqlState(err) != pgerr.InvalidPassword {
				t.Fatalf("unknown user: want 28P01, got %v", err)
			}
		})
	}
}

func TestPgxTooManyConnections(t *testing.T) {
	_, addr := testServer(t, func(c *Config) { c.MaxConnections = 2 })
	testenv.PgxConnect(t, dsn(addr, ""), nil)
	testenv.PgxConnect(t, dsn(addr, ""), nil)
	cfg, _ := pgx.ParseConfig(dsn(addr, ""))
	if _, err := pgx.ConnectConfig(context.Background(), cfg); sqlState(err) != pgerr.TooManyConnections {
		t.Fatalf("want 53300, got %v", err)
	}
}

func TestPgxCopy(t *testing.T) {
	_, addr := testServer(t, nil)
	conn := testenv.PgxConnect(t, dsn(addr, ""), nil)
	in := "1\ta\tx\n2\tb\ty\n3\tc\tz\n"
	tag, err := conn.PgConn().CopyFrom(context.Background(), strings.NewReader(in), "COPY t FROM STDIN")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("copy in: %q %v", tag, err)
	}
	_, err = conn.PgConn().CopyFrom(context.Background(), strings.NewReader("1\tonly two\n"), "COPY t FROM STDIN")
	if sqlState(err) != pgerr.InvalidTextRepresentation {
		t.Fatalf("bad copy data: want 22P02, got %v", err)
	}
	var out bytes.Buffer
	tag, err = conn.PgConn().CopyTo(context.Background(), &out, "COPY t TO STDOUT")
	want := "1\ta\\tb,\"c\"\\n1\t\\N\n2\ta\\tb,\"c\"\\n2\t\\N\n3\ta\\tb,\"c\"\\n3\t\\N\n"
	if err != nil || tag.String() != "COPY 3" || out.String() != want {
		t.Fatalf("copy out: %q %v\n%q", tag, err, out.String())
	}
	out.Reset()
	if _, err := conn.PgConn().CopyTo(context.Background(), &out, "COPY t TO STDOUT CSV"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "1,\"a\tb,\"\"c\"\"\n1\",\n") {
		t.Fatalf("csv: %q", out.String())
	}
	var one int32
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}
