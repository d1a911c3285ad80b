package session

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// count(*) without WHERE answers from the snapshot summary while no delete
// file applies, and by reading rows once one does; either way it equals the
// rows a scan returns (issue 12), in every table mode.
func TestCountStarFromMetadata(t *testing.T) {
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, "CREATE TABLE cm (a int) "+mode)
			mustQuery(t, s, "INSERT INTO cm SELECT g FROM generate_series(1, 700) g")
			mustQuery(t, s, "INSERT INTO cm SELECT g FROM generate_series(1, 300) g")
			check := func(wantMeta bool) {
				t.Helper()
				scanned := len(mustQuery(t, s, "SELECT a FROM cm").rows)
				got := mustQuery(t, s, "SELECT count(*) FROM cm").rows[0][0]
				if got != fmt.Sprint(scanned) {
					t.Fatalf("count(*) %s, scan returns %d rows", got, scanned)
				}
				plan := fmt.Sprint(mustQuery(t, s, "EXPLAIN SELECT count(*) FROM cm").rows)
				if meta := strings.Contains(plan, "from the snapshot summary"); meta != wantMeta {
					t.Fatalf("metadata count %v, want %v: %s", meta, wantMeta, plan)
				}
			}
			check(true)
			mustQuery(t, s, "DELETE FROM cm WHERE a % 7 = 0")
			check(!strings.Contains(mode, "merge-on-read"))
			want := 0
			for _, r := range mustQuery(t, s, "SELECT a FROM cm").rows {
				if n, _ := strconv.Atoi(r[0]); n > 100 {
					want++
				}
			}
			if got := mustQuery(t, s, "SELECT count(*) FROM cm WHERE a > 100").rows[0][0]; got != strconv.Itoa(want) {
				t.Fatalf("count(*) with WHERE %s, want %d", got, want)
			}
		})
	}
}
