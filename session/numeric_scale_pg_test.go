package session

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Unconstrained numeric keeps each value's display scale (issue 17, item 7):
// divisions follow select_div_scale per value, avg and the statistics of
// integers and numerics follow numeric_avg and numeric_stddev_internal, and a
// numeric is not capped at 38 digits; numeric literals are read exactly. Every result is compared digit for
// digit with PostgreSQL 15 over generated rows in the four table modes.

const nsColumns = "id int, g int, i int, b bigint, d numeric(12,3)"

// nsRows generates rows whose magnitudes vary over many powers of ten, so
// quotients of one column land on different base-10000 weights (and so
// different display scales), with NULLs in every value column.
func nsRows(rng *rand.Rand, first, n int) []string {
	rows := make([]string, n)
	val := func(format string, v any) string {
		if rng.IntN(8) == 0 {
			return "NULL"
		}
		return fmt.Sprintf(format, v)
	}
	for k := range rows {
		mag := int64(1)
		for range rng.IntN(9) {
			mag *= 10
		}
		i := rng.Int64N(mag) - mag/3
		b := rng.Int64N(mag*mag) - mag
		d := float64(rng.Int64N(mag*1000)-mag*100) / 1000
		rows[k] = fmt.Sprintf("(%d, %d, %s, %s, %s)", first+k, rng.IntN(4),
			val("%d", i), val("%d", b), val("%.3f", d))
	}
	return rows
}

var nsQueries = []string{
	"SELECT id, i::numeric / 7, d / 3, b / 3.0, d / 1, d * 1.5, i::numeric / 3 * 3 FROM n ORDER BY id",
	"SELECT id, d / NULLIF(i, 0), b::numeric / NULLIF(d, 0) FROM n ORDER BY id",
	"SELECT g, avg(i), avg(b), avg(d), sum(b), sum(d), count(*) FROM n GROUP BY g ORDER BY g",
	"SELECT g, stddev(i), variance(b), stddev_pop(d), var_samp(d), var_pop(i) FROM n GROUP BY g ORDER BY g",
	"SELECT avg(d / 3), sum(i::numeric / 7), max(d / 7), min(i::numeric / 3) FROM n",
	"SELECT avg(i), stddev(b), avg(d) FROM n WHERE id < 2",
	"SELECT d / 3 AS q, count(*) FROM n WHERE d IS NOT NULL GROUP BY d / 3 ORDER BY q LIMIT 5",
	"SELECT DISTINCT (g * 1.0) / 1 FROM n ORDER BY 1",
	"SELECT id FROM n WHERE i::numeric / 7 > 1 ORDER BY i::numeric / 7, id LIMIT 10",
	"SELECT 1::numeric / 3, 100::numeric / 3, 1e300 * 10, -1::numeric / 30000, round(2::numeric / 3, 2)",
	"SELECT g, sum(b * 1e30), avg(d * 1e40), max(d * 1e40) FROM n GROUP BY g ORDER BY g",
	"SELECT avg(id), stddev(id), stddev(id::numeric / 3), variance(-id::numeric) FROM n WHERE id IN (1, 2)",
	"SELECT -9223372036854775808, -1::numeric / 30000, -2.5::numeric / 7, - 1 / 3",
	// Literals with an exponent are exact numerics, and long ones are not
	// cut at tidb's 81 digits.
	"SELECT 1.234567890123456789e5, 0.1e1, 12e-1, 1E+3, -2.5e2, 1e-40, 1e1000 / 1e999, 1e8 / 3, -1e2 / 7",
	"SELECT 1234567890123456789012345678901234567890123456789012345678901234567890123456789012.5 + 1",
	"SELECT length((1e131071)::text), length((1.5e-16382)::text)",
	"SELECT 1e131072",
	"SELECT 1e9999999999",
	"SELECT '1e-16384'::numeric",
	"SELECT id FROM n WHERE d > 1e2 ORDER BY id",
}

func TestNumericDisplayScaleMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	rng := rand.New(rand.NewPCG(7, 7))
	batches := [][]string{nsRows(rng, 0, 12), nsRows(rng, 12, 12), nsRows(rng, 24, 12)}
	mustPG(t, conn, "CREATE TABLE n ("+nsColumns+")")
	for _, rows := range batches {
		mustPG(t, conn, "INSERT INTO n VALUES "+strings.Join(rows, ", "))
	}
	mustPG(t, conn, "DELETE FROM n WHERE id % 5 = 4")
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, "CREATE TABLE n ("+nsColumns+") "+mode)
			for _, rows := range batches {
				mustQuery(t, s, "INSERT INTO n VALUES "+strings.Join(rows, ", "))
			}
			mustQuery(t, s, "DELETE FROM n WHERE id % 5 = 4")
			for _, q := range nsQueries {
				fnCompare(t, s, conn, q, q, nil)
			}
		})
	}
}
