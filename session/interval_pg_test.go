package session

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestIntervalMatchesPostgres compares interval input, output, arithmetic
// with timestamps and dates, comparison, grouping, EXTRACT and
// generate_series over timestamps with PostgreSQL 15.
func TestIntervalMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE iv (id int, ts timestamp, d date)",
		"INSERT INTO iv VALUES (1, '2024-01-31 10:00', '2024-01-31'), (2, '2024-02-29 23:59:59.5', '2024-02-29'), (3, NULL, NULL), (4, '2023-12-31 00:00', '2020-02-29')",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	queries := []string{
		"SELECT timestamp '2024-01-31' - '2024-01-01', -interval '1 day 2 hours', interval '1 mon' = interval '30 days'",
		"SELECT interval '1 day' * 1.5, interval '1 year' / 7, 2 * interval '1:30', interval '3 days' / 2.5",
		"SELECT date '2024-01-31' + interval '1 month', timestamp '2024-03-10 01:00' - timestamp '2024-01-01', interval '1 day' + interval '-3 hours'",
		"SELECT interval '-1 day 2 hours', interval '1 year -2 mons 3 days -04:05:06.5', interval '1.5 months', interval 'P1Y2M3DT4H5M6S'",
		"SELECT interval '90 minutes', interval '7' day, interval '@ 2 hours ago', interval '0', interval '1:30.5', interval '1.25 weeks', interval '2 decades'",
		"SELECT id, ts + interval '1 month', ts - interval '36 hours', d + interval '1 year', ts - timestamp '2024-01-01' FROM iv ORDER BY id",
		"SELECT id FROM iv WHERE ts >= timestamp '2024-03-01' - interval '1 month 1 day' ORDER BY id",
		"SELECT id, ts + '1 day' FROM iv WHERE ts IS NOT NULL ORDER BY id",
		"SELECT * FROM generate_series(timestamp '2024-01-30', timestamp '2024-05-01', interval '1 month') g",
		"SELECT generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day'::interval) AS d",
		"SELECT count(*) FROM generate_series(timestamp '2024-01-01', timestamp '2024-01-02', '1 hour')",
		"SELECT * FROM generate_series(timestamp '2024-01-03', timestamp '2024-01-01', interval '-1 day')",
		"SELECT * FROM generate_series(timestamp '2024-01-03', timestamp '2024-01-01', interval '0 days')",
		"SELECT extract(epoch from interval '1 year 2 mons 3 days 04:05:06.5'), date_part('hour', interval '-26 hours'), extract(second from interval '1:30.5'), extract(milliseconds from interval '1:30.5')",
		"SELECT extract(month from interval '14 months'), extract(quarter from interval '8 mons'), extract(century from interval '250 years'), extract(minute from interval '-01:30')",
		"SELECT i, count(*) FROM (VALUES (interval '1 mon'), (interval '30 days'), (interval '1 day')) v(i) GROUP BY i ORDER BY i",
		"SELECT max(i), min(i) FROM (VALUES (interval '1 mon'), (interval '31 days'), (interval '-1 day')) v(i)",
		"SELECT date '2024-01-01' + '1 day'",
		"SELECT interval 'nonsense'",
		"SELECT '1 day'::interval::text, CAST('2 hours' AS interval) < interval '1 day'",
	}
	for i, q := range queries {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
	// A generated corpus of interval texts, read and printed by both.
	r := rand.New(rand.NewPCG(7, 11))
	units := []string{"year", "years", "mon", "months", "week", "day", "days", "hour", "hours", "min", "minutes", "sec", "seconds", "ms", "microseconds"}
	for k := 0; k < 500; k++ {
		var parts []string
		for n := 1 + r.IntN(4); n > 0; n-- {
			switch r.IntN(4) {
			case 0:
				parts = append(parts, fmt.Sprintf("%02d:%02d:%02d", r.IntN(30), r.IntN(60), r.IntN(60)))
			case 1:
				parts = append(parts, fmt.Sprintf("%.2f %s", r.Float64()*20-10, units[r.IntN(len(units))]))
			default:
				parts = append(parts, fmt.Sprintf("%d %s", r.IntN(200)-100, units[r.IntN(len(units))]))
			}
		}
		q := fmt.Sprintf("SELECT interval '%s', interval '%s' * 3, extract(epoch from interval '%s')", strings.Join(parts, " "), strings.Join(parts, " "), strings.Join(parts, " "))
		t.Run("corpus"+strconv.Itoa(k), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
}
