package session

import (
	"fmt"
	"slices"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestRewriteManifests: a merge-on-read DELETE, then 30 autocommit
// INSERTs on a table that merges manifests only past 1,000 (as another
// engine's writes may leave it) leave a delete manifest and a data
// manifest per INSERT; ALTER TABLE ... EXECUTE
// rewrite_manifests replaces them with one, in one replace snapshot, the
// delete manifest kept, and the rows the same through SQL and through
// iceberg-go's scan. A second run changes nothing; in a block, with an
// argument or a WHERE it is refused.
func TestRewriteManifests(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE rm (id int, v text) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'commit.manifest.min-count-to-merge' = '1000')")
	mustQuery(t, s, "INSERT INTO rm VALUES (-1, 'a'), (-2, 'b')")
	mustQuery(t, s, "DELETE FROM rm WHERE id = -1")
	for i := range 30 {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO rm VALUES (%d, 'v%d')", i, i))
	}
	manifests := func() (data, deletes string) {
		r := mustQuery(t, s, `SELECT count(*) FILTER (WHERE content = 0), count(*) FILTER (WHERE content = 1) FROM "rm$manifests"`)
		return r.rows[0][0], r.rows[0][1]
	}
	if d, del := manifests(); d != "31" || del != "1" {
		t.Fatalf("before: %s data and %s delete manifests, want 31 and 1", d, del)
	}
	sqlBefore := mustQuery(t, s, "SELECT id, v FROM rm ORDER BY id").rows
	iceBefore := fndSorted(fndIcebergRows(t, s, "public", "rm"))
	snapsBefore := mustQuery(t, s, `SELECT count(*) FROM "rm$snapshots"`).rows[0][0]

	r := mustQuery(t, s, "ALTER TABLE rm EXECUTE rewrite_manifests")
	if r.tag != "ALTER TABLE" || fmt.Sprint(r.rows) != "[[31 1]]" {
		t.Fatalf("rewrite_manifests: %s %v, want ALTER TABLE [[31 1]]", r.tag, r.rows)
	}
	if d, del := manifests(); d != "1" || del != "1" {
		t.Errorf("after: %s data and %s delete manifests, want 1 and 1", d, del)
	}
	if got := mustQuery(t, s, "SELECT id, v FROM rm ORDER BY id").rows; fmt.Sprint(got) != fmt.Sprint(sqlBefore) {
		t.Errorf("rows changed:\n got %v\nwant %v", got, sqlBefore)
	}
	if got := fndSorted(fndIcebergRows(t, s, "public", "rm")); !slices.EqualFunc(got, iceBefore, slices.Equal) {
		t.Errorf("iceberg-go reads other rows after the rewrite")
	}
	ops := mustQuery(t, s, `SELECT operation FROM "rm$snapshots" ORDER BY committed_at DESC, snapshot_id LIMIT 1`).rows
	if len(ops) != 1 || ops[0][0] != "replace" {
		t.Errorf("newest snapshot operation %v, want replace", ops)
	}
	if r := mustQuery(t, s, "ALTER TABLE rm EXECUTE rewrite_manifests"); fmt.Sprint(r.rows) != "[[0 0]]" {
		t.Errorf("second rewrite: %v, want [[0 0]]", r.rows)
	}
	if got := mustQuery(t, s, `SELECT count(*) FROM "rm$snapshots"`).rows[0][0]; got == snapsBefore || got != fmt.Sprint(mustAtoi(t, snapsBefore)+1) {
		t.Errorf("%s snapshots after two rewrites, want %s + 1", got, snapsBefore)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE rm EXECUTE rewrite_manifests(spec_id => 0)")
	mustFail(t, s, pgerr.SyntaxError, "ALTER TABLE rm EXECUTE rewrite_manifests WHERE id = 1")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.ActiveSQLTransaction, "ALTER TABLE rm EXECUTE rewrite_manifests")
	mustQuery(t, s, "ROLLBACK")
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
