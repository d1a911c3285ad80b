package session

import (
	"fmt"
	"slices"
	"testing"
)

// A cast to timestamp(p) or time(p) rounds column values as it rounds
// literals (evaluated per row, not folded), and a comparison on the
// rounded value is not pushed down to Iceberg as one on the column.
func TestDateTimePrecisionCastOverColumns(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE p (ts timestamp, t time)")
	vals := [][2]string{{"1990-01-01 00:00:00.5", "23:59:59.9"}, {"2024-01-01 00:00:00.5", "10:00:00.125"}, {"2024-02-29 12:00:00.123456", "00:00:00.4"}}
	for _, v := range vals {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO p VALUES ('%s', '%s')", v[0], v[1]))
	}
	for _, v := range vals {
		want := mustQuery(t, s, fmt.Sprintf("SELECT ('%s'::timestamp)::timestamp(0)::text, ('%s'::time)::time(1)::text", v[0], v[1])).rows
		got := mustQuery(t, s, fmt.Sprintf("SELECT ts::timestamp(0)::text, t::time(1)::text FROM p WHERE ts = '%s'", v[0])).rows
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%v: over the column %v, as literals %v", v, got, want)
		}
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM p WHERE ts::timestamp(0) = '2024-01-01 00:00:01'").rows[0][0]; got != "1" {
		t.Fatalf("rows whose timestamp(0) is 2024-01-01 00:00:01: %s, want 1", got)
	}
	mustQuery(t, s, "DELETE FROM p WHERE ts::timestamp(0) = '1990-01-01 00:00:00'")
	if got := mustQuery(t, s, "SELECT count(*) FROM p").rows[0][0]; got != "2" {
		t.Fatalf("after deleting the row rounded down: %s rows, want 2", got)
	}
}
