package session

import (
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/catalog"

	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/lake"
)

// The REST catalog of SeaweedFS (weed mini) with its S3: two engines, as
// two servers would be, on one catalog; merge-on-read DELETE and UPDATE
// on v2 and v3 tables, and each engine reads what the other committed.
func TestS3RESTCatalog(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	cfg := lake.Config{CatalogName: "rest", CatalogProps: srv.RESTProps("warehouse")}
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

// A BEGIN ... COMMIT block that changed two tables commits them in one
// REST transaction (see checkBlockAtomic).
func TestS3RESTBlockCommitsAtomically(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	var txs atomic.Int32
	cfg := lake.Config{CatalogName: "rest", CatalogProps: srv.RESTProps("warehouse"),
		WrapCatalog: func(c catalog.Catalog) catalog.Catalog { return countingTx{c, &txs} }}
	checkBlockAtomic(t, testEngineWith(t, cfg), testEngineWith(t, cfg), &txs)
}

// Writes to a branch and to main from two engines on the REST catalog
// interleave: each engine plans on the table the other moved (a commit to
// one ref takes the next sequence number from the other's), both refs end
// as written, and each engine reads both.
func TestS3RESTBranchWrites(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	cfg := lake.Config{CatalogName: "rest", CatalogProps: srv.RESTProps("warehouse")}
	a := testSessionOn(t, testEngineWith(t, cfg))
	b := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, a, "CREATE TABLE rb (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, a, "INSERT INTO rb VALUES (1), (2), (3), (4)")
	mustQuery(t, a, "ALTER TABLE rb CREATE BRANCH audit")
	mustQuery(t, a, "SET magmalake.branch = 'audit'")
	mustQuery(t, a, "DELETE FROM rb WHERE id = 2")
	mustQuery(t, b, "INSERT INTO rb VALUES (5)")
	mustQuery(t, a, "INSERT INTO rb VALUES (6)")
	mustQuery(t, b, "DELETE FROM rb WHERE id = 1")
	mustQuery(t, a, "DELETE FROM rb WHERE id = 3")
	for _, s := range []*Session{a, b} {
		if got := mustQuery(t, s, `SELECT id FROM "rb@audit" ORDER BY id`).text(); got != "1\n4\n6\n" {
			t.Fatalf("the branch reads\n%s", got)
		}
		if got := mustQuery(t, s, `SELECT id FROM "rb@main" ORDER BY id`).text(); got != "2\n3\n4\n5\n" {
			t.Fatalf("main reads\n%s", got)
		}
	}
}
