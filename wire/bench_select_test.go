package wire

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
)

// benchEngineServer serves a real engine over an empty warehouse, so the
// benchmarks measure the whole server path pgbench drives.
func benchEngineServer(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	wh, err := lake.Open(ctx, lake.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { wh.Close() })
	eng, err := session.NewEngine(ctx, wh, session.EngineOptions{})
	if err != nil {
		b.Fatal(err)
	}
	_, addr := testServer(b, func(c *Config) {
		c.NewSession = func(info stmt.SessionInfo) (Session, error) { return eng.NewSession(info), nil }
	})
	return addr
}

// roundTrips sends msgs then reads to ReadyForQuery, b.N times, checking
// the one row pgbench's SELECT 1 expects.
func roundTrips(b *testing.B, c *rawClient, msgs ...pgproto3.FrontendMessage) {
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range msgs {
			c.fe.Send(m)
		}
		if err := c.fe.Flush(); err != nil {
			b.Fatal(err)
		}
		rows := 0
		for {
			m, err := c.fe.Receive()
			if err != nil {
				b.Fatal(err)
			}
			switch m := m.(type) {
			case *pgproto3.DataRow:
				if len(m.Values) != 1 || string(m.Values[0]) != "1" {
					b.Fatalf("row %q", m.Values)
				}
				rows++
			case *pgproto3.ErrorResponse:
				b.Fatalf("error %s: %s", m.Code, m.Message)
			}
			if _, ok := m.(*pgproto3.ReadyForQuery); ok {
				break
			}
		}
		if rows != 1 {
			b.Fatalf("%d rows", rows)
		}
	}
}

func BenchmarkWireSimpleSelect1(b *testing.B) {
	c := dialRaw(b, benchEngineServer(b))
	c.startup(nil)
	roundTrips(b, c, &pgproto3.Query{String: "SELECT 1;"})
}

// BenchmarkWireExtendedSelect1 is pgbench -M extended: the unnamed statement
// parsed anew each time.
func BenchmarkWireExtendedSelect1(b *testing.B) {
	c := dialRaw(b, benchEngineServer(b))
	c.startup(nil)
	roundTrips(b, c, &pgproto3.Parse{Query: "SELECT 1;"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
}

// BenchmarkWirePreparedSelect1 is pgbench -M prepared: Bind/Execute of a
// named statement.
func BenchmarkWirePreparedSelect1(b *testing.B) {
	c := dialRaw(b, benchEngineServer(b))
	c.startup(nil)
	c.send(&pgproto3.Parse{Name: "P0_1", Query: "SELECT 1;"}, &pgproto3.Sync{})
	c.untilReady()
	roundTrips(b, c, &pgproto3.Bind{PreparedStatement: "P0_1"}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
}
