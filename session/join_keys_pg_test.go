package session

import "testing"

// Joins on float, numeric and uuid keys hash the values themselves (a
// float's bits with every NaN one value and -0 as 0, a numeric's decimal128
// coefficient at its scale, a uuid's 16 bytes) rather than a text encoding
// of each: the rows are PostgreSQL 15's, NaN, -0, infinities, NULLs,
// duplicates, float4 against float8 and numerics of other scales included
// (issue 48: a join on numeric keys built a rational number's text per row).
func TestJoinKeyTypesMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS kf, kg")
	for _, name := range []string{"kf", "kg"} {
		ddl := "CREATE TABLE " + name + " (id int, f float8, r real, n numeric(12,2), m numeric(10,2), w numeric(12,3), u uuid)"
		mustPG(t, conn, ddl)
		mustQuery(t, s, ddl)
	}
	script := []string{
		`INSERT INTO kf VALUES
			(1, 0, 0, 1.50, 1.50, 1.500, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
			(2, '-0', '-0', -1.50, -1.5, -1.5, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'),
			(3, 'NaN', 'NaN', 0, 0, 0.001, 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
			(4, 'Infinity', 'Infinity', 12345.67, 12345.67, 12345.670, '00000000-0000-0000-0000-000000000000'),
			(5, '-Infinity', '-Infinity', -9999999999.99, NULL, NULL, NULL),
			(6, 0.1, 0.1, 0.01, 0.01, 0.010, '80000000-0000-0000-0000-000000000000'),
			(7, 1.5, 1.5, 1.50, 1.5, 1.5, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
			(8, NULL, NULL, NULL, NULL, NULL, NULL)`,
		`INSERT INTO kg VALUES
			(10, '-0', 0, 1.5, -1.5, 1.5, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
			(11, 'NaN', 'NaN', -1.50, 0, -1.500, 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
			(12, 'NaN', 'Infinity', 12345.67, 12345.67, 0.001, '7fffffff-ffff-ffff-ffff-ffffffffffff'),
			(13, '-Infinity', '-Infinity', 9999999999.99, NULL, 12345.67, '80000000-0000-0000-0000-000000000000'),
			(14, 0.1, 0.1, 0.01, 0.01, 0.01, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'),
			(15, 1.5, 1.5, 0, 1.5, 0.000, NULL),
			(16, NULL, NULL, NULL, NULL, NULL, '00000000-0000-0000-0000-000000000000')`,
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.f = b.f ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.r = b.r ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.r = b.f ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a LEFT JOIN kg b ON a.f = b.f ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a FULL JOIN kg b ON a.r = b.r ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.n = b.n ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.n = b.m ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.n = b.w ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a RIGHT JOIN kg b ON a.m = b.n ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kg b ON a.u = b.u ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a FULL JOIN kg b ON a.u = b.u ORDER BY 1, 2",
		"SELECT a.id, b.id FROM kf a JOIN kf b ON a.u = b.u AND a.n = b.n ORDER BY 1, 2",
		"SELECT a.id, b.id, a.n FROM kf a JOIN kg b ON a.n = b.n AND a.f < b.f ORDER BY 1, 2",
	}
	for _, q := range script {
		compareStatement(t, s, conn, q)
	}
}
