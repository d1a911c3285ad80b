package session

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// rowModel is a table's rows as id → v, kept beside the statements.
type rowModel map[int]int

func (m rowModel) text() string {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%d|%d\n", id, m[id])
	}
	return b.String()
}

func (m rowModel) clone() rowModel { return maps.Clone(m) }

// newRowModel is ids lo..hi with v = id * 10.
func newRowModel(lo, hi int) rowModel {
	m := rowModel{}
	for id := lo; id <= hi; id++ {
		m[id] = id * 10
	}
	return m
}

func checkModelRows(t *testing.T, s *Session, what, q string, want rowModel) {
	t.Helper()
	if got := mustQuery(t, s, q).text(); got != want.text() {
		t.Fatalf("%s: %s\n got  %q\n want %q", what, q, got, want.text())
	}
}

// TestCherrypickSnapshot: snapshots written on a branch (an append, a
// delete, an update) are applied to main, which meanwhile deleted a row of
// its own; main ends as a model of both says, the branch unchanged, and
// iceberg-go reads main the same. A delete of rows of a file main rewrote
// (copy-on-write) or gave equality deletes is refused (55000) and changes
// nothing; so are picking twice, a
// snapshot of main's own history and one that does not exist. A snapshot
// whose parent is main's head fast-forwards main to it.
func TestCherrypickSnapshot(t *testing.T) {
	for _, mode := range auditModes {
		t.Run(mode.name, func(t *testing.T) {
			s := testSession(t)
			for _, q := range mode.settings {
				mustQuery(t, s, q)
			}
			mustQuery(t, s, "CREATE TABLE w (id int, v int) "+mode.with)
			mustQuery(t, s, "INSERT INTO w SELECT g, g * 10 FROM generate_series(1, 100) g")
			mustQuery(t, s, "INSERT INTO w SELECT g, g * 10 FROM generate_series(101, 200) g")
			main := newRowModel(1, 200)
			mustQuery(t, s, "ALTER TABLE w CREATE BRANCH audit")
			mustQuery(t, s, "SET magmalake.branch = 'audit'")
			branch := main.clone()
			var picks []string
			for _, step := range []struct {
				q     string
				apply func(rowModel)
			}{
				{"INSERT INTO w SELECT g, g * 10 FROM generate_series(201, 210) g", func(m rowModel) {
					for id := 201; id <= 210; id++ {
						m[id] = id * 10
					}
				}},
				{"DELETE FROM w WHERE id BETWEEN 1 AND 10", func(m rowModel) {
					for id := 1; id <= 10; id++ {
						delete(m, id)
					}
				}},
				{"UPDATE w SET v = 0 WHERE id = 150", func(m rowModel) { m[150] = 0 }},
			} {
				mustQuery(t, s, step.q)
				step.apply(branch)
				picks = append(picks, refID(t, s, "audit"))
				step.apply(main) // what main should end with, unless refused below
			}
			mustQuery(t, s, "RESET magmalake.branch")
			mustQuery(t, s, "DELETE FROM w WHERE id = 50")
			delete(main, 50)
			own := refID(t, s, "main")

			// Copy-on-write: the branch rewrote the file main rewrote too.
			// Equality deletes: main's may have removed rows the branch's
			// position deletes name, and the rebase cannot tell.
			refused := mode.name == "v2-cow" || mode.name == "v2-equality"
			for i, id := range picks {
				q := "ALTER TABLE w EXECUTE cherrypick_snapshot(snapshot_id => " + id + ")"
				if i == 1 && refused {
					mustFail(t, s, pgerr.ObjectNotInPrerequisiteState, q)
					for id := 1; id <= 10; id++ {
						main[id] = id * 10
					}
					continue
				}
				res := mustQuery(t, s, q)
				if res.rows[0][0] != id || res.rows[0][1] == id {
					t.Fatalf("%s: %v", q, res.rows)
				}
			}
			checkModelRows(t, s, "main after the picks", "SELECT id, v FROM w ORDER BY id", main)
			checkModelRows(t, s, "the branch after the picks", `SELECT id, v FROM "w@audit" ORDER BY id`, branch)
			checkIcebergGoReads(t, s, "public", "w")
			mustFail(t, s, pgerr.ObjectNotInPrerequisiteState, "ALTER TABLE w EXECUTE cherrypick_snapshot(snapshot_id => "+picks[0]+")")
			mustFail(t, s, pgerr.ObjectNotInPrerequisiteState, "ALTER TABLE w EXECUTE cherrypick_snapshot(snapshot_id => "+own+")")
			mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE w EXECUTE cherrypick_snapshot(snapshot_id => 12345)")
			mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE w EXECUTE cherrypick_snapshot(id => 12345)")
			checkModelRows(t, s, "main after refusals", "SELECT id, v FROM w ORDER BY id", main)

			// A snapshot on top of main's head: main moves to it.
			mustQuery(t, s, "ALTER TABLE w CREATE BRANCH ahead")
			mustQuery(t, s, "SET magmalake.branch = 'ahead'")
			mustQuery(t, s, "DELETE FROM w WHERE id = 60")
			delete(main, 60)
			next := refID(t, s, "ahead")
			mustQuery(t, s, "RESET magmalake.branch")
			res := mustQuery(t, s, "ALTER TABLE w EXECUTE cherrypick_snapshot(snapshot_id => "+next+")")
			if res.rows[0][1] != next || refID(t, s, "main") != next {
				t.Fatalf("fast-forward pick: %v, main at %s, want %s", res.rows, refID(t, s, "main"), next)
			}
			checkModelRows(t, s, "main after the fast-forward pick", "SELECT id, v FROM w ORDER BY id", main)
		})
	}
}

// TestBranchWritesConcurrent: sessions deleting and inserting on a branch
// while another writes main, all at once, all succeed; the branch and main
// end as the models say, and main's rows never include the branch's.
func TestBranchWritesConcurrent(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	setup := testSessionOn(t, eng)
	mustQuery(t, setup, "CREATE TABLE w (id int, v int) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')")
	for k := 0; k < 4; k++ {
		mustQuery(t, setup, fmt.Sprintf("INSERT INTO w SELECT g, g * 10 FROM generate_series(%d, %d) g", k*100+1, k*100+100))
	}
	mustQuery(t, setup, "ALTER TABLE w CREATE BRANCH audit")
	main, branch := newRowModel(1, 400), newRowModel(1, 400)
	var scripts [][]string
	for k := 0; k < 4; k++ {
		var qs []string
		for r := 0; r < 5; r++ {
			lo := k*100 + r*20 + 1
			qs = append(qs, fmt.Sprintf("DELETE FROM w WHERE id BETWEEN %d AND %d AND id %% 2 = 0", lo, lo+9))
			for id := lo; id <= lo+9; id++ {
				if id%2 == 0 {
					delete(branch, id)
				}
			}
		}
		scripts = append(scripts, qs)
	}
	var ins, mainIns []string
	for r := 0; r < 5; r++ {
		ins = append(ins, fmt.Sprintf("INSERT INTO w VALUES (%d, %d)", 1000+r, 10000+r*10))
		branch[1000+r] = 10000 + r*10
		mainIns = append(mainIns, fmt.Sprintf("INSERT INTO w VALUES (%d, %d)", 2000+r, 20000+r*10))
		main[2000+r] = 20000 + r*10
	}
	scripts = append(scripts, ins)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	run := func(branchName string, qs []string) {
		defer wg.Done()
		s := testSessionOn(t, eng)
		if branchName != "" {
			if _, err := s.query(context.Background(), "SET magmalake.branch = '"+branchName+"'"); err != nil {
				errs <- err
				return
			}
		}
		for _, q := range qs {
			if _, err := s.query(context.Background(), q); err != nil {
				errs <- fmt.Errorf("%s: %w", q, err)
				return
			}
		}
	}
	for _, qs := range scripts {
		wg.Add(1)
		go run("audit", qs)
	}
	wg.Add(1)
	go run("", mainIns)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkModelRows(t, setup, "main", "SELECT id, v FROM w ORDER BY id", main)
	checkModelRows(t, setup, "the branch", `SELECT id, v FROM "w@audit" ORDER BY id`, branch)
}

// TestBranchWriteErrors: the ways to misuse a branch answer with SQLSTATEs
// and change nothing; a write to a branch that does not exist creates it
// from main (COPY FROM writes there too); maintenance with a branch set
// acts on main; SET NOT NULL checks every branch.
func TestBranchWriteErrors(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE w (id int, v int)")
	mustQuery(t, s, "INSERT INTO w SELECT g, g * 10 FROM generate_series(1, 5) g")
	first := refID(t, s, "main")
	mustQuery(t, s, "ALTER TABLE w CREATE TAG v1")
	mustQuery(t, s, "ALTER TABLE w CREATE BRANCH audit")
	mustFail(t, s, pgerr.InvalidParameterValue, "SET magmalake.branch = ' audit'")
	for q, code := range map[string]pgerr.Code{
		`DELETE FROM "w@audit" WHERE id = 1`:             pgerr.FeatureNotSupported,
		"INSERT INTO w.branch_audit VALUES (9, 90)":      pgerr.FeatureNotSupported,
		`UPDATE "w@v1" SET v = 0`:                        pgerr.FeatureNotSupported,
		`SELECT * FROM "w@nope"`:                         pgerr.UndefinedObject,
		"SELECT * FROM w.branch_nope":                    pgerr.UndefinedObject,
		"SELECT * FROM w.tag_audit":                      pgerr.WrongObjectType,
		`SELECT * FROM "w@audit" FOR VERSION AS OF 'v1'`: pgerr.FeatureNotSupported,
		`ALTER TABLE "w@audit" EXECUTE optimize`:         pgerr.FeatureNotSupported,
	} {
		mustFail(t, s, code, q)
	}
	checkModelRows(t, s, "tag", "SELECT id, v FROM w.tag_v1 ORDER BY id", newRowModel(1, 5))

	mustQuery(t, s, "SET magmalake.branch = 'v1'")
	mustFail(t, s, pgerr.WrongObjectType, "INSERT INTO w VALUES (9, 90)")
	mustQuery(t, s, "RESET magmalake.branch")

	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "SET magmalake.branch = 'audit'") // nothing touched yet
	mustQuery(t, s, "DELETE FROM w WHERE id = 1")
	mustFail(t, s, pgerr.ActiveSQLTransaction, "SET magmalake.branch = 'other'")
	mustQuery(t, s, "ROLLBACK")
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "SET LOCAL magmalake.branch = 'audit'")
	mustQuery(t, s, "DELETE FROM w WHERE id = 1")
	mustQuery(t, s, "SET LOCAL magmalake.branch = 'audit'") // the same branch: fine
	mustQuery(t, s, "COMMIT")
	branch := newRowModel(2, 5)
	checkModelRows(t, s, "the branch", `SELECT id, v FROM "w@audit" ORDER BY id`, branch)
	checkModelRows(t, s, "main", "SELECT id, v FROM w ORDER BY id", newRowModel(1, 5))

	mustQuery(t, s, "SET magmalake.branch = 'fresh'")
	checkModelRows(t, s, "a branch not created yet reads main", "SELECT id, v FROM w ORDER BY id", newRowModel(1, 5))
	mustQuery(t, s, "DELETE FROM w WHERE id = 5")
	checkModelRows(t, s, "the new branch", "SELECT id, v FROM w ORDER BY id", newRowModel(1, 4))
	mustCopyIn(t, s, "COPY w FROM STDIN", "7\t70\n", 1)
	fresh := newRowModel(1, 4)
	fresh[7] = 70
	checkModelRows(t, s, "the new branch after COPY", "SELECT id, v FROM w ORDER BY id", fresh)
	if got := mustQuery(t, s, `SELECT name, type FROM "w$refs" ORDER BY name`).text(); got != "audit|BRANCH\nfresh|BRANCH\nmain|BRANCH\nv1|TAG\n" {
		t.Fatalf("refs: %q", got)
	}
	if refID(t, s, "main") != first {
		t.Fatalf("main moved")
	}
	// Maintenance acts on main whatever branch the session writes.
	mustQuery(t, s, "RESET magmalake.branch")
	mustQuery(t, s, "INSERT INTO w VALUES (6, 60)")
	mustQuery(t, s, "SET magmalake.branch = 'fresh'")
	mustQuery(t, s, "ALTER TABLE w EXECUTE rollback_to_snapshot(snapshot_id => "+first+")")
	if refID(t, s, "main") != first {
		t.Fatalf("rollback with a branch set did not move main")
	}
	checkModelRows(t, s, "the branch after main's rollback", "SELECT id, v FROM w ORDER BY id", fresh)

	// The schema is every branch's: SET NOT NULL looks at them all.
	mustQuery(t, s, "INSERT INTO w VALUES (9, NULL)")
	mustQuery(t, s, "RESET magmalake.branch")
	mustFail(t, s, pgerr.NotNullViolation, "ALTER TABLE w ALTER COLUMN v SET NOT NULL")
	mustQuery(t, s, "SET magmalake.branch = 'fresh'")
	mustQuery(t, s, "DELETE FROM w WHERE v IS NULL")
	mustQuery(t, s, "RESET magmalake.branch")
	mustQuery(t, s, "ALTER TABLE w ALTER COLUMN v SET NOT NULL")
}
