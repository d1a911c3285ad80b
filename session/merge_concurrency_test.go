package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestMergeConcurrentWithDelete runs a series of MERGEs and a series of
// DELETEs at once from two sessions (and from two engines sharing the
// warehouse, as two servers would) against the same data files of one
// table, in every table mode. The MERGEs update one residue class of ids
// and insert new ids; the DELETEs remove other residue classes. Whatever
// the interleaving, the end state is known: every update applied exactly
// once per MERGE, every insert there once, every deleted row gone, nothing
// else touched, and the tags add up to it.
func TestMergeConcurrentWithDelete(t *testing.T) {
	const rows, merges = 120, 4
	for mi, mode := range mergeTableModes {
		for _, shared := range []bool{false, true} {
			t.Run(fmt.Sprintf("mode%d/engines%v", mi, shared), func(t *testing.T) {
				dir := t.TempDir()
				eng := testEngine(t, dir)
				a := testSessionOn(t, eng)
				b := testSessionOn(t, eng)
				if shared {
					b = testSessionOn(t, testEngine(t, dir))
				}
				mustQuery(t, a, "CREATE TABLE t (id int, grp int, v int) "+mode)
				for f := 0; f < 3; f++ { // three data files, every residue class in each
					mustQuery(t, a, fmt.Sprintf("INSERT INTO t SELECT i, i %% 4, 0 FROM generate_series(%d, %d) i", f*rows/3+1, (f+1)*rows/3))
				}
				var mergeTags, deleteTags int
				var errA, errB error
				var wg sync.WaitGroup
				wg.Go(func() {
					for k := 1; k <= merges && errA == nil; k++ {
						q := fmt.Sprintf(`MERGE INTO t USING (SELECT i AS id FROM generate_series(1, %d) i WHERE i %% 5 = 0
							UNION ALL SELECT 1000 * %d + j FROM generate_series(1, 3) j) AS s ON t.id = s.id
							WHEN MATCHED THEN UPDATE SET v = t.v + 1 WHEN NOT MATCHED THEN INSERT VALUES (s.id, -1, %d)`, rows, k, k)
						var n int
						n, errA = autocommitTag(a, q)
						mergeTags += n
					}
				})
				wg.Go(func() {
					for _, r := range []int{1, 2, 3} {
						var n int
						n, errB = autocommitTag(b, fmt.Sprintf("DELETE FROM t WHERE id %% 5 = %d AND id < 1000", r))
						deleteTags += n
						if errB != nil {
							return
						}
					}
				})
				wg.Wait()
				if errA != nil || errB != nil {
					t.Fatalf("merge: %v; delete: %v", errA, errB)
				}
				updated := rows / 5
				if mergeTags != merges*(updated+3) || deleteTags != 3*rows/5 {
					t.Fatalf("tags add up to %d merged and %d deleted rows, want %d and %d", mergeTags, deleteTags, merges*(updated+3), 3*rows/5)
				}
				want := fmt.Sprintf("%d %d %d", rows/5*2+merges*3, updated*merges, merges*(merges+1)/2*3)
				got := mustQuery(t, a, "SELECT count(*), sum(v) FILTER (WHERE id < 1000), sum(v) FILTER (WHERE id > 1000) FROM t").rows
				if g := strings.Join(got[0], " "); g != want {
					t.Fatalf("count, updates, inserts: %s, want %s", g, want)
				}
				left := mustQuery(t, a, "SELECT count(*) FROM t WHERE id < 1000 AND (id % 5 = 0 AND v <> "+fmt.Sprint(merges)+" OR id % 5 IN (1, 2, 3) OR id % 5 = 4 AND v <> 0)").rows
				if left[0][0] != "0" {
					t.Fatalf("%s rows are not as the statements left them", left[0][0])
				}
			})
		}
	}
}

// autocommitTag runs q and returns its tag's count. An autocommit
// statement re-plans on conflicts itself: a serialization failure is an
// error here, never retried.
func autocommitTag(s *Session, q string) (int, error) {
	r, err := s.query(context.Background(), q)
	if err != nil {
		return 0, err
	}
	f := strings.Fields(r.tag)
	var n int
	_, err = fmt.Sscan(f[len(f)-1], &n)
	return n, err
}
