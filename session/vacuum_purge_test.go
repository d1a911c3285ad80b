package session

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestVacuumPurgeBranchesAndTags: VACUUM (PURGE) erases what every branch
// deleted, keeps what a branch still has live, refuses a tag that keeps a
// deleted row unless told to drop or move it, and its NOTICE says what is
// true on disk afterwards: the rows it counts are in no file under the
// table's location, the files it counts are gone, and every value a branch
// has live is still there. Values are unique markers in uncompressed
// Parquet, so a file's bytes show whether it holds a row.
func TestVacuumPurgeBranchesAndTags(t *testing.T) {
	type step struct {
		name   string
		setup  []string // after the 1000 rows are in
		erased []int    // ids no file may hold after the purge
		kept   []int    // deleted on some branch, live on another: still on disk
		count  int      // the NOTICE's rows
	}
	steps := []step{
		{name: "branch after the delete", setup: []string{
			"DELETE FROM pt WHERE id = 7", "ALTER TABLE pt CREATE BRANCH b"}, erased: []int{7}, count: 1},
		{name: "branch before the delete", setup: []string{
			"ALTER TABLE pt CREATE BRANCH b", "DELETE FROM pt WHERE id = 7"}, kept: []int{7}},
		{name: "each branch deletes more", setup: []string{
			"DELETE FROM pt WHERE id = 7", "ALTER TABLE pt CREATE BRANCH b",
			"SET magmalake.branch = 'b'", "DELETE FROM pt WHERE id = 9", "RESET magmalake.branch",
			"DELETE FROM pt WHERE id = 11"}, erased: []int{7}, kept: []int{9, 11}, count: 1},
	}
	for _, m := range optimizeModes {
		for _, st := range steps {
			t.Run(m.name+"/"+st.name, func(t *testing.T) {
				s, dir := purgeTable(t, m.with, m.setup, st.setup)
				if m.name == "copy-on-write" {
					st.count = 0 // its DELETE rewrote the files: expiry, not a rewrite, erases
				}
				checkPurge(t, s, dir, "VACUUM (PURGE) pt", st.erased, st.kept, st.count)
			})
		}
		t.Run(m.name+"/tags", func(t *testing.T) {
			s, dir := purgeTable(t, m.with, m.setup, []string{
				"ALTER TABLE pt CREATE TAG before", "DELETE FROM pt WHERE id = 7", "ALTER TABLE pt CREATE TAG after"})
			files := tableFiles(t, dir)
			_, err := s.query(t.Context(), "VACUUM (PURGE) pt")
			// A copy-on-write DELETE left "after" nothing but live rows.
			cow := m.name == "copy-on-write"
			var se *pgerr.Error
			if !errors.As(err, &se) || se.Code != pgerr.ObjectNotInPrerequisiteState ||
				strings.Contains(se.Message, `"after"`) != !cow || !strings.Contains(se.Message, `"before"`) {
				t.Fatalf("PURGE with tags keeping id 7: %v, want 55000 naming the tags that keep it", err)
			}
			if got := tableFiles(t, dir); len(got) != len(files) {
				t.Fatalf("the refused PURGE changed the table's files: %d, then %d", len(files), len(got))
			}
			mustQuery(t, s, "ALTER TABLE pt CREATE TAG clean") // also keeps id 7's file under a delete
			checkPurge(t, s, dir, "VACUUM (PURGE, MOVE_TAGS) pt", []int{7}, nil, map[bool]int{true: 0, false: 1}[m.name == "copy-on-write"])
			tags := mustQuery(t, s, `SELECT name, snapshot_id = (SELECT snapshot_id FROM "pt$refs" WHERE name = 'main') FROM "pt$refs" WHERE type = 'TAG' ORDER BY name`).text()
			if tags != "after|t\nbefore|t\nclean|t\n" {
				t.Fatalf("tags after MOVE_TAGS:\n%s", tags)
			}
			mustQuery(t, s, "DELETE FROM pt WHERE id = 8")
			checkPurge(t, s, dir, "VACUUM (PURGE, DROP_TAGS) pt", []int{8}, nil, map[bool]int{true: 0, false: 1}[m.name == "copy-on-write"])
			if n := mustQuery(t, s, `SELECT count(*) FROM "pt$refs" WHERE type = 'TAG'`).text(); n != "0\n" {
				t.Fatalf("%s tags after DROP_TAGS", n)
			}
		})
	}
}

// purgeTable makes pt with 1000 rows, each holding its id in a marker,
// then runs setup.
func purgeTable(t *testing.T, with, mode string, setup []string) (*Session, string) {
	t.Helper()
	s, dir := copySession(t)
	mustQuery(t, s, "CREATE TABLE pt (id int, pii text) "+strings.Replace(with, "WITH (", "WITH ('write.parquet.compression-codec' = 'uncompressed', ", 1))
	mustQuery(t, s, "INSERT INTO pt SELECT g, 'secret-' || g || '-end' FROM generate_series(1, 1000) g")
	if mode != "" {
		mustQuery(t, s, mode)
	}
	for _, q := range setup {
		mustQuery(t, s, q)
	}
	return s, dir
}

// checkPurge runs the purge and holds its NOTICE to the files on disk.
func checkPurge(t *testing.T, s *Session, dir, stmt string, erased, kept []int, count int) {
	t.Helper()
	before := tableFiles(t, dir)
	for _, id := range append(erased, kept...) {
		if len(filesHolding(t, dir, marker(id))) == 0 {
			t.Fatalf("id %d is in no file before the purge: the test proves nothing", id)
		}
	}
	live := mustQuery(t, s, "SELECT count(*) FROM pt").text()
	p, err := s.Prepare(t.Context(), stmt, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(t.Context(), p, nil)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if len(res.Notices) != 1 {
		t.Fatalf("notices %+v, want one", res.Notices)
	}
	rows, files := noticeCounts(t, res.Notices[0].Message)
	if rows != count {
		t.Errorf("NOTICE %q: %d rows, want %d", res.Notices[0].Message, rows, count)
	}
	after := tableFiles(t, dir)
	gone := 0
	for p := range before {
		if !after[p] {
			gone++
		}
	}
	if files != gone {
		t.Errorf("NOTICE %q: %d files deleted, but %d of the table's files are gone", res.Notices[0].Message, files, gone)
	}
	for _, id := range erased {
		if got := filesHolding(t, dir, marker(id)); len(got) > 0 {
			t.Errorf("after the purge id %d is still in %v", id, got)
		}
	}
	for _, id := range kept {
		if len(filesHolding(t, dir, marker(id))) == 0 {
			t.Errorf("id %d, live on a branch, is in no file after the purge", id)
		}
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM pt").text(); got != live {
		t.Errorf("the purge changed main: %q rows, then %q", live, got)
	}
}

// marker is id's value as the table stores it; no other value contains it.
func marker(id int) []byte { return []byte(fmt.Sprintf("secret-%d-end", id)) }

var noticeCountsRE = regexp.MustCompile(`^(\d+) deleted rows physically removed from rewritten data files, (\d+) files deleted`)

func noticeCounts(t *testing.T, msg string) (rows, files int) {
	t.Helper()
	m := noticeCountsRE.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("NOTICE %q", msg)
	}
	rows, _ = strconv.Atoi(m[1])
	files, _ = strconv.Atoi(m[2])
	return rows, files
}

// tableFiles are the data, delete, manifest and manifest-list files under
// dir (metadata files are only ever added).
func tableFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, ".avro") || strings.HasSuffix(p, ".puffin")) {
			out[p] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
