package session

import (
	"fmt"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// TestBranchesAndTags: tags and branches name snapshots; FOR VERSION AS
// OF 'name' reads the rows the table had when they were made (a model
// kept beside), after later writes and after expire_snapshots (a named
// snapshot outlives expiry); fast_forward moves a branch only forward;
// set_current_snapshot points main at any snapshot; iceberg-go sees the
// refs; misuses answer with their SQLSTATEs.
func TestBranchesAndTags(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE bt (id int)")
	mustFail(t, s, pgerr.ObjectNotInPrerequisiteState, "ALTER TABLE bt CREATE TAG nothing")
	model := map[string]string{}
	count := func(q string) string { return mustQuery(t, s, q).text() }
	for k := 1; k <= 3; k++ {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO bt SELECT g FROM generate_series(%d, %d) g", k*10, k*10+k))
		tag := fmt.Sprintf("t%d", k)
		mustQuery(t, s, "ALTER TABLE bt CREATE TAG "+tag+" RETAIN 30 DAYS")
		model[tag] = count("SELECT count(*), sum(id) FROM bt")
	}
	mustQuery(t, s, "ALTER TABLE bt CREATE BRANCH audit AS OF VERSION "+mustQuery(t, s, `SELECT snapshot_id FROM "bt$refs" WHERE name = 't1'`).rows[0][0])
	model["audit"] = model["t1"]
	mustQuery(t, s, "DELETE FROM bt WHERE id % 2 = 0")
	model["main"] = count("SELECT count(*), sum(id) FROM bt")
	mustQuery(t, s, "ALTER TABLE bt EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
	for name, want := range model {
		if got := count("SELECT count(*), sum(id) FROM bt FOR VERSION AS OF '" + name + "'"); got != want {
			t.Errorf("as of %s: %q, want %q", name, got, want)
		}
	}
	if got := count(`SELECT name, type FROM "bt$refs" ORDER BY name`); got != "audit|BRANCH\nmain|BRANCH\nt1|TAG\nt2|TAG\nt3|TAG\n" {
		t.Errorf("refs:\n%s", got)
	}
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "bt"))
	if err != nil || tbl.Metadata().SnapshotByName("t2") == nil {
		t.Fatalf("iceberg-go does not see tag t2: %v", err)
	}

	mustFail(t, s, pgerr.ObjectNotInPrerequisiteState, "ALTER TABLE bt EXECUTE fast_forward(branch => 'main', to => 'audit')")
	mustQuery(t, s, "ALTER TABLE bt EXECUTE fast_forward(branch => 'audit', to => 'main')")
	if got := count("SELECT count(*), sum(id) FROM bt FOR VERSION AS OF 'audit'"); got != model["main"] {
		t.Errorf("audit after fast_forward: %q, want %q", got, model["main"])
	}
	mustQuery(t, s, "ALTER TABLE bt EXECUTE set_current_snapshot(ref => 't2')")
	if got := count("SELECT count(*), sum(id) FROM bt"); got != model["t2"] {
		t.Errorf("main after set_current_snapshot: %q, want %q", got, model["t2"])
	}
	mustQuery(t, s, "ALTER TABLE bt REPLACE BRANCH audit AS OF VERSION "+mustQuery(t, s, `SELECT snapshot_id FROM "bt$refs" WHERE name = 't3'`).rows[0][0])
	if got := count("SELECT count(*), sum(id) FROM bt FOR VERSION AS OF 'audit'"); got != model["t3"] {
		t.Errorf("audit replaced: %q, want %q", got, model["t3"])
	}
	for q, code := range map[string]pgerr.Code{
		"ALTER TABLE bt CREATE TAG t1":                                  pgerr.DuplicateObject,
		"ALTER TABLE bt CREATE BRANCH t1":                               pgerr.WrongObjectType,
		"ALTER TABLE bt DROP BRANCH t1":                                 pgerr.WrongObjectType,
		"ALTER TABLE bt DROP TAG nope":                                  pgerr.UndefinedObject,
		"ALTER TABLE bt REPLACE TAG nope":                               pgerr.UndefinedObject,
		"ALTER TABLE bt CREATE TAG x AS OF VERSION 12345":               pgerr.InvalidParameterValue,
		"ALTER TABLE bt DROP BRANCH main":                               pgerr.InvalidParameterValue,
		"SELECT * FROM bt FOR VERSION AS OF 'nope'":                     pgerr.UndefinedObject,
		"ALTER TABLE bt EXECUTE set_current_snapshot(snapshot_id => 1)": pgerr.InvalidParameterValue,
		"ALTER TABLE bt EXECUTE fast_forward(branch => 'main')":         pgerr.InvalidParameterValue,
	} {
		mustFail(t, s, code, q)
	}
	mustQuery(t, s, "ALTER TABLE bt DROP TAG t1")
	mustQuery(t, s, "ALTER TABLE bt DROP TAG IF EXISTS t1")
	mustQuery(t, s, "ALTER TABLE bt CREATE TAG IF NOT EXISTS t2")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.ActiveSQLTransaction, "ALTER TABLE bt CREATE TAG inblock")
}
