package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// pgxConnect logs in to s's database e2e as testUser with password,
// running statements in mode.
func pgxConnect(t *testing.T, s *server, password string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	return testenv.PgxConnect(t, s.url(password), func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = mode })
}

func sqlState(err error) pgerr.Code {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgerr.Code(pe.Code)
	}
	return ""
}

func TestPgx(t *testing.T) {
	trust := startServer(t, wire.AuthTrust)
	scram := startServer(t, wire.AuthSCRAM)
	modes := map[string]pgx.QueryExecMode{"simple": pgx.QueryExecModeSimpleProtocol, "extended": pgx.QueryExecModeCacheStatement}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			var one int
			if err := pgxConnect(t, trust, "", mode).QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("trust: %v %v", one, err)
			}
			if _, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://%s:wrong@%s/e2e?sslmode=disable", testUser, scram.addr)); sqlState(err) != pgerr.InvalidPassword {
				t.Fatalf("wrong password: %v", err)
			}
			sc := newScenario("pgx_" + name)
			conn := pgxConnect(t, scram, testPassword, mode)
			checkTranscript(t, pgxScenario(t, conn, sc), sc.transcript(true))
			pgxBinaryCopy(t, conn, sc)
			pgxBadCopy(t, conn, sc)
		})
	}
	t.Run("portal", func(t *testing.T) { rawFetch(t, trust) })
}

// pgxScenario runs the common scenario and returns its transcript.
func pgxScenario(t *testing.T, conn *pgx.Conn, sc scenario) string {
	t.Helper()
	ctx := context.Background()
	var out strings.Builder
	must := func(tag pgconn.CommandTag, err error) pgconn.CommandTag {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tag
	}
	must(conn.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (id bigint NOT NULL, name text, score double precision)", sc.Table)))
	var values []string
	for id := 1; id <= sc.Rows; id++ {
		name := "'" + modelName(id) + "'"
		if id%5 == 0 {
			name = "NULL"
		}
		values = append(values, fmt.Sprintf("(%d, %s, %d.5)", id, name, id))
	}
	tag := must(conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES %s", sc.Table, strings.Join(values, ", "))))
	fmt.Fprintf(&out, "insert %d\n", tag.RowsAffected())
	for _, id := range append(sc.Deletes, sc.Deletes[0]) {
		tag := must(conn.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = $1", sc.Table), int64(id)))
		fmt.Fprintf(&out, "delete %d %d\n", id, tag.RowsAffected())
	}
	rows, err := conn.Query(ctx, fmt.Sprintf("SELECT id, name, score FROM %s ORDER BY id", sc.Table))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var name *string
		var score float64
		if err := rows.Scan(&id, &name, &score); err != nil {
			t.Fatal(err)
		}
		n := "NULL"
		if name != nil {
			n = *name
		}
		if score != float64(id)+0.5 {
			n += fmt.Sprintf(" (score %v)", score)
		}
		fmt.Fprintf(&out, "row %d %s\n", id, n)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	_, err = conn.Exec(ctx, "SELECT * FROM no_such_table")
	fmt.Fprintf(&out, "error %s\n", sqlState(err))
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "after-error %d\n", one)
	tag, err = conn.PgConn().CopyFrom(ctx, strings.NewReader(sc.copyText()), fmt.Sprintf("COPY %s FROM STDIN", sc.Table))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "copy %d\n", tag.RowsAffected())
	var n int
	if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s", sc.Table)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "count %d\n", n)
	return out.String()
}

// pgxBinaryCopy checks that pgx.Conn.CopyFrom, which always uses the binary
// COPY format, fails cleanly (0A000) and loads nothing.
func pgxBinaryCopy(t *testing.T, conn *pgx.Conn, sc scenario) {
	ctx := context.Background()
	var before, after int
	conn.QueryRow(ctx, "SELECT count(*) FROM "+sc.Table).Scan(&before)
	_, err := conn.CopyFrom(ctx, pgx.Identifier{sc.Table}, []string{"id", "name"}, pgx.CopyFromRows([][]any{{int64(999), "b"}}))
	if sqlState(err) != pgerr.FeatureNotSupported {
		t.Fatalf("binary COPY: want 0A000, got %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+sc.Table).Scan(&after); err != nil || after != before {
		t.Fatalf("after binary COPY: count %d (was %d), %v", after, before, err)
	}
}

// rawFetch reads a query through a portal 4 rows at a time (Execute with
// maxRows, PortalSuspended) inside a transaction, as pgjdbc's setFetchSize does.
func rawFetch(t *testing.T, s *server) {
	nc, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": testUser, "database": "e2e"}})
	recvUntil := func(stop func(pgproto3.BackendMessage) bool) []pgproto3.BackendMessage {
		t.Helper()
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		var msgs []pgproto3.BackendMessage
		for {
			m, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := m.(*pgproto3.ErrorResponse); ok {
				t.Fatalf("server error: %s %s", e.Code, e.Message)
			}
			// The frontend reuses its messages: keep DataRow values as copies.
			if dr, ok := m.(*pgproto3.DataRow); ok {
				m = &pgproto3.DataRow{Values: [][]byte{append([]byte(nil), dr.Values[0]...)}}
			}
			msgs = append(msgs, m)
			if stop(m) {
				return msgs
			}
		}
	}
	isReady := func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok }
	recvUntil(isReady)
	const n = 11
	fe.Send(&pgproto3.Query{String: "CREATE TABLE fetch_t (id int); BEGIN"})
	recvUntil(isReady)
	fe.Send(&pgproto3.Query{String: "INSERT INTO fetch_t SELECT 1"})
	recvUntil(isReady)
	var vals []string
	for i := 2; i <= n; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	fe.Send(&pgproto3.Query{String: "INSERT INTO fetch_t VALUES " + strings.Join(vals, ",")})
	recvUntil(isReady)
	fe.Send(&pgproto3.Parse{Query: "SELECT id FROM fetch_t WHERE id > $1 ORDER BY id"})
	fe.Send(&pgproto3.Bind{Parameters: [][]byte{[]byte("0")}})
	var got []string
	suspended := 0
	for {
		fe.Send(&pgproto3.Execute{MaxRows: 4})
		fe.Send(&pgproto3.Sync{})
		msgs := recvUntil(isReady)
		done := false
		for _, m := range msgs {
			switch m := m.(type) {
			case *pgproto3.DataRow:
				got = append(got, string(m.Values[0]))
			case *pgproto3.PortalSuspended:
				suspended++
			case *pgproto3.CommandComplete:
				done = true
			case *pgproto3.ReadyForQuery:
				if m.TxStatus != 'T' {
					t.Fatalf("ReadyForQuery %c inside a transaction", m.TxStatus)
				}
			}
		}
		if done {
			break
		}
		if suspended > n {
			t.Fatal("portal never completes")
		}
	}
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprint(i))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || suspended != (n-1)/4 {
		t.Fatalf("fetched %v with %d suspensions; want %v with %d", got, suspended, want, (n-1)/4)
	}
	fe.Send(&pgproto3.Query{String: "COMMIT"})
	recvUntil(isReady)
	fe.Send(&pgproto3.Terminate{})
	fe.Flush()
	io.Copy(io.Discard, nc)
}

// pgxBadCopy sends a COPY whose second line is bad: the error names the line
// and column with SQLSTATE 22P02, nothing is loaded, the connection goes on.
func pgxBadCopy(t *testing.T, conn *pgx.Conn, sc scenario) {
	ctx := context.Background()
	var before, after int
	conn.QueryRow(ctx, "SELECT count(*) FROM "+sc.Table).Scan(&before)
	_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("500\tok\t1\nx501\tbad\t1\n"), "COPY "+sc.Table+" FROM STDIN")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pgerr.Code(pe.Code) != pgerr.InvalidTextRepresentation || !strings.Contains(pe.Message, "COPY "+sc.Table+", line 2, column id") {
		t.Fatalf("bad COPY row: %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+sc.Table).Scan(&after); err != nil || after != before {
		t.Fatalf("after bad COPY: count %d (was %d), %v", after, before, err)
	}
}
