package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/tracefile"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/wire"
)

// traceTableOID is the OID of t in the cluster the traces were taken from;
// psql's \d t sends it back as a literal.
const traceTableOID = "16385"

// replay drives one trace against a fresh magmalake: the client side is
// sent as recorded, the server side is compared by shape, one segment (the
// answer to one burst of client messages) at a time.
type replay struct {
	t        *testing.T
	name     string
	srv      *server
	password string // for SCRAM: the client's password
	oid      string // our OID of t
	allow    *allowList
	conns    map[int]*replayConn
	traceKey map[int32]int // trace backend pid → trace connection
}

type replayConn struct {
	nc        net.Conn
	fe        *pgproto3.Frontend
	key       *pgproto3.BackendKeyData
	scram     scramClient
	trigger   []string // client messages since the last answer
	want, got []string
	wantEOF   bool
}

// setupTraceTable creates the table every trace expects, t(id, name, grp)
// with rows (g, 'name'||g, g%3) for g = 1..10, and returns its OID.
func setupTraceTable(t *testing.T, srv *server, password string) string {
	t.Helper()
	conn := pgxConnect(t, srv, password, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE t (id bigint NOT NULL, name text, grp int)"); err != nil {
		t.Fatal(err)
	}
	rows := make([]string, 10)
	for g := 1; g <= 10; g++ {
		rows[g-1] = fmt.Sprintf("(%d, 'name%d', %d)", g, g, g%3)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(rows, ", ")); err != nil {
		t.Fatal(err)
	}
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT oid FROM pg_catalog.pg_class WHERE relname = 't'").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(oid)
}

func (r *replay) run(lines []traceLine) {
	defer func() {
		for _, c := range r.conns {
			c.nc.Close()
		}
	}()
	for _, l := range lines {
		switch {
		case l.Dir == "F" && strings.HasPrefix(l.Event, "connect from"):
			r.connect(l.Conn)
		case l.Dir == "F" && l.Event != "":
			r.answer(l.Conn)
			if c := r.conns[l.Conn]; c != nil {
				c.nc.Close()
			}
		case l.Dir == "B" && l.Event != "":
			c := r.conns[l.Conn]
			c.wantEOF = true
			r.answer(l.Conn)
		case l.Dir == "F":
			r.answer(l.Conn)
			r.send(l)
		default:
			r.expect(l)
		}
	}
	for id := range r.conns {
		r.answer(id)
	}
}

func (r *replay) connect(id int) {
	nc, err := net.DialTimeout("tcp", r.srv.addr, 5*time.Second)
	if err != nil {
		r.t.Fatalf("%s: connection %d: %v", r.name, id, err)
	}
	r.conns[id] = &replayConn{nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

func (r *replay) expect(l traceLine) {
	c := r.conns[l.Conn]
	c.want = append(c.want, shape(l.Msg))
	if l.typ == "BackendKeyData" {
		var k struct{ ProcessID int32 }
		json.Unmarshal(l.Msg, &k)
		r.traceKey[k.ProcessID] = l.Conn
	}
}

// send replays one client message, rewriting what must differ here: the
// user and the SCRAM proof, the cancel key, the table OID.
func (r *replay) send(l traceLine) {
	c := r.conns[l.Conn]
	c.trigger = append(c.trigger, l.typ)
	if l.typ == "SSLRequest" {
		c.got = append(c.got, r.sslRequest(c))
		return
	}
	msg, err := tracefile.FrontendMessage(l.Msg)
	if err != nil {
		r.t.Fatalf("%s: %v", r.name, err)
	}
	switch m := msg.(type) {
	case *pgproto3.StartupMessage:
		m.Parameters["user"] = testUser
	case *pgproto3.Query:
		m.String = strings.ReplaceAll(m.String, "'"+traceTableOID+"'", "'"+r.oid+"'")
		c.trigger[len(c.trigger)-1] += " " + m.String
	case *pgproto3.Parse:
		c.trigger[len(c.trigger)-1] += " " + m.Query
	case *pgproto3.CancelRequest:
		target := r.conns[r.traceKey[int32(m.ProcessID)]]
		if target == nil || target.key == nil {
			r.t.Fatalf("%s: CancelRequest for an unknown backend", r.name)
		}
		m.ProcessID, m.SecretKey = target.key.ProcessID, target.key.SecretKey
	case *pgproto3.SASLInitialResponse:
		c.scram.start(string(m.Data), r.password)
	case *pgproto3.SASLResponse:
		m.Data = []byte(c.scram.final())
	}
	c.fe.Send(msg)
	if err := c.fe.Flush(); err != nil {
		r.t.Errorf("%s: send %s: %v", r.name, l.typ, err)
	}
}

// sslRequest sends the 8-byte SSLRequest and reads the one-byte answer.
func (r *replay) sslRequest(c *replayConn) string {
	if _, err := c.nc.Write([]byte{0, 0, 0, 8, 4, 210, 22, 47}); err != nil {
		return "SSLRequest failed: " + err.Error()
	}
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 1)
	if _, err := c.nc.Read(b); err != nil {
		return "SSLResponse failed: " + err.Error()
	}
	return "SSLResponse " + string(b)
}

// answer reads our server's answer to the client messages sent since the
// last one and compares it with the trace's.
func (r *replay) answer(id int) {
	c := r.conns[id]
	if c == nil || (len(c.want) == 0 && !c.wantEOF) {
		return
	}
	if c.wantEOF {
		c.want = append(c.want, "EOF")
	}
	r.receive(c)
	c.want = r.allow.retype(c.want)
	if !sameShapes(c.want, c.got) {
		trigger := strings.Join(c.trigger, "; ")
		if reason, ok := r.allow.covers(r.name, trigger); ok {
			r.t.Logf("%s: allowed difference (%s) after %.200s:\n%s", r.name, reason, trigger, diffShapes(c.want, c.got))
		} else {
			r.t.Errorf("%s, connection %d, after %.300s:\n  PostgreSQL%53s | magmalake\n%s", r.name, id, trigger, "", diffShapes(c.want, c.got))
		}
	}
	c.trigger, c.want, c.got, c.wantEOF = nil, nil, nil, false
}

// receive reads until the answer is complete: the message type the trace's
// answer ends with, ReadyForQuery, a FATAL error, or (when the server is
// expected to hang up) the end of the connection.
func (r *replay) receive(c *replayConn) {
	last := c.want[len(c.want)-1]
	if strings.HasPrefix(last, "SSLResponse") {
		return
	}
	lastType, _, _ := strings.Cut(last, " ")
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || isEOF(err) {
				c.got = append(c.got, "EOF")
			} else {
				c.got = append(c.got, "read error: "+err.Error())
			}
			return
		}
		s := backendShape(msg)
		c.got = append(c.got, s)
		r.observe(c, msg)
		typ, _, _ := strings.Cut(s, " ")
		fatal := strings.HasPrefix(s, "ErrorResponse FATAL")
		if !c.wantEOF && (typ == lastType || typ == "ReadyForQuery" || fatal) {
			return
		}
	}
}

// observe keeps what later client messages depend on.
func (r *replay) observe(c *replayConn, msg pgproto3.BackendMessage) {
	switch m := msg.(type) {
	case *pgproto3.BackendKeyData:
		k := *m
		c.key = &k
	case *pgproto3.AuthenticationSASLContinue:
		c.scram.serverFirst = string(m.Data)
	case *pgproto3.AuthenticationSASL:
		// The frontend must know it is in a SASL exchange to decode the rest.
	}
}

func isEOF(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "connection reset")
}

// startTraceServer serves a fresh warehouse holding t for one trace.
func startTraceServer(t *testing.T, name string) (*server, string, string) {
	auth, password := wire.AuthTrust, ""
	if strings.Contains(name, "scram") {
		auth, password = wire.AuthSCRAM, testPassword
	}
	srv := startServer(t, auth)
	oid := setupTraceTable(t, srv, password)
	if strings.Contains(name, "badpassword") {
		password = "not-" + testPassword
	}
	return srv, password, oid
}
