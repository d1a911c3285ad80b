package session

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// The embedded catalog commits a block's tables in one SQLite transaction:
// two engines on one data directory, as a repl and a server would be.
func TestBlockCommitsAtomicallyOnEmbeddedCatalog(t *testing.T) {
	dir := t.TempDir()
	var txs atomic.Int32
	cfg := lake.Config{DataDir: dir,
		WrapCatalog: func(c catalog.Catalog) catalog.Catalog { return countingTx{c, &txs} }}
	checkBlockAtomic(t, testEngineWith(t, cfg), testEngineWith(t, cfg), &txs)
}

// countingTx forwards the REST catalog's multi-table commits and counts them.
type countingTx struct {
	catalog.Catalog
	n *atomic.Int32
}

func (c countingTx) CommitTransaction(ctx context.Context, commits []table.TableCommit) error {
	c.n.Add(1)
	return c.Catalog.(catalog.TransactionalCatalog).CommitTransaction(ctx, commits)
}

// checkBlockAtomic: a block that changed two tables commits them as one
// transaction of the catalog, counted in txs. A concurrent DELETE (of
// engine b, as another server would) of another row of the same file is
// rebased under it, and one of the same row fails the whole block (40001)
// with neither table changed — one by one, the first table would have been
// committed before the second failed (40003).
func checkBlockAtomic(t *testing.T, engA, engB *Engine, txs *atomic.Int32) {
	a, b := testSessionOn(t, engA), testSessionOn(t, engB)
	mustQuery(t, a, "CREATE TABLE t1 (id int, s text) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, a, "CREATE TABLE t2 (id int, s text) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')")
	for _, n := range []string{"t1", "t2"} {
		mustQuery(t, a, "INSERT INTO "+n+" VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
	}
	snapshots := func(n string) string {
		return mustQuery(t, b, `SELECT count(*) FROM "`+n+`$snapshots"`).text()
	}
	reads := func(want1, want2 string) {
		t.Helper()
		for _, s := range []*Session{a, b} {
			got1 := mustQuery(t, s, "SELECT string_agg(id::text, ',' ORDER BY id) FROM t1").text()
			got2 := mustQuery(t, s, "SELECT string_agg(id::text, ',' ORDER BY id) FROM t2").text()
			if got1 != want1+"\n" || got2 != want2+"\n" {
				t.Fatalf("t1 = %q, t2 = %q; want %q and %q", got1, got2, want1, want2)
			}
		}
	}

	mustQuery(t, a, "BEGIN")
	mustQuery(t, a, "DELETE FROM t1 WHERE id = 1")
	mustQuery(t, a, "DELETE FROM t2 WHERE id = 1")
	mustQuery(t, b, "DELETE FROM t2 WHERE id = 4")
	before1, before2 := snapshots("t1"), snapshots("t2")
	mustQuery(t, a, "COMMIT")
	reads("2,3,4", "2,3")
	// The first try loses to b's DELETE (t2 moved), the rebased one lands.
	if txs.Load() != 2 {
		t.Fatalf("%d multi-table commits, want 2", txs.Load())
	}
	if snapshots("t1") == before1 || snapshots("t2") == before2 {
		t.Fatal("the block's COMMIT added no snapshot")
	}

	mustQuery(t, a, "BEGIN")
	mustQuery(t, a, "DELETE FROM t1 WHERE id = 2")
	mustQuery(t, a, "DELETE FROM t2 WHERE id = 2")
	mustQuery(t, b, "DELETE FROM t2 WHERE id = 2")
	before1 = snapshots("t1")
	mustFail(t, a, pgerr.SerializationFailure, "COMMIT")
	reads("2,3,4", "3")
	if got := snapshots("t1"); got != before1 {
		t.Fatalf("t1 has %s snapshots after the failed block, had %s", got, before1)
	}
	mustQuery(t, a, "DELETE FROM t1 WHERE id = 3") // the session goes on
	reads("2,4", "3")
}

// The SQL catalog on PostgreSQL commits a block's tables in one
// PostgreSQL transaction; two engines on it, as two servers would be.
func TestBlockCommitsAtomicallyOnPostgresCatalog(t *testing.T) {
	pg := pgtest.Start(t)
	pg.CreateDatabase(t, "catalog")
	var txs atomic.Int32
	cfg := lake.Config{CatalogName: "pg", WarehouseURI: "file://" + t.TempDir(),
		CatalogProps: map[string]string{"type": "sql", "uri": pg.URL("catalog"), "sql.dialect": "postgres"},
		WrapCatalog:  func(c catalog.Catalog) catalog.Catalog { return countingTx{c, &txs} }}
	checkBlockAtomic(t, testEngineWith(t, cfg), testEngineWith(t, cfg), &txs)
}
