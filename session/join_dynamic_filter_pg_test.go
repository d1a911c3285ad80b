package session

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestJoinProbeFilteredByBuildKeys: the probe side of an inner or semi
// join reads only the rows the build keys allow (a dynamic filter on its
// scan, their list when few, which prunes files and row groups) and nothing at all when
// the build side is empty; every join answers as PostgreSQL does, across
// key widths, NULL keys and keys beyond the probe column's range.
func TestJoinProbeFilteredByBuildKeys(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	var big, small []string
	for i := 0; i < 2000; i++ {
		k := fmt.Sprint(i)
		if i%97 == 0 {
			k = "NULL"
		}
		big = append(big, fmt.Sprintf("(%s, %d, %d)", k, i%7, i))
	}
	for _, k := range []string{"500", "510", "NULL", "700", "3000000000"} {
		small = append(small, fmt.Sprintf("(%s, 'x')", k))
	}
	stmts := []string{"CREATE TABLE dbig (k int, g smallint, v bigint)", "CREATE TABLE dsmall (k bigint, s text)",
		"INSERT INTO dsmall VALUES " + strings.Join(small, ", ")}
	// Ten files of 200 keys each, in key order.
	for f := 0; f < 10; f++ {
		stmts = append(stmts, "INSERT INTO dbig VALUES "+strings.Join(big[f*200:(f+1)*200], ", "))
	}
	for _, q := range stmts {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	// The build side (dsmall, 5 rows) lists its keys 500, 510, 700 and
	// 3000000000: dbig's scan reads only the two files whose bounds hold
	// one (keys 400..599 and 600..799), 400 rows.
	want := 400
	plan := strings.Join(flatRows(mustQuery(t, s, "EXPLAIN ANALYZE SELECT count(*) FROM dbig JOIN dsmall ON dbig.k = dsmall.k")), "\n")
	m := regexp.MustCompile(`Scan on public\.dbig[^\n]*rows=(\d+)`).FindStringSubmatch(plan)
	if m == nil || m[1] != fmt.Sprint(want) {
		t.Fatalf("dbig's scan under the join: want %d rows read (the files holding a build key), plan:\n%s", want, plan)
	}
	for _, q := range []string{
		"SELECT count(*), sum(v) FROM dbig JOIN dsmall ON dbig.k = dsmall.k",
		"SELECT dbig.v FROM dbig JOIN dsmall ON dbig.k = dsmall.k + 10 ORDER BY 1",
		"SELECT count(*) FROM dbig WHERE k IN (SELECT k FROM dsmall)",
		"SELECT count(*) FROM dbig WHERE EXISTS (SELECT 1 FROM dsmall WHERE dsmall.k = dbig.k)",
		"SELECT count(*) FROM dbig WHERE NOT EXISTS (SELECT 1 FROM dsmall WHERE dsmall.k = dbig.k)",
		"SELECT count(*), count(dsmall.k) FROM dbig LEFT JOIN dsmall ON dbig.k = dsmall.k",
		"SELECT count(*) FROM dsmall LEFT JOIN dbig ON dbig.k = dsmall.k",
		"SELECT count(*) FROM dbig JOIN dsmall ON dbig.k = dsmall.k WHERE dsmall.s = 'none'",
		"SELECT count(*) FROM dbig JOIN dsmall ON dbig.g = dsmall.k",
		"SELECT count(*) FROM dbig JOIN (SELECT k FROM dsmall WHERE k > 2000000000) d ON dbig.k = d.k",
		"SELECT count(*) FROM dbig JOIN (SELECT k FROM dsmall WHERE k IS NULL) d ON dbig.k = d.k",
	} {
		compareStatement(t, s, conn, q)
	}
}
