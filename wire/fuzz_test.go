package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/internal/tracefile"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// FuzzMessageLoop feeds random bytes after a valid startup: the connection
// must end or answer, never panic (a recovered panic is logged and fails the
// test) and never hang.
func FuzzMessageLoop(f *testing.F) {
	seed := func(msgs ...pgproto3.FrontendMessage) []byte {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		return b
	}
	f.Add(seed(&pgproto3.Query{String: "SELECT 1"}))
	f.Add(seed(&pgproto3.Parse{Query: "SELECT * FROM t WHERE id = $1"}, &pgproto3.Bind{Parameters: [][]byte{{1, 2}}, ParameterFormatCodes: []int16{1}}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{}))
	f.Add(seed(&pgproto3.Query{String: "COPY t FROM STDIN"}, &pgproto3.CopyData{Data: []byte("1\t2\t3\n")}, &pgproto3.CopyDone{}))
	f.Add([]byte{'B', 0, 0, 0, 12, 0, 0, 0, 1, 0, 1, 0, 0})
	fs := newFuzzServer(f, Config{MaxMessageSize: 1 << 16})
	startup, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}}).Encode(nil)
	terminate, _ := (&pgproto3.Terminate{}).Encode(nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		fs.feed(t, slices.Concat(startup, data, terminate))
	})
}

// FuzzStartup feeds a whole client stream from its first byte: SSL and
// cancel requests, the startup packet, every authentication exchange, then
// the messages of a session. setup picks the server: its low two bits the
// authentication method, bit 2 TLS offered, bit 3 TLS required. The seeds
// are the client side of each connection of the golden traces (real clients
// against PostgreSQL 15), and a few built here.
func FuzzStartup(f *testing.F) {
	addTraceSeeds(f)
	tlsCfg, err := SelfSignedTLS()
	if err != nil {
		f.Fatal(err)
	}
	users := map[string]string{"postgres": "secret", "alice": ScramVerifier("wonderland")}
	var servers [16]*fuzzServer
	for setup := range servers {
		cfg := Config{Auth: AuthMethod(setup & 3), Users: users, MaxMessageSize: 1 << 16, AuthenticationTimeout: 2 * time.Second}
		if setup&4 != 0 {
			cfg.TLS, cfg.TLSRequired = tlsCfg, setup&8 != 0
		}
		servers[setup] = newFuzzServer(f, cfg)
	}
	for setup, msgs := range map[uint8][]pgproto3.FrontendMessage{
		0: {&pgproto3.SSLRequest{}, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres", "database": "db", "_pq_.x": "1"}},
			&pgproto3.Query{String: "SELECT 1"}, &pgproto3.Terminate{}},
		1: {&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}},
			&pgproto3.PasswordMessage{Password: "secret"}, &pgproto3.Query{String: "SELECT 'a\xff'"}, &pgproto3.Terminate{}},
		2: {&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}},
			&pgproto3.PasswordMessage{Password: "md5" + strings.Repeat("0", 32)}},
		3: {&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "alice"}},
			&pgproto3.SASLInitialResponse{AuthMechanism: scramMechanism, Data: []byte("n,,n=,r=abcdefgh")},
			&pgproto3.SASLResponse{Data: []byte("c=biws,r=abcdefgh,p=" + strings.Repeat("A", 43) + "=")}},
		12: {&pgproto3.SSLRequest{}, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres"}}},
		13: {&pgproto3.CancelRequest{ProcessID: 1234, SecretKey: []byte{1, 2, 3, 4}}},
	} {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		f.Add(setup, b)
	}
	f.Fuzz(func(t *testing.T, setup uint8, stream []byte) {
		servers[setup%16].feed(t, stream)
	})
}

// tracesDir holds the golden traces, one JSON message a line.
const tracesDir = "../internal/e2e/testdata/traces"

// addTraceSeeds adds each traced connection's client bytes as a seed: setup
// 3 (scram-sha-256) for the SCRAM traces, 0 (trust) for the others.
func addTraceSeeds(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join(tracesDir, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no traces in %s: %v", tracesDir, err)
	}
	for _, path := range paths {
		streams, err := traceStreams(path)
		if err != nil {
			f.Fatal(err)
		}
		setup := uint8(0)
		if strings.Contains(filepath.Base(path), "scram") {
			setup = 3
		}
		for _, stream := range streams {
			f.Add(setup, stream)
		}
	}
}

// traceStreams is what the client of each connection of a trace sent.
func traceStreams(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	byConn := map[int][]byte{}
	var order []int
	for n, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var l struct {
			Dir  string
			Conn int
			Msg  json.RawMessage
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if l.Dir != "F" || l.Msg == nil {
			continue
		}
		m, err := tracefile.FrontendMessage(l.Msg)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if _, seen := byConn[l.Conn]; !seen {
			order = append(order, l.Conn)
		}
		if byConn[l.Conn], err = m.Encode(byConn[l.Conn]); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
	}
	streams := make([][]byte, len(order))
	for i, c := range order {
		streams[i] = byConn[c]
	}
	return streams, nil
}

// fuzzServer is one server for a whole fuzzing run; its log shows recovered
// panics.
type fuzzServer struct {
	srv  *Server
	logs *testenv.LogBuffer
}

func newFuzzServer(f *testing.F, cfg Config) *fuzzServer {
	fs := &fuzzServer{logs: &testenv.LogBuffer{}}
	cfg.NewSession = newFakeSession
	cfg.Logger = slog.New(slog.NewTextHandler(fs.logs, &slog.HandlerOptions{Level: slog.LevelError}))
	srv, err := NewServer(cfg)
	if err != nil {
		f.Fatal(err)
	}
	fs.srv = srv
	return fs
}

// feed plays stream as a client that sends it, reads whatever comes back and
// closes: the connection must end within 5 s and no panic be logged.
func (fs *fuzzServer) feed(t *testing.T, stream []byte) {
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		newConn(fs.srv, server).serve()
		close(done)
	}()
	go io.Copy(io.Discard, client)
	client.SetWriteDeadline(time.Now().Add(2 * time.Second))
	client.Write(stream)
	client.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("connection goroutine hung")
	}
	if logs := fs.logs.String(); strings.Contains(logs, "panic") {
		t.Fatalf("panic: %s", logs)
	}
}

// TestDataRowPathAllocationFree checks the per-row encoding over a large batch.
func TestDataRowPathAllocationFree(t *testing.T) {
	mem := memory.NewGoAllocator()
	const n = 4096
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	tb := array.NewTimestampBuilder(mem, sql.TimestampTZ.ArrowType().(*arrow.TimestampType))
	fb := array.NewFloat64Builder(mem)
	for i := range n {
		ib.Append(int64(i))
		sb.Append("name")
		tb.Append(arrow.Timestamp(int64(i) * 1e6))
		if i%7 == 0 {
			fb.AppendNull()
		} else {
			fb.Append(float64(i) / 3)
		}
	}
	cols := []stmt.Column{{Name: "id", Type: sql.Int64}, {Name: "s", Type: sql.Text}, {Name: "ts", Type: sql.TimestampTZ}, {Name: "f", Type: sql.Float64}}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: sql.TimestampTZ.ArrowType()}, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), sb.NewArray(), tb.NewArray(), fb.NewArray()}, n)
	tr := &transport{out: make([]byte, 0, 1<<20)}
	for _, formats := range [][]int16{nil, {1, 1, 1, 1}} {
		allocs := testing.AllocsPerRun(3, func() {
			tr.out = tr.out[:0]
			for i := range n {
				tr.appendDataRow(batch, i, cols, formats)
			}
		})
		if allocs != 0 {
			t.Errorf("formats %v: %v allocations per %d rows", formats, allocs, n)
		}
	}
	// The encoded rows decode back to the batch's values.
	tr.out = tr.out[:0]
	tr.appendDataRow(batch, 7, cols, nil)
	fe := pgproto3.NewFrontend(bytes.NewReader(tr.out), nil)
	m, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	dr := m.(*pgproto3.DataRow)
	if string(dr.Values[0]) != "7" || string(dr.Values[1]) != "name" || string(dr.Values[2]) != "1970-01-01 00:00:07+00" || dr.Values[3] != nil {
		t.Fatalf("row 7: %q", dr.Values)
	}
}
