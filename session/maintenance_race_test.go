package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
)

// TestMaintenanceRacesWriters: one session loops INSERT, DELETE and UPDATE
// (and, every seventh round, a transaction block of the three) on a
// 100,000-row table while two others loop remove_orphan_files and
// expire_snapshots with zero retention and a fourth reads it. Every
// statement succeeds and the table ends as the writer's model says, in
// every delete mode: no file a statement was writing, had just committed
// or was reading was removed under it. With the maintenance on another
// server (another engine on the same catalog), the writer's statements
// still all succeed: a sweep that may have taken their files makes them
// plan again; an INSERT or a block, whose files are written before they
// commit, may fail with 40001 and change nothing then, and a query may fail
// with 72000 (the other server cannot know what it reads).
// MAGMALAKE_RACE_SECONDS sets how long each mode races on one server, half
// that on two (CI: 60).
func TestMaintenanceRacesWriters(t *testing.T) {
	seconds := diffEnvUint(t, "MAGMALAKE_RACE_SECONDS", 3)
	for _, servers := range []int{1, 2} {
		for _, m := range optimizeModes {
			t.Run(fmt.Sprintf("%d-servers/%s", servers, m.name), func(t *testing.T) {
				d := time.Duration(seconds) * time.Second / time.Duration(servers)
				raceMaintenance(t, m.with, m.setup, servers, d)
			})
		}
	}
}

func raceMaintenance(t *testing.T, with, setup string, servers int, d time.Duration) {
	dir := t.TempDir()
	eng, other := testEngine(t, dir), testEngine(t, dir)
	if servers == 1 {
		other = eng
	}
	writer, reader := testSessionOn(t, eng), testSessionOn(t, eng)
	keeper, expirer := testSessionOn(t, other), testSessionOn(t, other)
	const rows = 100_000
	mustQuery(t, writer, "CREATE TABLE race (id int, v int) "+with)
	mustQuery(t, writer, fmt.Sprintf("INSERT INTO race SELECT g, 0 FROM generate_series(1, %d) g", rows))
	if setup != "" {
		mustQuery(t, writer, setup)
	}
	mustQuery(t, keeper, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	model := map[int]int{}
	for id := 1; id <= rows; id++ {
		model[id] = 0
	}
	ctx, stop := context.WithTimeout(t.Context(), d)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	loop := func(name string, step func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if err := step(i); err != nil {
					var cause error
					if se := (*pgerr.Error)(nil); errors.As(err, &se) {
						cause = se.Err
					}
					errs <- fmt.Errorf("%s, round %d: %w (cause: %v)", name, i, err, cause)
					stop()
					return
				}
			}
		}()
	}
	var refused, tooOld int
	loop("writer", func(i int) error {
		write := raceWrite
		if i%7 == 6 {
			write = raceBlock
		}
		err := write(t.Context(), writer, model, rows, i)
		// An INSERT's rows are written before it commits: it cannot plan
		// them again, so it fails rather than name a swept file.
		prewritten := i%7 == 6 || i%3 == 0
		if servers == 2 && prewritten && sqlCode(err) == pgerr.SerializationFailure {
			refused++
			return nil
		}
		return err
	})
	removed := 0
	loop("expiry", func(int) error {
		_, err := expirer.query(t.Context(), "ALTER TABLE race EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
		return err
	})
	loop("orphans", func(int) error {
		r, err := keeper.query(t.Context(), "ALTER TABLE race EXECUTE remove_orphan_files(retention_threshold => '0s')")
		if err == nil {
			n, _ := strconv.Atoi(r.rows[0][0])
			removed += n
		}
		return err
	})
	loop("reader", func(int) error {
		_, err := reader.query(t.Context(), "SELECT count(*), sum(v) FROM race WHERE id % 3 = 0")
		if servers == 2 && sqlCode(err) == pgerr.SnapshotTooOld {
			tooOld++
			return nil
		}
		return err
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	checkRaceModel(t, writer, model)
	// Whatever maintenance removed, the table reads whole again after a
	// last sweep with nothing in flight.
	mustQuery(t, keeper, "ALTER TABLE race EXECUTE remove_orphan_files(retention_threshold => '0s')")
	checkRaceModel(t, reader, model)
	t.Logf("%d orphan files removed while the writer ran; %d blocks refused (40001), %d queries too old (72000)", removed, refused, tooOld)
}

// sqlCode is err's SQLSTATE ("" for none).
func sqlCode(err error) pgerr.Code {
	var se *pgerr.Error
	if errors.As(err, &se) {
		return se.Code
	}
	return ""
}

// raceWrite runs the writer's statement of round i and applies it to the
// model when it succeeds: INSERT of ten new rows, DELETE of one row, or
// UPDATE of a few.
func raceWrite(ctx context.Context, s *Session, model map[int]int, rows, i int) error {
	var q string
	switch k := i / 3; i % 3 {
	case 0:
		first := rows + 1 + 10*k
		q = fmt.Sprintf("INSERT INTO race SELECT g, 1 FROM generate_series(%d, %d) g", first, first+9)
		if _, err := s.query(ctx, q); err != nil {
			return err
		}
		for id := first; id <= first+9; id++ {
			model[id] = 1
		}
	case 1:
		id := (k*7)%rows + 1
		if _, err := s.query(ctx, fmt.Sprintf("DELETE FROM race WHERE id = %d", id)); err != nil {
			return err
		}
		delete(model, id)
	default:
		lo := (k*131)%rows + 1
		if _, err := s.query(ctx, fmt.Sprintf("UPDATE race SET v = v + 1 WHERE id BETWEEN %d AND %d", lo, lo+4)); err != nil {
			return err
		}
		for id := lo; id <= lo+4; id++ {
			if v, ok := model[id]; ok {
				model[id] = v + 1
			}
		}
	}
	return nil
}

// raceBlock runs an INSERT, a DELETE and an UPDATE (rounds of their own,
// far from the writer's) in one transaction block, applied to the model
// only when COMMIT succeeds; a block that fails is rolled back.
func raceBlock(ctx context.Context, s *Session, model map[int]int, rows, i int) error {
	if _, err := s.query(ctx, "BEGIN"); err != nil {
		return err
	}
	staged := maps.Clone(model)
	// Deletes first: an equality delete after added data cannot join it
	// in the block's one snapshot.
	for _, j := range []int{1, 2, 0} {
		if err := raceWrite(ctx, s, staged, rows, 3*(1<<20+i)+j); err != nil {
			_, _ = s.query(ctx, "ROLLBACK")
			return err
		}
	}
	if _, err := s.query(ctx, "COMMIT"); err != nil {
		return err
	}
	maps.Copy(model, staged)
	for id := range model {
		if _, ok := staged[id]; !ok {
			delete(model, id)
		}
	}
	return nil
}

// checkRaceModel compares the table, read by magmalake and by iceberg-go,
// with the model.
func checkRaceModel(t *testing.T, s *Session, model map[int]int) {
	t.Helper()
	want := make([]string, 0, len(model))
	for _, id := range slices.Sorted(maps.Keys(model)) {
		want = append(want, fmt.Sprintf("%d|%d", id, model[id]))
	}
	got := mustQuery(t, s, "SELECT id, v FROM race ORDER BY id").rows
	if diff := raceDiff(got, want); diff != "" {
		t.Fatalf("magmalake reads: %s", diff)
	}
	rows := fndIcebergRows(t, s, "public", "race") // cells "i:<n>"
	for _, r := range rows {
		for j := range r {
			r[j] = strings.TrimPrefix(r[j], "i:")
		}
	}
	slices.SortFunc(rows, func(a, b []string) int {
		x, _ := strconv.Atoi(a[0])
		y, _ := strconv.Atoi(b[0])
		return x - y
	})
	if diff := raceDiff(rows, want); diff != "" {
		t.Fatalf("iceberg-go reads: %s", diff)
	}
}

func raceDiff(got [][]string, want []string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i, r := range got {
		if line := r[0] + "|" + r[1]; line != want[i] {
			return fmt.Sprintf("row %d is %s, want %s", i, line, want[i])
		}
	}
	return ""
}

// TestOrphanRetentionFloor: a retention under the session's minimum (1h
// by default) is refused with 22023, saying how to override it; at or
// above it, or once overridden, the statement runs.
func TestOrphanRetentionFloor(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE f (id int)")
	for _, v := range []string{"0s", "59m", "0.5d"} {
		q := "ALTER TABLE f EXECUTE remove_orphan_files(retention_threshold => '" + v + "')"
		if v == "0.5d" {
			mustQuery(t, s, q)
			continue
		}
		_, err := s.query(t.Context(), q)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.InvalidParameterValue || !strings.Contains(se.Hint, maintenance.OrphanMinRetentionSetting) {
			t.Fatalf("%s: %v, want 22023 with a hint naming the setting", v, err)
		}
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "SET magmalake.remove_orphan_files_min_retention = 'soon'")
	mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '30m'")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE f EXECUTE remove_orphan_files(retention_threshold => '29m')")
	mustQuery(t, s, "ALTER TABLE f EXECUTE remove_orphan_files(retention_threshold => '30m')")
	mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	mustQuery(t, s, "ALTER TABLE f EXECUTE remove_orphan_files(retention_threshold => '0s')")
}

// TestOrphansSpareOpenBlocks: files an open block wrote for a table are
// not orphans while the block is open, whatever the retention; COMMIT
// publishes them, and after a ROLLBACK's own removal nothing is left.
func TestOrphansSpareOpenBlocks(t *testing.T) {
	s, dir := copySession(t)
	keeper := testSessionOn(t, s.engine)
	mustQuery(t, keeper, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	mustQuery(t, s, "CREATE TABLE b (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO b SELECT g FROM generate_series(1, 100) g")
	before := parquetFiles(t, dir)
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "INSERT INTO b SELECT g FROM generate_series(101, 200) g")
	mustQuery(t, s, "DELETE FROM b WHERE id % 10 = 0")
	mustQuery(t, s, "SELECT count(*) FROM b") // stages the block's view: its files are written
	if len(parquetFiles(t, dir)) == len(before) {
		t.Fatal("the block wrote no file yet: the test checks nothing")
	}
	if n := mustQuery(t, keeper, "ALTER TABLE b EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0][0]; n != "0" {
		t.Fatalf("removed %s of the open block's files", n)
	}
	mustQuery(t, s, "COMMIT")
	if got := mustQuery(t, keeper, "SELECT count(*), sum(id) FROM b").text(); got != "180|18000\n" {
		t.Fatalf("after COMMIT the table reads %q", got)
	}
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM b WHERE id < 50")
	mustQuery(t, s, "SELECT count(*) FROM b")
	mustQuery(t, s, "ROLLBACK")
	if n := mustQuery(t, keeper, "ALTER TABLE b EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0][0]; n != "0" {
		t.Fatalf("the rolled-back block left %s files", n)
	}
}

// TestMaintenanceTakesGoneFilesInStride: a file expiry or orphan removal
// means to delete that is gone already (another pass took it) is not an
// error, and is not counted.
func TestMaintenanceTakesGoneFilesInStride(t *testing.T) {
	s, dir := copySession(t)
	mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	mustQuery(t, s, "CREATE TABLE g (id int)")
	mustQuery(t, s, "INSERT INTO g SELECT x FROM generate_series(1, 10) x")
	old := parquetFiles(t, dir)
	mustQuery(t, s, "DELETE FROM g WHERE id < 5") // copy-on-write: the old file leaves the table
	if err := os.Remove(old[0]); err != nil {
		t.Fatal(err)
	}
	out := mustQuery(t, s, "ALTER TABLE g EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)").rows[0]
	if out[0] != "1" {
		t.Fatalf("expire_snapshots: %v, want one snapshot expired", out)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM g").text(); got != "6\n" {
		t.Fatalf("table reads %q", got)
	}
	if n := mustQuery(t, s, "ALTER TABLE g EXECUTE remove_orphan_files(retention_threshold => '0s')").rows[0][0]; n != "0" {
		t.Fatalf("removed %s files after the expiry", n)
	}
}
