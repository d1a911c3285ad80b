package session

import (
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestWholePartitionWindowsMatchPostgres: calls that need their whole
// partition — aggregates over all of it (without ORDER BY, or to
// UNBOUNDED FOLLOWING), lead by a constant (with a default, by 0, past the
// partition), ntile, percent_rank, cume_dist, first_value,
// last_value (to the partition's end, the peer group's, the row),
// nth_value, and aggregates and those three over ROWS frames with offsets
// — over integers, numeric(12,2), floats and text with NULLs, without
// PARTITION BY and with partitions far larger than a work_mem of
// 64kB, give PostgreSQL 15's rows as they do in memory: each partition is
// spooled to disk and replayed through one pass over the sorted rows, one
// pass per window (issue 52: they failed with 53200 once a partition
// passed work_mem, or the windows differed).
func TestWholePartitionWindowsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS ww")
	ddl := "CREATE TABLE ww (g int, k int, o int, d numeric(12,2), f float8, v text)"
	mustPG(t, conn, ddl)
	mustQuery(t, s, ddl)
	fill := `INSERT INTO ww SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 3 END,
		CASE WHEN g % 101 = 0 THEN NULL ELSE (g * 7) % 1500 END,
		CASE WHEN g % 11 = 0 THEN NULL ELSE ((g * 13) % 2000) / 100.0 END,
		CASE WHEN g % 17 = 0 THEN NULL ELSE ((g * 31) % 999) / 4.0 END,
		CASE WHEN g % 19 = 0 THEN NULL ELSE 'text ' || g END
		FROM generate_series(1, 6000) g`
	mustPG(t, conn, fill)
	mustQuery(t, s, fill)
	// Each row's values are determined: peers share them, or the order
	// is unique.
	queries := []string{
		`SELECT g, sum(d) OVER (PARTITION BY k), count(v) OVER (PARTITION BY k), avg(f) OVER (PARTITION BY k), max(v) OVER (),
		   min(o) OVER (PARTITION BY k ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
		 FROM ww ORDER BY g`,
		`SELECT g, lead(v) OVER w, lead(d, 3, -1.5) OVER w, lead(f, 0) OVER w, lead(o, 5000) OVER w,
		   row_number() OVER w, sum(d) OVER (PARTITION BY k)
		 FROM ww WINDOW w AS (PARTITION BY k ORDER BY g DESC) ORDER BY g`,
		`SELECT g, ntile(7) OVER (PARTITION BY k ORDER BY o NULLS FIRST, g), percent_rank() OVER w, cume_dist() OVER w, rank() OVER w, sum(g) OVER w
		 FROM ww WINDOW w AS (PARTITION BY k ORDER BY o NULLS FIRST) ORDER BY g`,
		`SELECT g, first_value(v) OVER w, last_value(d) OVER w, last_value(g) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
		   last_value(f) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), nth_value(g, 40) OVER (w RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
		   first_value(g) OVER (w GROUPS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
		 FROM ww WINDOW w AS (ORDER BY o DESC, d) ORDER BY g`,
		`SELECT g, ntile(4) OVER (ORDER BY g), cume_dist() OVER (ORDER BY g / 10), percent_rank() OVER (ORDER BY g / 10), count(*) OVER ()
		 FROM ww ORDER BY g`,
		// ROWS frames with offsets, frame by frame from the spool.
		`SELECT g, avg(d) OVER (PARTITION BY k ORDER BY g ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING),
		   sum(f) OVER (ORDER BY g ROWS BETWEEN 5 FOLLOWING AND 10 FOLLOWING), count(*) OVER (ORDER BY g ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING),
		   min(v) OVER (PARTITION BY k ORDER BY g ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING), first_value(v) OVER (ORDER BY g ROWS 3 PRECEDING),
		   last_value(d) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING), nth_value(g, 2) OVER (ORDER BY g DESC ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING),
		   sum(g) OVER (ORDER BY g ROWS BETWEEN 3 PRECEDING AND UNBOUNDED FOLLOWING), max(o) OVER (PARTITION BY k ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
		 FROM ww ORDER BY g`,
		// Four windows: four passes, the rows sorted again for each.
		`SELECT g, k, lead(g) OVER (PARTITION BY k ORDER BY g), avg(d) OVER (), rank() OVER (ORDER BY v DESC NULLS LAST),
		   sum(f) OVER (PARTITION BY k ORDER BY o, g), first_value(v) OVER (ORDER BY v DESC NULLS LAST), count(*) OVER (PARTITION BY k)
		 FROM ww ORDER BY g`,
	}
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	// Their arguments' errors are PostgreSQL's.
	for _, q := range []string{
		"SELECT ntile(0) OVER (ORDER BY g) FROM ww",
		"SELECT nth_value(g, 0) OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM ww",
	} {
		compareStatement(t, s, conn, q)
	}
	// Offsets of lag() and lead() other than a non-negative number, valid
	// in PostgreSQL, are 0A000 naming the construct, not syntax errors.
	for _, q := range []string{
		"SELECT lead(g, -2) OVER (ORDER BY g) FROM ww",
		"SELECT lag(g, 1 + 1) OVER (ORDER BY g) FROM ww",
		"SELECT lag(g, NULL, 0) OVER (ORDER BY g) FROM ww",
	} {
		mustPG(t, conn, q)
		mustFail(t, s, pgerr.FeatureNotSupported, q)
	}
}
