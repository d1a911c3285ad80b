package session

import (
	"fmt"
	"strings"
	"testing"
)

// TestSharedWithQueriesMatchPostgres: a WITH query read by several
// references is run once per statement (issue 52: TPC-H Q15 aggregated a
// quarter of lineitem twice), so every reference sees the same rows even
// when the query calls random(), as PostgreSQL materialises it; no
// reference's filter leaks into what another reads; a single reference is
// still filtered inside; past work_mem each reference runs it again.
func TestSharedWithQueriesMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	var rows []string
	for i := 0; i < 300; i++ {
		rows = append(rows, fmt.Sprintf("(%d, %d, %d)", i, i%17, (i*7)%23))
	}
	for _, q := range []string{
		"CREATE TABLE cw (id int, k int, v int)",
		"INSERT INTO cw VALUES " + strings.Join(rows, ", "),
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	queries := []string{
		"WITH r AS (SELECT random() AS x) SELECT count(*) FROM r a, r b WHERE a.x = b.x",
		"WITH r AS (SELECT id, random() AS x FROM cw) SELECT count(*) FROM r a JOIN r b ON a.id = b.id WHERE a.x = b.x",
		"WITH r AS (SELECT k, sum(v) AS s FROM cw GROUP BY k) SELECT a.k, a.s, b.s FROM r a JOIN r b ON a.k = b.k + 1 WHERE a.s > 60 ORDER BY 1",
		"WITH r AS (SELECT * FROM cw) SELECT count(*), (SELECT count(*) FROM r) FROM (SELECT * FROM r WHERE v > 5) s, r t WHERE s.id = t.id",
		"WITH r AS (SELECT k, sum(v) AS s FROM cw GROUP BY k) SELECT k FROM r WHERE s = (SELECT max(s) FROM r) ORDER BY k",
		"WITH r AS (SELECT * FROM cw WHERE k < 5) SELECT count(*) FROM r WHERE v > 10",
		"WITH r AS (SELECT * FROM cw), u AS (SELECT k FROM r WHERE v = 3) SELECT count(*) FROM r JOIN u USING (k)",
	}
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range queries[2:] {
		compareStatement(t, s, conn, q)
	}
}
