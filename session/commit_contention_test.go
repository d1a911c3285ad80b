package session

import (
	"context"
	"fmt"
	"github.com/magmalake/magmalake/stmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// contentionRow is one row of the contention table: ts is a pseudo-random
// age, so retention predicates hit every data file.
type contentionRow struct{ id, ts int }

func contentionRows(n int) []contentionRow {
	out := make([]contentionRow, n)
	for i := range out {
		id := i + 1
		out[i] = contentionRow{id: id, ts: id * 7919 % 1000}
	}
	return out
}

// contentionJobs are the four writers: an erasure job deleting by id
// and three retention jobs deleting by age at different paces, so their
// statements overlap in rows as well as in files. Each job has a model of
// what its i-th statement matches.
type contentionJob struct {
	where   func(i int) string
	matches func(i int, r contentionRow) bool
}

func contentionJobs() []contentionJob {
	jobs := []contentionJob{{
		where:   func(i int) string { return fmt.Sprintf("id %% 100 = %d", i) },
		matches: func(i int, r contentionRow) bool { return r.id%100 == i },
	}}
	for _, pace := range []int{10, 15, 18} {
		jobs = append(jobs, contentionJob{
			where:   func(i int) string { return fmt.Sprintf("ts < %d", pace*(i+1)) },
			matches: func(i int, r contentionRow) bool { return r.ts < pace*(i+1) },
		})
	}
	return jobs
}

// TestAutocommitDeletesUnderContention is the scenario: four
// sessions, spread over two engines on one warehouse (two servers), each
// issue autocommit DELETE ... RETURNING id on overlapping rows of the same
// data files, in every table mode (20 statements each here; the 50,
// on three servers, are internal/e2e's TestContentionSharedLake). Every statement must succeed (no
// 40001: an autocommit statement re-plans or rebases itself), every gone
// row must be returned by exactly one DELETE, and the table — read by
// magmalake and by iceberg-go — must be the model's.
func TestAutocommitDeletesUnderContention(t *testing.T) {
	const statements = 20
	rows := contentionRows(480)
	jobs := contentionJobs()
	for _, m := range delSQLModes {
		t.Run(m.mode+"/v"+m.version, func(t *testing.T) {
			dir := t.TempDir()
			engines := []*Engine{testEngine(t, dir), testEngine(t, dir)}
			s := engines[0].NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
			t.Cleanup(s.Close)
			createContentionTable(t, s, m.mode, m.version, rows)
			returned := make([][]int, len(jobs))
			errs := make([]error, len(jobs))
			var wg sync.WaitGroup
			for j, job := range jobs {
				js := engines[j%len(engines)].NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
				t.Cleanup(js.Close)
				wg.Go(func() {
					for i := range statements {
						ids, err := deleteReturningIDs(js, "DELETE FROM t WHERE "+job.where(i)+" RETURNING id")
						if err != nil {
							errs[j] = err
							return
						}
						returned[j] = append(returned[j], ids...)
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			want := contentionModel(rows, jobs, statements)
			checkDeletedOnce(t, rows, want, returned)
			got := mustQuery(t, s, "SELECT id FROM t ORDER BY id").rows
			if g := intColumn(t, got); !slices.Equal(g, want) {
				t.Fatalf("table holds %d rows, the model %d", len(g), len(want))
			}
			ice := intColumn(t, fndIcebergRows(t, s, "public", "t"))
			slices.Sort(ice)
			if !slices.Equal(ice, want) {
				t.Fatalf("iceberg-go reads %d rows, the model %d", len(ice), len(want))
			}
			checkOneVectorPerFile(t, &delSQLEnv{s: s, eng: engines[0], dir: dir})
		})
	}
}

// createContentionTable fills t in eight inserts, so several data files
// per partition share every job's rows.
func createContentionTable(t *testing.T, s *Session, mode, version string, rows []contentionRow) {
	t.Helper()
	mustQuery(t, s, fmt.Sprintf("CREATE TABLE t (id int, ts int) PARTITIONED BY (bucket(2, id)) WITH ('format-version' = '%s', "+
		"'write.delete.mode' = '%[2]s', 'write.update.mode' = '%[2]s', 'write.merge.mode' = '%[2]s')", version, mode))
	per := len(rows) / 8
	for start := 0; start < len(rows); start += per {
		var vals []string
		for _, r := range rows[start:min(start+per, len(rows))] {
			vals = append(vals, fmt.Sprintf("(%d, %d)", r.id, r.ts))
		}
		mustQuery(t, s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
}

// contentionModel is the ids no statement of any job matches, ascending.
func contentionModel(rows []contentionRow, jobs []contentionJob, statements int) []int {
	var out []int
	for _, r := range rows {
		hit := false
		for _, job := range jobs {
			for i := 0; i < statements && !hit; i++ {
				hit = job.matches(i, r)
			}
		}
		if !hit {
			out = append(out, r.id)
		}
	}
	return out
}

// checkDeletedOnce: every row not in kept was returned by exactly one
// DELETE, and no kept row was returned at all.
func checkDeletedOnce(t *testing.T, rows []contentionRow, kept []int, returned [][]int) {
	t.Helper()
	times := map[int]int{}
	for _, ids := range returned {
		for _, id := range ids {
			times[id]++
		}
	}
	for _, r := range rows {
		want := 1
		if _, ok := slices.BinarySearch(kept, r.id); ok {
			want = 0
		}
		if times[r.id] != want {
			t.Fatalf("id %d returned by %d DELETEs, want %d", r.id, times[r.id], want)
		}
	}
}

func deleteReturningIDs(s *Session, q string) ([]int, error) {
	r, err := s.query(context.Background(), q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(r.tag, "DELETE "))
	if err != nil || n != len(r.rows) {
		return nil, fmt.Errorf("%s: tag %q with %d rows returned", q, r.tag, len(r.rows))
	}
	ids := make([]int, len(r.rows))
	for i, row := range r.rows {
		if ids[i], err = strconv.Atoi(row[0]); err != nil {
			return nil, fmt.Errorf("%s: id %q", q, row[0])
		}
	}
	return ids, nil
}

// intColumn is the first column of rows as ints.
func intColumn(t *testing.T, rows [][]string) []int {
	t.Helper()
	out := make([]int, len(rows))
	for i, r := range rows {
		v, err := strconv.Atoi(strings.TrimPrefix(r[0], "i:"))
		if err != nil {
			t.Fatalf("row %d: %q is not an integer", i, r[0])
		}
		out[i] = v
	}
	return out
}
