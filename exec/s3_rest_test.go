package exec

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/internal/s3test"
)

// The REST catalog of SeaweedFS (weed mini) with its S3: two engines, as
// two servers would be, on one catalog; merge-on-read DELETE and UPDATE
// on v2 and v3 tables, and each engine reads what the other committed.
func TestS3RESTCatalog(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	cfg := iceberg.Config{CatalogName: "rest", CatalogProps: srv.RESTProps("warehouse")}
	a := testSessionOn(t, testEngineWith(t, cfg))
	b := testSessionOn(t, testEngineWith(t, cfg))
	for _, v := range []string{"2", "3"} {
		name := "r_v" + v
		mustQuery(t, a, "CREATE TABLE "+name+" (id int, s text) WITH ('format-version' = '"+v+"', "+
			"'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')")
		mustQuery(t, a, "INSERT INTO "+name+" VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
		mustQuery(t, b, "DELETE FROM "+name+" WHERE id = 2")
		mustQuery(t, a, "UPDATE "+name+" SET s = 'x' WHERE id = 3")
		mustQuery(t, b, "INSERT INTO "+name+" VALUES (5, 'e')")
		want := "1|a\n3|x\n4|d\n5|e\n"
		for _, s := range []*Session{a, b} {
			if got := mustQuery(t, s, "SELECT * FROM "+name+" ORDER BY id").text(); got != want {
				t.Fatalf("%s reads\n%s\nwant\n%s", name, got, want)
			}
		}
		t.Log(fndTableDir(t, a, "public", name))
	}
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

// A BEGIN ... COMMIT block that changed two tables commits them in one
// REST transaction: a concurrent DELETE of another row of the same file is
// rebased under it, and one of the same row fails the whole block (40001)
// with neither table changed — one by one, the first table would have
// been committed before the second failed (40003).
func TestS3RESTBlockCommitsAtomically(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	var txs atomic.Int32
	cfg := iceberg.Config{CatalogName: "rest", CatalogProps: srv.RESTProps("warehouse"),
		WrapCatalog: func(c catalog.Catalog) catalog.Catalog { return countingTx{c, &txs} }}
	a := testSessionOn(t, testEngineWith(t, cfg))
	b := testSessionOn(t, testEngineWith(t, cfg))
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
	mustFail(t, a, "40001", "COMMIT")
	reads("2,3,4", "3")
	if got := snapshots("t1"); got != before1 {
		t.Fatalf("t1 has %s snapshots after the failed block, had %s", got, before1)
	}
	mustQuery(t, a, "DELETE FROM t1 WHERE id = 3") // the session goes on
	reads("2,4", "3")
}
