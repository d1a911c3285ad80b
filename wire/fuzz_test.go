package wire

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/sql"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		var logs bytes.Buffer
		srv, err := NewServer(Config{NewSession: newFakeSession, MaxMessageSize: 1 << 16,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))})
		if err != nil {
			t.Fatal(err)
		}
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			newConn(srv, server).serve()
			close(done)
		}()
		go io.Copy(io.Discard, client)
		startup, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}}).Encode(nil)
		client.SetWriteDeadline(time.Now().Add(2 * time.Second))
		client.Write(append(startup, data...))
		terminate, _ := (&pgproto3.Terminate{}).Encode(nil)
		client.Write(terminate)
		client.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("connection goroutine hung")
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("panic: %s", logs.String())
		}
	})
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
	cols := []exec.Column{{Name: "id", Type: sql.Int64}, {Name: "s", Type: sql.Text}, {Name: "ts", Type: sql.TimestampTZ}, {Name: "f", Type: sql.Float64}}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: sql.TimestampTZ.ArrowType()}, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), sb.NewArray(), tb.NewArray(), fb.NewArray()}, n)
	c := &conn{out: make([]byte, 0, 1<<20)}
	for _, formats := range [][]int16{nil, {1, 1, 1, 1}} {
		allocs := testing.AllocsPerRun(3, func() {
			c.out = c.out[:0]
			for i := range n {
				c.appendDataRow(batch, i, cols, formats)
			}
		})
		if allocs != 0 {
			t.Errorf("formats %v: %v allocations per %d rows", formats, allocs, n)
		}
	}
	// The encoded rows decode back to the batch's values.
	c.out = c.out[:0]
	c.appendDataRow(batch, 7, cols, nil)
	fe := pgproto3.NewFrontend(bytes.NewReader(c.out), nil)
	m, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	dr := m.(*pgproto3.DataRow)
	if string(dr.Values[0]) != "7" || string(dr.Values[1]) != "name" || string(dr.Values[2]) != "1970-01-01 00:00:07+00" || dr.Values[3] != nil {
		t.Fatalf("row 7: %q", dr.Values)
	}
}
