package session

import "testing"

// TestSizePrettyMatchesPostgres: pg_size_pretty of bigint and of numeric
// (sum(bigint) is numeric) answers as PostgreSQL 15's, units and rounding
// included, and a non-number is refused as there.
func TestSizePrettyMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, v := range []string{"0::bigint", "1::bigint", "1023::bigint", "10239::bigint", "10240::bigint", "10752::bigint",
		"1048575::bigint", "1073741824::bigint", "-10240::bigint", "1125899906842624::bigint", "9223372036854775807::bigint",
		"10240::numeric", "10752.5", "(SELECT sum(x::bigint) FROM generate_series(1, 100000) x)", "NULL::bigint", "NULL::numeric",
		"'x'::text"} {
		compareStatement(t, s, conn, "SELECT pg_size_pretty("+v+")")
	}
}
