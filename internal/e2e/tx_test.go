package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// txIDs reads the sorted ids of a table as a comma-separated string.
func txIDs(t *testing.T, conn *pgx.Conn, table string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT id FROM "+table+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ",")
}

func mustExec(t *testing.T, conn *pgx.Conn, q string, args ...any) string {
	t.Helper()
	tag, err := conn.Exec(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return tag.String()
}

// Transaction blocks over the wire with pgx, in both protocols: commit and
// rollback of every kind of DML, reading the block's own writes, and two
// sessions changing the same rows.
func TestPgxTransactions(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	ctx := context.Background()
	for name, mode := range map[string]pgx.QueryExecMode{"simple": pgx.QueryExecModeSimpleProtocol, "extended": pgx.QueryExecModeCacheStatement} {
		t.Run(name, func(t *testing.T) {
			table := "tx_" + name
			a := pgxConnect(t, s, "", mode)
			b := pgxConnect(t, s, "", mode)
			mustExec(t, a, "CREATE TABLE "+table+" (id bigint, grp int) PARTITIONED BY (grp) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
			mustExec(t, a, "INSERT INTO "+table+" VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3)")
			start := txIDs(t, a, table)

			tx, err := a.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tag, err := tx.Exec(ctx, "DELETE FROM "+table+" WHERE id = $1", int64(1)); err != nil || tag.String() != "DELETE 1" {
				t.Fatalf("delete: %v %v", tag, err)
			}
			if tag, err := tx.Exec(ctx, "UPDATE "+table+" SET id = id + 100 WHERE id = $1", int64(2)); err != nil || tag.String() != "UPDATE 1" {
				t.Fatalf("update: %v %v", tag, err)
			}
			if tag, err := tx.Exec(ctx, "INSERT INTO "+table+" VALUES (6, 3)"); err != nil || tag.String() != "INSERT 0 1" {
				t.Fatalf("insert: %v %v", tag, err)
			}
			if tag, err := tx.Exec(ctx, "INSERT OVERWRITE "+table+" PARTITION (grp = 2) VALUES (40)"); err != nil || tag.String() != "INSERT 0 1" {
				t.Fatalf("overwrite: %v %v", tag, err)
			}
			rows, err := tx.Query(ctx, "SELECT id FROM "+table+" ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				t.Fatal(err)
			}
			inBlock := fmt.Sprint(ids)
			if inBlock != "[5 6 40 102]" {
				t.Fatalf("inside the block: %s", inBlock)
			}
			if got := txIDs(t, b, table); got != start {
				t.Fatalf("the other session sees %s before COMMIT", got)
			}
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if got := txIDs(t, a, table); got != start {
				t.Fatalf("after ROLLBACK: %s", got)
			}

			// The same block, committed.
			tx, _ = a.Begin(ctx)
			mustExecTx(t, tx, "DELETE FROM "+table+" WHERE id = 1")
			mustExecTx(t, tx, "UPDATE "+table+" SET id = id + 100 WHERE id = 2")
			mustExecTx(t, tx, "INSERT INTO "+table+" VALUES (6, 3)")
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if got := txIDs(t, b, table); got != "3,4,5,6,102" {
				t.Fatalf("after COMMIT the other session sees %s", got)
			}

			// Overlapping changes: the second COMMIT fails with 40001.
			tx, _ = a.Begin(ctx)
			mustExecTx(t, tx, "DELETE FROM "+table+" WHERE id = 3")
			mustExec(t, b, "DELETE FROM "+table+" WHERE id IN (3, 4)")
			if err := tx.Commit(ctx); sqlState(err) != pgerr.SerializationFailure {
				t.Fatalf("overlapping COMMIT: %v", err)
			}
			if got := txIDs(t, a, table); got != "5,6,102" {
				t.Fatalf("after the conflict: %s", got)
			}
		})
	}
}

func mustExecTx(t *testing.T, tx pgx.Tx, q string) {
	t.Helper()
	if _, err := tx.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// psycopg2 opens a transaction before every statement: rollback() must undo
// a DELETE and commit() must publish it.
func TestPsycopg2Transactions(t *testing.T) {
	py := testenv.Python(t, "psycopg2", "python3-psycopg2")
	s := startServer(t, wire.AuthTrust)
	sc := newScenario("py_tx")
	out := runProgram(t, sc.env(s, ""), py, "-c", `
import os, psycopg2
conn = psycopg2.connect(host=os.environ["E2E_HOST"], port=os.environ["E2E_PORT"], user=os.environ["E2E_USER"], dbname="e2e")
conn.autocommit = True
cur = conn.cursor()
cur.execute("CREATE TABLE py_tx (id bigint)")
cur.execute("INSERT INTO py_tx VALUES (1), (2), (3)")
conn.autocommit = False
cur.execute("DELETE FROM py_tx WHERE id = %s", (1,))
print("deleted", cur.rowcount)
cur.execute("SELECT count(*) FROM py_tx")
print("in block", cur.fetchone()[0])
conn.rollback()
cur.execute("SELECT count(*) FROM py_tx")
print("after rollback", cur.fetchone()[0])
cur.execute("DELETE FROM py_tx WHERE id = %s", (2,))
conn.commit()
cur.execute("SELECT id FROM py_tx ORDER BY id")
print("after commit", [r[0] for r in cur.fetchall()])
try:
    cur.execute("SELECT * FROM missing")
except psycopg2.Error as e:
    print("error", e.pgcode)
try:
    cur.execute("SELECT 1")
except psycopg2.Error as e:
    print("then", e.pgcode)
conn.rollback()
cur.execute("SELECT count(*) FROM py_tx")
print("usable", cur.fetchone()[0])
`)
	want := "deleted 1\nin block 2\nafter rollback 3\nafter commit [1, 3]\nerror " + string(pgerr.UndefinedTable) + "\nthen " + string(pgerr.InFailedSQLTransaction) + "\nusable 2\n"
	if out != want {
		t.Fatalf("psycopg2 transcript:\n%s\nwant:\n%s", out, want)
	}
}
