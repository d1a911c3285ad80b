package session

import (
	"fmt"
	"strings"
	"testing"
)

// DELETE ... USING and UPDATE ... FROM: each statement's tag, RETURNING
// rows and the tables after it are PostgreSQL 15's, in every table mode:
// key joins (one hash set), non-equality joins, several sources, NULL keys,
// a target row joined by several source rows (updated once), self-joins
// (issue 13).
func TestDMLJoinsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	script := []string{
		"INSERT INTO jt VALUES (1,1,10,'a'),(2,1,20,'b'),(3,2,30,'c'),(4,2,NULL,'d'),(5,NULL,50,NULL),(6,3,60,'f'),(7,3,70,'g'),(8,4,80,'h')",
		"INSERT INTO js VALUES (2,'B',1),(3,'C',2),(3,'CC',2),(9,'Z',9),(NULL,'N',0),(7,'G',5)",
		"DELETE FROM jt USING js WHERE jt.id = js.id AND js.w > 1 RETURNING jt.id, jt.s",
		"SELECT * FROM jt ORDER BY id",
		"INSERT INTO js VALUES (2,'B',1), (8,'H',3), (8,'H',3)",
		"UPDATE jt t SET s = x.nv, v = t.v + x.w FROM js x WHERE t.id = x.id RETURNING t.id, t.s, t.v",
		"SELECT * FROM jt ORDER BY id",
		"UPDATE jt SET v = v * 2 FROM js WHERE js.id = jt.g AND js.nv LIKE 'B%'",
		"SELECT * FROM jt ORDER BY id",
		"DELETE FROM jt AS t USING js s, js s2 WHERE t.v > s.w * 10 AND s2.id = 9 AND s.id IS NULL AND t.g = 3",
		"SELECT * FROM jt ORDER BY id",
		"DELETE FROM jt USING jt AS j2 WHERE jt.g = j2.g AND jt.id < j2.id",
		"SELECT * FROM jt ORDER BY id",
		"UPDATE jt SET s = 'none' FROM js WHERE jt.g = js.w OR js.id = 100",
		"SELECT * FROM jt ORDER BY id",
		"DELETE FROM jt USING js WHERE js.id = 12345",
		"WITH n AS (SELECT g FROM generate_series(20, 23) g) INSERT INTO jt SELECT g, 1, g, 'w' FROM n",
		"WITH x AS (SELECT id + 18 AS id, nv FROM js) UPDATE jt SET s = x.nv FROM x WHERE jt.id = x.id RETURNING jt.id, jt.s",
		"WITH gone AS (SELECT g AS id FROM generate_series(21, 22) g) DELETE FROM jt USING gone WHERE jt.id = gone.id",
		"WITH a AS (SELECT 20), b (k) AS (SELECT 23) DELETE FROM jt WHERE id IN (SELECT * FROM a) OR id IN (SELECT k FROM b) RETURNING id",
		"SELECT * FROM jt ORDER BY id",
		"UPDATE jt SET v = count(*) FROM js",
		"DELETE FROM jt USING js WHERE jt.nosuch = js.id",
		"DELETE FROM jt USING js",
		"SELECT * FROM jt ORDER BY id",
	}
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustPG(t, conn, "DROP TABLE IF EXISTS jt, js")
			for _, ddl := range []string{"CREATE TABLE jt (id int, g int, v int, s text)", "CREATE TABLE js (id int, nv text, w int)"} {
				mustPG(t, conn, ddl)
				mustQuery(t, s, ddl+" "+mode)
			}
			for _, q := range script {
				compareStatement(t, s, conn, q)
			}
		})
	}
}

// RETURNING of DELETE ... USING and UPDATE ... FROM reads the joined row:
// the target's columns (the new ones for UPDATE), the sources' columns and
// * over all of them, as PostgreSQL 15 returns them; EXPLAIN shows the
// join.
func TestDMLJoinReturningMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	script := []string{
		"INSERT INTO jt VALUES (1,1,10,'a'),(2,1,20,'b'),(3,2,30,'c'),(4,2,NULL,'d'),(5,NULL,50,NULL),(6,3,60,'f'),(7,3,70,'g'),(8,4,80,'h')",
		"INSERT INTO js VALUES (2,'B',1),(3,'C',2),(9,'Z',9),(NULL,'N',0),(7,'G',5)",
		"UPDATE jt SET s = js.nv FROM js WHERE jt.id = js.id AND js.w >= 2 AND js.w < 4 RETURNING jt.*, js.w",
		"DELETE FROM jt USING js WHERE jt.id = js.id - 7 AND js.w = 9 RETURNING *",
		"DELETE FROM jt AS t USING js a, js b WHERE t.id = a.id AND a.w = b.w + 1 RETURNING t.id, a.nv, b.nv",
		"UPDATE jt SET v = -1 FROM (SELECT 6 AS k) AS x WHERE jt.id = x.k RETURNING x.k, jt.v, jt.v + x.k",
		"DELETE FROM jt USING jt WHERE jt.id = 1",
		"UPDATE jt SET v = 1 FROM js jt WHERE jt.id = 1",
		"SELECT * FROM jt ORDER BY id",
	}
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustPG(t, conn, "DROP TABLE IF EXISTS jt, js")
			for _, ddl := range []string{"CREATE TABLE jt (id int, g int, v int, s text)", "CREATE TABLE js (id int, nv text, w int)"} {
				mustPG(t, conn, ddl)
				mustQuery(t, s, ddl+" "+mode)
			}
			for _, q := range script {
				compareStatement(t, s, conn, q)
			}
			plan := mustQuery(t, s, "EXPLAIN DELETE FROM jt AS t USING js a, js b WHERE t.id = a.id AND a.w = b.w + 1 AND t.g > 1").text()
			for _, want := range []string{"Delete on public.jt", "Hash Cond: (t.id = a.id)", "Hash Cond: (a.w = b.w + 1)", `"term":"g"`} {
				if !strings.Contains(plan, want) {
					t.Fatalf("EXPLAIN lacks %q:\n%s", want, plan)
				}
			}
		})
	}
}
