package wire

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
)

// shape renders messages as the traces' key facts: type, plus the tag, the
// SQLSTATE, the status letter or the field type OIDs.
func shape(msgs []pgproto3.BackendMessage) []string {
	var out []string
	for _, m := range msgs {
		switch m := m.(type) {
		case *pgproto3.CommandComplete:
			out = append(out, "C "+string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			out = append(out, "E "+m.Code)
		case *pgproto3.ReadyForQuery:
			out = append(out, "Z "+string(m.TxStatus))
		case *pgproto3.RowDescription:
			var oids []string
			for _, f := range m.Fields {
				oids = append(oids, fmt.Sprintf("%d/%d", f.DataTypeOID, f.Format))
			}
			out = append(out, "T "+strings.Join(oids, ","))
		case *pgproto3.ParameterDescription:
			out = append(out, fmt.Sprint("t ", m.ParameterOIDs))
		case *pgproto3.DataRow:
			out = append(out, "D")
		default:
			out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
		}
	}
	return out
}

func expectShape(t *testing.T, what string, got []pgproto3.BackendMessage, want ...string) {
	t.Helper()
	if s := shape(got); !reflect.DeepEqual(s, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, s, want)
	}
}

// The sequences below are the ones PostgreSQL 15 answered in traces/.
func TestTraceSequences(t *testing.T) {
	_, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	start := shape(c.startup(map[string]string{"user": "postgres", "database": "tracedb", "application_name": "psql"}))
	if start[0] != "AuthenticationOk" || start[len(start)-2] != "BackendKeyData" || start[len(start)-1] != "Z I" {
		t.Fatalf("startup: %q", start)
	}

	// psql.jsonl: multi-statement Query with an error in the middle.
	c.send(&pgproto3.Query{String: "SELECT 1 ; SELECT * FROM missing ; SELECT 2;"})
	expectShape(t, "multi-statement error", c.untilReady(), "T 23/0", "D", "C SELECT 1", "E "+string(pgerr.UndefinedTable), "Z I")
	// psql.jsonl: BEGIN / error / 25P02 / ROLLBACK, and the NOTICE.
	c.send(&pgproto3.Query{String: "BEGIN;"})
	expectShape(t, "begin", c.untilReady(), "C BEGIN", "Z T")
	c.send(&pgproto3.Query{String: "SELECT * FROM missing;"})
	expectShape(t, "error in tx", c.untilReady(), "E "+string(pgerr.UndefinedTable), "Z E")
	c.send(&pgproto3.Query{String: "SELECT 1;"})
	expectShape(t, "aborted tx", c.untilReady(), "E "+string(pgerr.InFailedSQLTransaction), "Z E")
	c.send(&pgproto3.Query{String: "ROLLBACK;"})
	expectShape(t, "rollback", c.untilReady(), "C ROLLBACK", "Z I")
	c.send(&pgproto3.Query{String: "DROP TABLE IF EXISTS no_such_table;"})
	expectShape(t, "notice", c.untilReady(), "NoticeResponse", "C DROP TABLE", "Z I")
	c.send(&pgproto3.Query{String: "  "})
	expectShape(t, "empty query", c.untilReady(), "EmptyQueryResponse", "Z I")

	// pgjdbc-connect.jsonl: SET through the extended protocol, maxRows=1.
	c.send(&pgproto3.Parse{Query: "SET application_name = 'PostgreSQL JDBC Driver'"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	expectShape(t, "jdbc SET", c.untilReady(), "ParseComplete", "BindComplete", "C SET", "ParameterStatus", "Z I")
	// pgjdbc-isvalid.jsonl: the empty query.
	c.send(&pgproto3.Parse{}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	expectShape(t, "isValid", c.untilReady(), "ParseComplete", "BindComplete", "NoData", "EmptyQueryResponse", "Z I")
	// pgx.jsonl: Parse/Describe S/Sync, then Bind (binary params and results)/Execute/Sync.
	c.send(&pgproto3.Parse{Name: "stmtcache_1", Query: "SELECT id, name, grp FROM t WHERE id = $1"}, &pgproto3.Describe{ObjectType: 'S', Name: "stmtcache_1"}, &pgproto3.Sync{})
	expectShape(t, "pgx describe", c.untilReady(), "ParseComplete", "t [20]", "T 20/0,25/0,23/0", "Z I")
	c.send(&pgproto3.Bind{PreparedStatement: "stmtcache_1", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 10}}, ResultFormatCodes: []int16{1, 0, 1}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	got := c.untilReady()
	expectShape(t, "pgx execute", got, "BindComplete", "T 20/1,25/0,23/1", "D", "C SELECT 1", "Z I")
	if dr, ok := got[2].(*pgproto3.DataRow); !ok || fmt.Sprintf("%x|%s|%x", dr.Values[0], dr.Values[1], dr.Values[2]) != "000000000000000a|name10|00000001" {
		t.Errorf("binary row: %v", got[2])
	}
	// pgjdbc-errors.jsonl: a batch whose 2nd statement fails discards until Sync.
	c.send(&pgproto3.Parse{Query: "DELETE FROM t WHERE id = 1"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "SELECT * FROM missing"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "DELETE FROM t WHERE id = 2"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expectShape(t, "discard until sync", c.untilReady(), "ParseComplete", "BindComplete", "C DELETE 1", "E "+string(pgerr.UndefinedTable), "Z I")
	// pgjdbc-fetchsize.jsonl: named portal, maxRows=2, PortalSuspended inside a transaction.
	c.send(&pgproto3.Parse{Query: "BEGIN"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "SELECT id, name, grp FROM t"}, &pgproto3.Bind{DestinationPortal: "C_1"}, &pgproto3.Describe{ObjectType: 'P', Name: "C_1"},
		&pgproto3.Execute{Portal: "C_1", MaxRows: 4}, &pgproto3.Sync{})
	expectShape(t, "fetch 1", c.untilReady(), "ParseComplete", "BindComplete", "C BEGIN", "ParseComplete", "BindComplete", "T 20/0,25/0,23/0", "D", "D", "D", "D", "PortalSuspended", "Z T")
	c.send(&pgproto3.Execute{Portal: "C_1", MaxRows: 4}, &pgproto3.Sync{})
	expectShape(t, "fetch 2", c.untilReady(), "D", "D", "D", "D", "PortalSuspended", "Z T")
	c.send(&pgproto3.Execute{Portal: "C_1", MaxRows: 4}, &pgproto3.Sync{})
	expectShape(t, "fetch 3", c.untilReady(), "D", "D", "C SELECT 2", "Z T")
	c.send(&pgproto3.Close{ObjectType: 'P', Name: "C_1"}, &pgproto3.Parse{Query: "COMMIT"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expectShape(t, "close+commit", c.untilReady(), "CloseComplete", "ParseComplete", "BindComplete", "C COMMIT", "Z I")
	// Exactly on a batch boundary: SELECT 0 with no rows.
	c.send(&pgproto3.Parse{Query: "BEGIN"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Parse{Query: "SELECT * FROM t"}, &pgproto3.Bind{DestinationPortal: "C_2"},
		&pgproto3.Execute{Portal: "C_2", MaxRows: 5}, &pgproto3.Execute{Portal: "C_2", MaxRows: 5}, &pgproto3.Execute{Portal: "C_2", MaxRows: 5}, &pgproto3.Sync{})
	expectShape(t, "boundary", c.untilReady(), "ParseComplete", "BindComplete", "C BEGIN", "ParseComplete", "BindComplete",
		"D", "D", "D", "D", "D", "PortalSuspended", "D", "D", "D", "D", "D", "PortalSuspended", "C SELECT 0", "Z T")
	// A named statement that already exists, an unknown portal, then recovery.
	c.send(&pgproto3.Query{String: "ROLLBACK"})
	c.untilReady()
	c.send(&pgproto3.Parse{Name: "stmtcache_1", Query: "SELECT 1"}, &pgproto3.Sync{})
	expectShape(t, "duplicate statement", c.untilReady(), "E "+string(pgerr.DuplicatePreparedStatement), "Z I")
	c.send(&pgproto3.Execute{Portal: "nope"}, &pgproto3.Sync{})
	expectShape(t, "unknown portal", c.untilReady(), "E "+string(pgerr.InvalidCursorName), "Z I")
	// A panicking statement is XX000 and the session goes on.
	c.send(&pgproto3.Query{String: "SELECT panic"})
	expectShape(t, "panic", c.untilReady(), "E "+string(pgerr.InternalError), "Z I")
	c.send(&pgproto3.Query{String: "SELECT 3"})
	expectShape(t, "after panic", c.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
}

func TestMalformedMessagesAreFatal(t *testing.T) {
	_, addr := testServer(t, func(c *Config) { c.MaxMessageSize = 1024 })
	for name, raw := range map[string][]byte{
		"oversized":    append([]byte{'Q', 0, 1, 0, 0}, make([]byte, 100)...),
		"unknown type": {'y', 0, 0, 0, 4},
		"bad length":   {'Q', 0, 0, 0, 1},
		"bad bind":     {'B', 0, 0, 0, 6, 0, 0},
	} {
		c := dialRaw(t, addr)
		c.startup(nil)
		c.nc.Write(raw)
		msgs := shape([]pgproto3.BackendMessage{copyMsg(t, c.receive())})
		if msgs[0] != "E "+string(pgerr.ProtocolViolation) {
			t.Errorf("%s: got %q, want FATAL 08P01", name, msgs)
		}
		if _, err := c.fe.Receive(); err == nil {
			t.Errorf("%s: connection still open", name)
		}
	}
}

func TestNegotiateProtocolVersion(t *testing.T) {
	_, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	msg := []byte{0, 0, 0, 0, 0, 3, 0, 2}
	msg = append(msg, "user\x00postgres\x00_pq_.frob\x00on\x00\x00"...)
	msg[3] = byte(len(msg))
	c.nc.Write(msg)
	got := shape(c.untilReady())
	if got[0] != "NegotiateProtocolVersion" || got[len(got)-1] != "Z I" {
		t.Fatalf("got %q", got)
	}
}
