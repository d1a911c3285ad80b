package session

import "testing"

func TestSmoke(t *testing.T) {
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE t (id bigint NOT NULL, name text, score double precision, d date, n numeric(10,2), ok boolean) PARTITIONED BY (ok)",
		"INSERT INTO t VALUES (1, 'a', 1.5, '2024-01-01', 10.25, true), (2, 'b', NULL, '2024-02-01', NULL, false), (3, NULL, 3.25, NULL, 3, true)",
		"SELECT * FROM t ORDER BY id",
		"SELECT count(*), sum(id), avg(score), max(name) FROM t",
		"SELECT ok, count(*) FROM t GROUP BY ok ORDER BY 1",
		"SELECT 1 + 1, 'x' || 'y', now() IS NOT NULL",
		"DELETE FROM t WHERE id = 2",
		"SELECT id FROM t ORDER BY id DESC",
		"EXPLAIN DELETE FROM t WHERE name = 'a'",
		"DELETE FROM t WHERE ok RETURNING id, name",
		"SELECT count(*) FROM t",
		"SHOW TABLES",
		"DESCRIBE t",
		"SHOW timezone",
	} {
		r, err := s.query(t.Context(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		t.Logf("%s\n%v\n%s%s", q, r.cols, r.text(), r.tag)
	}
}
