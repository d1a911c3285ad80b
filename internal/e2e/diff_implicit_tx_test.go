package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/wire"
)

// TestDiffImplicitTransactions: the statements of one multi-statement Query,
// and of one extended-protocol pipeline up to Sync, are one implicit
// transaction (an error undoes them all; BEGIN makes it explicit; COMMIT
// inside ends it with a warning; SAVEPOINT is refused; VACUUM refuses to
// join it), as on PostgreSQL 15. The program prints every result, notice
// and transaction status, and the table after each step.
func TestDiffImplicitTransactions(t *testing.T) {
	differential(t, func(t *testing.T, d diffTarget) string {
		p := &implicitProgram{t: t}
		cfg, err := pgconn.ParseConfig(fmt.Sprintf("postgres://%s@%s/e2e?sslmode=disable", d.User, d.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			p.printf("  notice %s %s %s", n.Severity, n.Code, n.Message)
		}
		if p.conn, err = pgconn.ConnectConfig(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		defer p.conn.Close(context.Background())
		p.run()
		return p.out.String()
	})
}

type implicitProgram struct {
	t    *testing.T
	conn *pgconn.PgConn
	out  strings.Builder
}

func (p *implicitProgram) printf(format string, args ...any) {
	fmt.Fprintf(&p.out, format+"\n", args...)
}

// simple sends q as one Query message and prints each statement's result.
func (p *implicitProgram) simple(q string) {
	p.printf("query %s", q)
	results, err := p.conn.Exec(context.Background(), q).ReadAll()
	for _, r := range results {
		p.printResult(r.CommandTag.String(), r.Rows, r.Err)
	}
	if err != nil && (len(results) == 0 || results[len(results)-1].Err == nil) {
		p.printf("  error %s", errState(err))
	}
	p.printf("  status %c", p.conn.TxStatus())
}

func (p *implicitProgram) printResult(tag string, rows [][][]byte, err error) {
	if err != nil {
		p.printf("  error %s", errState(err))
		return
	}
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = string(v)
			if v == nil {
				vals[i] = "NULL"
			}
		}
		p.printf("  row %s", strings.Join(vals, "|"))
	}
	p.printf("  tag %s", tag)
}

// step is one request of a pipeline: a statement, or a Flush ("flush").
type step = string

// pipeline sends the statements with the extended protocol, a Sync after
// the last (and Flush where a step says "flush"), and prints every result.
func (p *implicitProgram) pipeline(steps ...step) {
	p.printf("pipeline %s", strings.Join(steps, " | "))
	ctx := context.Background()
	pl := p.conn.StartPipeline(ctx)
	queries := 0
	for _, s := range steps {
		if s == "flush" {
			pl.SendFlushRequest()
			continue
		}
		pl.SendQueryParams(s, nil, nil, nil, nil)
		queries++
	}
	pl.SendPipelineSync()
	if err := pl.Flush(); err != nil {
		p.t.Fatal(err)
	}
	for {
		res, err := pl.GetResults()
		if err != nil {
			p.printf("  error %s", errState(err))
			var pg *pgconn.PgError
			if !errors.As(err, &pg) {
				break
			}
			continue
		}
		switch r := res.(type) {
		case *pgconn.ResultReader:
			rr := r.Read()
			p.printResult(rr.CommandTag.String(), rr.Rows, rr.Err)
			continue
		case *pgconn.PipelineSync:
			p.printf("  sync")
		case nil:
		}
		break
	}
	if err := pl.Close(); err != nil {
		p.printf("  close %s", errState(err))
	}
	p.printf("  status %c", p.conn.TxStatus())
}

func errState(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	return "client: " + err.Error()
}

func (p *implicitProgram) table() { p.simple("SELECT id, v FROM it ORDER BY id") }

func (p *implicitProgram) run() {
	p.simple("DROP TABLE IF EXISTS it")
	p.simple("CREATE TABLE it (id int, v text)")

	// Multi-statement queries.
	p.simple("INSERT INTO it VALUES (1, 'a'); INSERT INTO it VALUES (2, 'b'); SELECT count(*) FROM it")
	p.table()
	p.simple("INSERT INTO it VALUES (3, 'c'); DELETE FROM it WHERE id = 1; SELECT 1/0; INSERT INTO it VALUES (4, 'd')")
	p.table()
	p.simple("UPDATE it SET v = 'x' WHERE id = 2; COMMIT; INSERT INTO it VALUES (5, 'e'); SELECT 1/0")
	p.table()
	p.simple("INSERT INTO it VALUES (6, 'f'); ROLLBACK; INSERT INTO it VALUES (7, 'g')")
	p.table()
	p.simple("INSERT INTO it VALUES (8, 'h'); BEGIN; INSERT INTO it VALUES (9, 'i')")
	p.simple("SELECT count(*) FROM it")
	p.simple("ROLLBACK")
	p.table()
	p.simple("INSERT INTO it VALUES (10, 'j'); SAVEPOINT a; INSERT INTO it VALUES (11, 'k')")
	p.table()
	p.simple("INSERT INTO it VALUES (12, 'l'); VACUUM it")
	p.table()
	p.simple("SET search_path = nowhere; SELECT 1/0")
	p.simple("SHOW search_path")
	p.simple("SET LOCAL search_path = nowhere; SHOW search_path")
	p.simple("SHOW search_path")
	p.simple("CREATE TABLE it2 (id int); INSERT INTO it2 VALUES (1), (2); SELECT count(*) FROM it2")
	p.simple("SELECT count(*) FROM it2")
	p.simple("DROP TABLE it2; SELECT count(*) FROM it2")
	p.simple("SELECT count(*) FROM it2")
	p.simple("CREATE TABLE it3 (id int); INSERT INTO it3 VALUES (1); SELECT 1/0")
	p.simple("SELECT count(*) FROM it3")
	p.simple("BEGIN; INSERT INTO it VALUES (13, 'm'); SELECT 1/0; INSERT INTO it VALUES (14, 'n')")
	p.simple("ROLLBACK")
	p.table()

	// Pipelines up to Sync.
	p.pipeline("INSERT INTO it VALUES (20, 'p')")
	p.pipeline("INSERT INTO it VALUES (21, 'q')", "INSERT INTO it VALUES (22, 'r')", "SELECT count(*) FROM it")
	p.table()
	p.pipeline("INSERT INTO it VALUES (23, 's')", "DELETE FROM it WHERE id = 20", "SELECT 1/0", "INSERT INTO it VALUES (24, 't')")
	p.table()
	p.pipeline("INSERT INTO it VALUES (25, 'u')", "flush", "INSERT INTO it VALUES (26, 'v')", "flush", "SELECT 1/0")
	p.table()
	p.pipeline("INSERT INTO it VALUES (27, 'w')", "flush")
	p.table()
	p.pipeline("UPDATE it SET v = 'y' WHERE id = 21", "COMMIT", "INSERT INTO it VALUES (28, 'x')", "SELECT 1/0")
	p.table()
	p.pipeline("INSERT INTO it VALUES (29, 'y')", "BEGIN", "INSERT INTO it VALUES (30, 'z')")
	p.pipeline("SELECT count(*) FROM it", "ROLLBACK")
	p.table()
	p.pipeline("BEGIN", "INSERT INTO it VALUES (31, 'a')", "COMMIT")
	p.table()
	p.pipeline("VACUUM it")
	p.pipeline("CREATE TABLE it4 (id int)", "INSERT INTO it4 VALUES (1), (2)", "SELECT count(*) FROM it4")
	p.simple("SELECT count(*) FROM it4")
	p.pipeline("SELECT 1/0")
	p.pipeline("SELECT 1", "SELECT 1/0", "SELECT 2")
	p.pipeline("SELECT 3")
	p.table()
}

// TestPipelineBatchIsOneSnapshot: a pgx batch of one-row INSERTs in
// autocommit (one pipeline, one Sync) commits one snapshot and one data
// file, and a batch that fails half-way commits nothing.
func TestPipelineBatchIsOneSnapshot(t *testing.T) {
	srv := startServer(t, wire.AuthTrust)
	conn := pgxConnect(t, srv, "", pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE b (id int, v text)"); err != nil {
		t.Fatal(err)
	}
	const n = 500
	batch := &pgx.Batch{}
	for i := range n {
		batch.Queue("INSERT INTO b VALUES ($1, $2)", i, fmt.Sprint("v", i))
	}
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		var c int
		if err := conn.QueryRow(ctx, q).Scan(&c); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return c
	}
	if got := count("SELECT count(*) FROM b"); got != n {
		t.Fatalf("rows after the batch: %d, want %d", got, n)
	}
	if got := count(`SELECT count(*) FROM "b$snapshots"`); got != 1 {
		t.Fatalf("snapshots after the batch: %d, want 1", got)
	}
	if got := count(`SELECT count(*) FROM "b$files"`); got != 1 {
		t.Fatalf("data files after the batch: %d, want 1", got)
	}
	bad := &pgx.Batch{}
	bad.Queue("INSERT INTO b VALUES ($1, 'x')", -1)
	bad.Queue("INSERT INTO b VALUES ($1, 'x')", "not a number")
	bad.Queue("INSERT INTO b VALUES ($1, 'x')", -3)
	if err := conn.SendBatch(ctx, bad).Close(); err == nil {
		t.Fatal("the failing batch succeeded")
	}
	if got := count("SELECT count(*) FROM b"); got != n {
		t.Fatalf("rows after the failed batch: %d, want %d", got, n)
	}
	if got := count(`SELECT count(*) FROM "b$snapshots"`); got != 1 {
		t.Fatalf("snapshots after the failed batch: %d, want 1", got)
	}
}
