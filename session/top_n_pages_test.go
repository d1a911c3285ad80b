package session

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// topRow is one row of the top-N tables: an id, three keys (nil: NULL)
// in no particular order, with ties, and a payload.
type topRow struct {
	id      int
	k, cent *int // cent: the decimal d in cents
	day     *int // dt: days after 2024-01-01
}

func (r topRow) values() string {
	lit := func(p *int, f func(int) string) string {
		if p == nil {
			return "NULL"
		}
		return f(*p)
	}
	return fmt.Sprintf("(%d, %s, %s, %s, %s, 'p%d')", r.id,
		lit(r.k, strconv.Itoa),
		lit(r.cent, func(c int) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }),
		lit(r.day, func(d int) string { return fmt.Sprintf("date '2024-01-01' + %d", d) }),
		lit(r.k, func(k int) string {
			return fmt.Sprintf("timestamptz '2024-01-01 00:00:00+00' + interval '%d seconds'", 37*k)
		}), r.id)
}

// topModel is the ids of the rows ORDER BY key (desc, NULLs first or
// not), id LIMIT limit OFFSET offset keeps, of those where keep holds.
func topModel(rows []topRow, key func(topRow) *int, desc, nullsFirst bool, limit, offset int, keep func(topRow) bool) []string {
	var in []topRow
	for _, r := range rows {
		if keep(r) {
			in = append(in, r)
		}
	}
	slices.SortStableFunc(in, func(a, b topRow) int {
		ka, kb := key(a), key(b)
		switch {
		case ka == nil && kb == nil:
		case ka == nil || kb == nil:
			if (ka == nil) == nullsFirst {
				return -1
			}
			return 1
		default:
			if c := cmp.Compare(*ka, *kb); c != 0 {
				if desc {
					return -c
				}
				return c
			}
		}
		return cmp.Compare(a.id, b.id)
	})
	var ids []string
	for i := offset; i < len(in) && i < offset+limit; i++ {
		ids = append(ids, strconv.Itoa(in[i].id))
	}
	return ids
}

// TestTopNSkipsPagesByItsBound: ORDER BY ... LIMIT over a table scan hands
// its bound to the scan, which then decodes only the pages that can still
// hold a row making the cut. The answers are the model's for every
// direction and NULL placement, with ties, NULLs, OFFSET, a WHERE, and a
// file with deletes (read by iceberg-go's reader, not narrowed), for
// integer, numeric, date and timestamptz keys; and the scan returns a
// fraction of the table's rows.
func TestTopNSkipsPagesByItsBound(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, `CREATE TABLE topn (id int, k bigint, d numeric(8,2), dt date, ts timestamptz, p text) WITH (
		'format-version' = '2', 'write.delete.mode' = 'merge-on-read',
		'write.parquet.row-group-limit' = '1000', 'write.parquet.page-row-limit' = '100',
		'write.parquet.page-size-bytes' = '512')`)
	rng := rand.New(rand.NewPCG(7, 11))
	maybe := func(v int) *int {
		if rng.IntN(40) == 0 {
			return nil
		}
		return &v
	}
	var rows []topRow
	const files, perFile = 4, 6000
	for f := range files {
		var vals []string
		for i := range perFile {
			r := topRow{id: f*perFile + i + 1, k: maybe(rng.IntN(5000)), cent: maybe(rng.IntN(200000)), day: maybe(rng.IntN(3000))}
			rows = append(rows, r)
			vals = append(vals, r.values())
		}
		mustQuery(t, s, "INSERT INTO topn VALUES "+strings.Join(vals, ", "))
	}
	// The last file gets a position delete: iceberg-go's reader reads it.
	mustQuery(t, s, fmt.Sprintf("DELETE FROM topn WHERE id %% 7 = 0 AND id > %d", (files-1)*perFile))
	live := func(r topRow) bool { return !(r.id%7 == 0 && r.id > (files-1)*perFile) }
	key := map[string]func(topRow) *int{"k": func(r topRow) *int { return r.k }, "d": func(r topRow) *int { return r.cent },
		"dt": func(r topRow) *int { return r.day }, "ts": func(r topRow) *int { return r.k }} // ts: k seconds·37 after 2024
	cases := []struct {
		col, order    string
		desc, nullsFt bool
		limit, offset int
		where         string
		keep          func(topRow) bool
	}{
		{"k", "DESC", true, true, 7, 0, "", live},
		{"k", "ASC", false, false, 5, 0, "", live},
		{"k", "ASC NULLS FIRST", false, true, 5, 3, "", live},
		{"k", "DESC NULLS LAST", true, false, 12, 0, "", live},
		{"d", "DESC", true, true, 10, 0, "", live},
		{"d", "ASC", false, false, 3, 2, "", live},
		{"dt", "ASC", false, false, 20, 0, "", live},
		{"dt", "DESC NULLS LAST", true, false, 4, 0, "id % 3 = 1", func(r topRow) bool { return live(r) && r.id%3 == 1 }},
		{"k", "DESC", true, true, 1000, 0, "", live},
		{"ts", "DESC", true, true, 9, 0, "", live},
		{"ts", "ASC", false, false, 6, 1, "id % 2 = 0", func(r topRow) bool { return live(r) && r.id%2 == 0 }},
	}
	for _, tc := range cases {
		where := ""
		if tc.where != "" {
			where = "WHERE " + tc.where
		}
		q := fmt.Sprintf("SELECT id FROM topn %s ORDER BY %s %s, id LIMIT %d OFFSET %d", where, tc.col, tc.order, tc.limit, tc.offset)
		var got []string
		for _, r := range mustQuery(t, s, q).rows {
			got = append(got, r[0])
		}
		if want := topModel(rows, key[tc.col], tc.desc, tc.nullsFt, tc.limit, tc.offset, tc.keep); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", q, got, want)
		}
	}
	// The scan returns the rows of the pages it decoded: with the bound,
	// a few of each row group after the first ones (at most GOMAXPROCS
	// read ahead), and the file with deletes whole: under half the other
	// files' rows. (Not under DESC: its NULLs come first, and a page
	// holding one cannot be skipped.)
	for _, col := range []string{"k", "ts"} {
		plan := mustQuery(t, s, "EXPLAIN ANALYZE SELECT id, p FROM topn ORDER BY "+col+", id LIMIT 3").rows
		var text strings.Builder
		for _, r := range plan {
			text.WriteString(r[0] + "\n")
		}
		m := regexp.MustCompile(`Scan on public\.topn.*actual[^\n]*rows=(\d+)`).FindStringSubmatch(text.String())
		if m == nil {
			t.Fatalf("no scan in the plan:\n%s", text.String())
		}
		n, _ := strconv.Atoi(m[1])
		t.Logf("ORDER BY %s: the scan returned %d of %d rows", col, n, files*perFile)
		if n > perFile+(files-1)*perFile/2 {
			t.Errorf("ORDER BY %s: the scan returned %d of %d rows: the bound skipped too few pages\n%s", col, n, files*perFile, text.String())
		}
	}
}
