package session

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// benchSession is testSession for benchmarks.
func benchSession(b *testing.B) *Session {
	b.Helper()
	ctx := context.Background()
	wh, err := lake.Open(ctx, lake.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { wh.Close() })
	eng, err := NewEngine(ctx, wh, EngineOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := eng.NewSession(stmt.SessionInfo{User: "bench", Database: "db"})
	b.Cleanup(s.Close)
	return s
}

// drainBench runs one prepared statement to completion, as the wire layer does.
func drainBench(b *testing.B, ctx context.Context, s *Session, p *stmt.Prepared) {
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		b.Fatal(err)
	}
	if res.Rows == nil {
		return
	}
	for {
		if _, err := res.Rows.Next(ctx); err != nil {
			if !errors.Is(err, io.EOF) {
				b.Fatal(err)
			}
			break
		}
	}
	_ = res.Rows.Tag()
	res.Rows.Close()
}

// BenchmarkSimpleSelect1 is the simple protocol's path: split, prepare and
// execute the same text every time.
func BenchmarkSimpleSelect1(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	b.ReportAllocs()
	for b.Loop() {
		stmts, err := s.Split("SELECT 1;")
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range stmts {
			p, err := s.Prepare(ctx, q, nil)
			if err != nil {
				b.Fatal(err)
			}
			drainBench(b, ctx, s, p)
		}
	}
}

// BenchmarkPreparedSelect1 executes one prepared statement repeatedly.
func BenchmarkPreparedSelect1(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	p, err := s.Prepare(ctx, "SELECT 1", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		drainBench(b, ctx, s, p)
	}
}

// benchTable makes a small table for the table benchmarks.
func benchTable(b *testing.B, ctx context.Context, s *Session) {
	b.Helper()
	for _, q := range []string{"CREATE TABLE bt (id INT, name TEXT)", "INSERT INTO bt VALUES (1, 'a'), (2, 'b'), (3, 'c')"} {
		p, err := s.Prepare(ctx, q, nil)
		if err != nil {
			b.Fatal(err)
		}
		drainBench(b, ctx, s, p)
	}
}

// BenchmarkPlanCacheSimpleTable is the simple protocol's path for a query
// over a table: prepare and execute the same text every time.
func BenchmarkPlanCacheSimpleTable(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	benchTable(b, ctx, s)
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.Prepare(ctx, "SELECT id, name FROM bt WHERE id > 1", nil)
		if err != nil {
			b.Fatal(err)
		}
		drainBench(b, ctx, s, p)
	}
}

// BenchmarkPlanCachePreparedTable executes one prepared query over a table
// repeatedly, nothing changing in between.
func BenchmarkPlanCachePreparedTable(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	benchTable(b, ctx, s)
	p, err := s.Prepare(ctx, "SELECT id, name FROM bt WHERE id > 1", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		drainBench(b, ctx, s, p)
	}
}

// benchQuery parses the table benchmarks' query.
func benchQuery(b *testing.B) *sql.Select {
	b.Helper()
	st, err := sql.ParseOne("SELECT id, name FROM bt WHERE id > 1")
	if err != nil {
		b.Fatal(err)
	}
	return st.(*sql.Select)
}

// BenchmarkPlanCacheBind binds the table query: what an execution that
// cannot reuse its plan pays before it runs.
func BenchmarkPlanCacheBind(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	benchTable(b, ctx, s)
	st := benchQuery(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.Plan(ctx, s.queryEnv(), st, sql.NewParams(nil)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanCacheCheck checks that the table query's plan is current:
// what an execution that reuses its plan pays instead.
func BenchmarkPlanCacheCheck(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	benchTable(b, ctx, s)
	q, err := engine.Plan(ctx, s.queryEnv(), benchQuery(b), sql.NewParams(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := q.Current(ctx); err != nil || !ok {
			b.Fatal("not current", err)
		}
	}
}
