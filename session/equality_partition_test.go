package session

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/magmalake/magmalake/lake"
)

// eqRow is one row of the table the partitioned equality tests write.
type eqRow struct {
	id  int
	k   string
	g   int
	day int // days after 2026-11-15; the hour is id % 24
}

func (r eqRow) values() string {
	return fmt.Sprintf("(%d, '%s', %d, timestamp '2026-11-15 00:00' + interval '%d day' + interval '%d hour', date '2026-11-15' + %d)",
		r.id, r.k, r.g, r.day, r.id%24, r.day*40)
}

// TestEqualityDeletePartitionedSQL: with magmalake.equality_deletes on, a
// DELETE on a partitioned v2 merge-on-read table writes equality deletes,
// one file per partition of the matched rows, for every transform SQL can
// declare and after partition evolution (issue 48: it wrote position
// deletes, and EXPLAIN said nothing). magmalake and iceberg-go's own scan
// read back the model; EXPLAIN names the strategy.
func TestEqualityDeletePartitionedSQL(t *testing.T) {
	for _, part := range []string{"g", "bucket(3, k)", "truncate(1, k)", "year(d)", "month(ts)", "day(ts)", "hour(ts)",
		"g, day(d)", "evolved"} {
		t.Run(part, func(t *testing.T) {
			s := testSession(t)
			spec := part
			if part == "evolved" {
				spec = "g"
			}
			mustQuery(t, s, "CREATE TABLE e (id int, k text, g int, ts timestamp, d date) PARTITIONED BY ("+spec+
				") WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')")
			model := map[int]eqRow{}
			insert := func(from, to int) {
				var vals []string
				for id := from; id < to; id++ {
					r := eqRow{id: id, k: []string{"x", "y", "zz"}[id%3], g: id % 4, day: id % 5}
					model[id] = r
					vals = append(vals, r.values())
				}
				mustQuery(t, s, "INSERT INTO e VALUES "+strings.Join(vals, ", "))
			}
			insert(0, 60)
			if part == "evolved" {
				mustQuery(t, s, "ALTER TABLE e ADD PARTITION FIELD bucket(2, id)")
				insert(60, 120)
			}
			mustQuery(t, s, "SET magmalake.equality_deletes = on")
			explain := mustQuery(t, s, "EXPLAIN DELETE FROM e WHERE k = 'y'").text()
			if !strings.Contains(explain, "Strategy: equality deletes: one equality delete file per partition of the matched rows") {
				t.Fatalf("EXPLAIN:\n%s", explain)
			}
			for _, del := range []struct {
				where string
				gone  func(eqRow) bool
			}{
				{"k = 'y'", func(r eqRow) bool { return r.k == "y" }},
				{"id IN (0, 3, 4, 1000)", func(r eqRow) bool { return r.id == 0 || r.id == 3 || r.id == 4 }},
				{"(g, k) IN ((2, 'zz'), (3, 'x'))", func(r eqRow) bool { return r.g == 2 && r.k == "zz" || r.g == 3 && r.k == "x" }},
			} {
				n := 0
				for id, r := range model {
					if del.gone(r) {
						delete(model, id)
						n++
					}
				}
				before := eqDeleteFiles(t, s)
				if r := mustQuery(t, s, "DELETE FROM e WHERE "+del.where); r.tag != fmt.Sprintf("DELETE %d", n) || n == 0 {
					t.Fatalf("%s: %s, model %d", del.where, r.tag, n)
				}
				if eqDeleteFiles(t, s) <= before {
					t.Fatalf("%s: no equality delete file written", del.where)
				}
				checkEqModel(t, s, model)
			}
			if got := mustQuery(t, s, `SELECT count(*) FROM "e$delete_files" WHERE content <> 2`).text(); got != "0\n" {
				t.Fatalf("position delete files written: %s", got)
			}
			// A row written again with a deleted key lives.
			r := eqRow{id: 500, k: "y", g: 1, day: 2}
			model[r.id] = r
			mustQuery(t, s, "INSERT INTO e VALUES "+r.values())
			checkEqModel(t, s, model)
		})
	}
}

// eqDeleteFiles counts the table's live equality delete files.
func eqDeleteFiles(t *testing.T, s *Session) int64 {
	return intOf(t, s, `SELECT count(*) FROM "e$delete_files" WHERE content = 2`)
}

// checkEqModel reads e through magmalake and through iceberg-go's scan.
func checkEqModel(t *testing.T, s *Session, model map[int]eqRow) {
	t.Helper()
	var want strings.Builder
	for _, id := range slices.Sorted(maps.Keys(model)) {
		fmt.Fprintf(&want, "%d|%s\n", id, model[id].k)
	}
	if got := mustQuery(t, s, "SELECT id, k FROM e ORDER BY id").text(); got != want.String() {
		t.Fatalf("magmalake reads\n%s\nmodel\n%s", got, want.String())
	}
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "e"))
	if err != nil {
		t.Fatal(err)
	}
	at, err := tbl.Scan().ToArrowTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	got := map[int]string{}
	ids, ks := at.Schema().FieldIndices("id")[0], at.Schema().FieldIndices("k")[0]
	for c, chunk := range at.Column(ids).Data().Chunks() {
		kc := at.Column(ks).Data().Chunk(c).(*array.String)
		for i := range chunk.Len() {
			got[int(chunk.(*array.Int32).Value(i))] = kc.Value(i)
		}
	}
	var gotText strings.Builder
	for _, id := range slices.Sorted(maps.Keys(got)) {
		fmt.Fprintf(&gotText, "%d|%s\n", id, got[id])
	}
	if gotText.String() != want.String() {
		t.Fatalf("iceberg-go's scan reads\n%s\nmodel\n%s", gotText.String(), want.String())
	}
}

// TestEqualityDeleteStrategyExplained: EXPLAIN DELETE says which strategy
// the DELETE takes and, when not equality deletes, why.
func TestEqualityDeleteStrategyExplained(t *testing.T) {
	s := testSession(t)
	for _, ddl := range []string{
		"CREATE TABLE un (id int, n numeric(5,2)) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')",
		"CREATE TABLE cow (id int) WITH ('format-version' = '2')",
		"CREATE TABLE v3 (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')",
		"CREATE TABLE un2 (id int) PARTITIONED BY (id) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')",
		"INSERT INTO un VALUES (1, 1.5)", "INSERT INTO cow VALUES (1)", "INSERT INTO v3 VALUES (1)", "INSERT INTO un2 VALUES (1)",
		"ALTER TABLE un2 DROP PARTITION FIELD id",
	} {
		mustQuery(t, s, ddl)
	}
	for _, c := range []struct{ on, q, want string }{
		{"off", "DELETE FROM un WHERE id = 1", "Strategy: position delete files (no equality deletes: magmalake.equality_deletes is off)"},
		{"on", "DELETE FROM un WHERE id = 1", "Strategy: equality deletes: one equality delete file for the whole table (unpartitioned spec 0)"},
		{"on", "DELETE FROM un2 WHERE id = 1", "Strategy: equality deletes: one equality delete file for the whole table (unpartitioned spec 1)"},
		{"on", "DELETE FROM un WHERE id > 1", "Strategy: position delete files (no equality deletes: the WHERE is not equalities of columns to constants"},
		{"on", "DELETE FROM un WHERE n = 1.5", "Strategy: position delete files (no equality deletes: the WHERE is not equalities of columns to constants"},
		{"on", "DELETE FROM un WHERE id = NULL", "Strategy: position delete files (no equality deletes: the WHERE is never true, which matches no row)"},
		{"on", "DELETE FROM un WHERE id IN (NULL, NULL)", "Strategy: position delete files (no equality deletes: every key is NULL, which matches no row)"},
		{"on", "DELETE FROM un WHERE id = 1 RETURNING id", "Strategy: position delete files (no equality deletes: RETURNING needs the deleted rows)"},
		{"on", "DELETE FROM un", "Strategy: position delete files (no equality deletes: the DELETE has no WHERE)"},
		{"on", "DELETE FROM cow WHERE id = 1", "Strategy: copy-on-write: the data files are rewritten (no equality deletes: the table's write.delete.mode is copy-on-write)"},
		{"on", "DELETE FROM v3 WHERE id = 1", "Strategy: deletion vectors (no equality deletes: equality deletes are written to format v2 tables, this one is v3)"},
	} {
		mustQuery(t, s, "SET magmalake.equality_deletes = "+c.on)
		if got := mustQuery(t, s, "EXPLAIN "+c.q).text(); !strings.Contains(got, c.want) {
			t.Errorf("%s (setting %s):\n%s\nwant a line %q", c.q, c.on, got, c.want)
		}
	}
}
