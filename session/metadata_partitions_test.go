package session

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMetadataPartitionsAgree: every metadata table that shows a data
// file's partition shows it alike, for every transform and across
// partition evolution (issue 48: "t$delete_debt" said {"ts_day":20758}
// where "t$files" said {"ts_day":"2026-11-15"}, so they did not join).
func TestMetadataPartitionsAgree(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, `CREATE TABLE mp (id int, r int, k text, d date, ts timestamp, tz timestamptz, tz2 timestamptz, n numeric(8,2), b bytea, f boolean)
		PARTITIONED BY (id, bucket(3, k), truncate(2, k), year(tz), month(d), day(ts), hour(tz2), truncate(5, n), b, f)
		WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')`)
	// Three partitions of four rows (g = i % 3 decides every value), then a
	// fourth under the evolved spec; deletes leave every file some rows.
	mustQuery(t, s, `INSERT INTO mp SELECT g, i, 'k' || g, date '2026-11-15' + g, timestamp '2026-11-15 10:00' + g * interval '7 hour',
		timestamptz '2026-11-15 10:00+00' + g * interval '5 hour', timestamptz '2026-11-15 10:00+00' + g * interval '3 hour',
		g * 1.25, '\x0102'::bytea, g = 0 FROM (SELECT i, i % 3 AS g FROM generate_series(1, 12) i) s`)
	mustQuery(t, s, "DELETE FROM mp WHERE r IN (1, 5, 6)")
	mustQuery(t, s, "ALTER TABLE mp DROP PARTITION FIELD b")
	mustQuery(t, s, "ALTER TABLE mp ADD PARTITION FIELD bucket(2, id) AS id_b2")
	mustQuery(t, s, `INSERT INTO mp VALUES (7, 1, 'k7', date '2027-01-01', timestamp '2027-01-01 01:00', timestamptz '2027-01-01 02:00+00',
		timestamptz '2027-01-01 03:00+00', 9.5, NULL, NULL), (7, 2, 'k7', date '2027-01-01', timestamp '2027-01-01 01:00',
		timestamptz '2027-01-01 02:00+00', timestamptz '2027-01-01 03:00+00', 9.5, NULL, NULL)`)
	mustQuery(t, s, "DELETE FROM mp WHERE id = 7 AND r = 1")

	files := pathPartitions(t, s, `SELECT file_path, partition FROM "mp$files" WHERE content = 0`)
	if len(files) != 4 {
		t.Fatalf("%d data files, want 4: %v", len(files), files)
	}
	// A file's partition as JSON text: the day transform's value is a date.
	var first map[string]any
	if err := json.Unmarshal([]byte(files[firstPath(t, s)]), &first); err != nil || first["ts_day"] != "2026-11-15" {
		t.Fatalf("the first file's partition %s: ts_day is not the date 2026-11-15 (%v)", files[firstPath(t, s)], err)
	}
	for _, q := range []string{
		`SELECT file_path, partition FROM "mp$data_files"`,
		`SELECT file_path, partition FROM "mp$delete_debt"`,
	} {
		if got := pathPartitions(t, s, q); !reflect.DeepEqual(got, files) {
			t.Errorf("%s:\n got  %v\n want %v", q, got, files)
		}
	}
	// They join on the text.
	if n := intOf(t, s, `SELECT count(*) FROM "mp$delete_debt" d JOIN "mp$files" f ON d.file_path = f.file_path AND d.partition = f.partition`); n != 4 {
		t.Errorf("delete_debt joins files on partition for %d files, want 4", n)
	}
	distinct := map[string]bool{}
	for _, p := range files {
		distinct[canonicalJSON(t, p)] = true
	}
	parts := map[string]bool{}
	for _, r := range mustQuery(t, s, `SELECT partition FROM "mp$partitions"`).rows {
		parts[canonicalJSON(t, r[0])] = true
	}
	if !reflect.DeepEqual(parts, distinct) {
		t.Errorf(`"mp$partitions": %v, the data files' partitions: %v`, parts, distinct)
	}
	// Entries carry the data file's partition inside data_file.
	for _, r := range mustQuery(t, s, `SELECT data_file FROM "mp$entries"`).rows {
		var df struct {
			Content   int             `json:"content"`
			FilePath  string          `json:"file_path"`
			Partition json.RawMessage `json:"partition"`
		}
		if err := json.Unmarshal([]byte(r[0]), &df); err != nil {
			t.Fatal(err)
		}
		if want, ok := files[df.FilePath]; ok && canonicalJSON(t, string(df.Partition)) != canonicalJSON(t, want) {
			t.Errorf("entries: %s partition %s, files %s", df.FilePath, df.Partition, want)
		}
	}
	// Position deletes live in their data file's partition.
	for _, p := range pathPartitions(t, s, `SELECT file_path, partition FROM "mp$delete_files"`) {
		if !distinct[canonicalJSON(t, p)] {
			t.Errorf("a delete file's partition %s is no data file's", p)
		}
	}
}

func firstPath(t *testing.T, s *Session) string {
	return mustQuery(t, s, `SELECT file_path FROM "mp$files" WHERE content = 0 AND partition LIKE '%"id":1,%'`).rows[0][0]
}

func pathPartitions(t *testing.T, s *Session, q string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range mustQuery(t, s, q).rows {
		out[r[0]] = r[1]
	}
	return out
}

// canonicalJSON is text's JSON value written back, keys sorted.
func canonicalJSON(t *testing.T, text string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
