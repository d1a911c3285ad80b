package session

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestLeftJoinHoldingLeftMatchesPostgres: a LEFT JOIN whose left side is
// estimated the smaller holds that side in its hash table, emits its
// unmatched rows at the end, and reads the right side past the left's
// keys, into a grouped subquery (TPC-H Q17's grouped join): the rows are
// PostgreSQL's, with NULL keys, ON conditions beyond the keys, several
// keys, USING, and past work_mem; the subquery groups only the left's
// keys (issue 52).
func TestLeftJoinHoldingLeftMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	rng := rand.New(rand.NewSource(7))
	for _, tb := range []struct {
		name string
		rows int
	}{{"ls", 40}, {"lb", 6000}} {
		ddl := fmt.Sprintf("CREATE TABLE %s (id int, k int, k2 int, v int, s text)", tb.name)
		mustPG(t, conn, "DROP TABLE IF EXISTS "+tb.name)
		mustPG(t, conn, ddl)
		mustQuery(t, s, ddl)
		for start := 0; start < tb.rows; start += 1000 {
			var rows []string
			for i := start; i < min(start+1000, tb.rows); i++ {
				k := fmt.Sprint(rng.Intn(300))
				if rng.Intn(15) == 0 {
					k = "NULL"
				}
				rows = append(rows, fmt.Sprintf("(%d, %s, %d, %d, 's%d')", i, k, rng.Intn(3), rng.Intn(100), rng.Intn(50)))
			}
			ins := "INSERT INTO " + tb.name + " VALUES " + strings.Join(rows, ", ")
			mustPG(t, conn, ins)
			mustQuery(t, s, ins)
		}
	}
	queries := []string{
		"SELECT a.id, b.id FROM ls a LEFT JOIN lb b ON a.k = b.k ORDER BY 1, 2",
		"SELECT a.id, b.id FROM ls a LEFT JOIN lb b ON a.k = b.k AND b.v > 90 ORDER BY 1, 2",
		"SELECT a.id, b.id FROM ls a LEFT JOIN lb b ON a.k = b.k AND a.k2 = b.k2 AND a.v < b.v ORDER BY 1, 2",
		"SELECT a.id, count(b.id) FROM ls a LEFT JOIN lb b USING (k) GROUP BY a.id ORDER BY 1",
		"SELECT a.id, g.n, g.m FROM ls a LEFT JOIN (SELECT k, count(*) AS n, max(v) AS m FROM lb GROUP BY k) g ON g.k = a.k ORDER BY 1",
		"SELECT a.id, g.n FROM ls a LEFT JOIN (SELECT k, k2, sum(v) AS n FROM lb WHERE v > 10 GROUP BY k, k2) g ON g.k = a.k AND g.k2 = a.k2 ORDER BY 1",
		"SELECT a.id FROM ls a WHERE a.v < (SELECT avg(b.v) FROM lb b WHERE b.k = a.k) ORDER BY 1",
		"SELECT a.id, g.s FROM ls a LEFT JOIN (SELECT DISTINCT k, s FROM lb) g ON g.k = a.k ORDER BY 1, 2",
	}
	for _, wm := range []string{"256MB", "64kB"} {
		mustQuery(t, s, "SET work_mem = '"+wm+"'")
		for _, q := range queries {
			compareStatement(t, s, conn, q)
		}
	}
	mustQuery(t, s, "RESET work_mem")
	plan := analyzed(t, s, "SELECT a.id, g.n FROM ls a LEFT JOIN (SELECT k, count(*) AS n FROM lb GROUP BY k) g ON g.k = a.k")
	keys := countOf(t, s, "SELECT count(DISTINCT k) FROM ls")
	if agg := nodeOf(t, plan, "Aggregate", ""); planNum(agg, "Actual Rows") > keys {
		t.Errorf("the grouped subquery made %d groups, the left side has %d keys", planNum(agg, "Actual Rows"), keys)
	}
}
