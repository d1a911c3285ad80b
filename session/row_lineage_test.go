package session

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// keyLineage is one key's _row_id and _last_updated_sequence_number.
type keyLineage struct{ rowID, seq int64 }

// TestRowLineageThroughSQL: on a v3 table, every SQL statement that moves
// rows keeps the lineage the spec asks for, worked out from the data files
// before each statement (their explicit values, else first_row_id +
// position and the entry's data sequence number): copy-on-write DELETE and
// OPTIMIZE keep both values; UPDATE (both modes) keeps _row_id and takes the
// new sequence number, and so do MERGE's updated rows (both modes), its
// other rows keeping theirs and its inserted ones taking new ids; INSERT
// gets ids from next-row-id on. A v2 table's files hold only its columns.
func TestRowLineageThroughSQL(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE rl (k int NOT NULL, g int, v text) PARTITIONED BY (g) WITH ('format-version' = '3')")
	mustQuery(t, s, "INSERT INTO rl SELECT i, i % 3, 'x' || i FROM generate_series(1, 400) AS i")
	mustQuery(t, s, "INSERT INTO rl SELECT i, i % 3, 'y' || i FROM generate_series(401, 600) AS i")
	none := func(int64) bool { return false }
	steps := []struct {
		name     string
		sql      string
		updated  func(k int64) bool // keep _row_id, new sequence number
		replaced func(k int64) bool // new _row_id and sequence number
	}{
		{"cow delete", "DELETE FROM rl WHERE k % 7 = 0", none, none},
		{"cow update", "UPDATE rl SET v = 'u' || k WHERE k % 5 = 0", func(k int64) bool { return k%5 == 0 }, none},
		{"mor mode", "ALTER TABLE rl SET ('write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'copy-on-write')", none, none},
		{"mor update", "UPDATE rl SET v = 'm' || k WHERE k % 11 = 0", func(k int64) bool { return k%11 == 0 }, none},
		{"update moving partition", "UPDATE rl SET g = 9 WHERE k % 13 = 0", func(k int64) bool { return k%13 == 0 }, none},
		{"merge", "MERGE INTO rl USING (SELECT i FROM generate_series(590, 610) AS i) src ON rl.k = src.i " +
			"WHEN MATCHED THEN UPDATE SET v = 'merged' WHEN NOT MATCHED THEN INSERT VALUES (src.i, 1, 'new')",
			func(k int64) bool { return k >= 590 }, none},
		{"mor merge mode", "ALTER TABLE rl SET ('write.merge.mode' = 'merge-on-read')", none, none},
		{"mor merge", "MERGE INTO rl USING (SELECT i FROM generate_series(300, 320) AS i) src ON rl.k = src.i " +
			"WHEN MATCHED AND src.i % 4 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET g = 8 WHEN NOT MATCHED THEN INSERT VALUES (src.i + 1000, 1, 'new')",
			func(k int64) bool { return k >= 300 && k <= 320 }, none},
		{"optimize", "ALTER TABLE rl EXECUTE optimize", none, none},
		{"insert", "INSERT INTO rl SELECT i, 2, 'z' FROM generate_series(700, 720) AS i", none, none},
	}
	for _, st := range steps {
		before, next := lineageFromFiles(t, s, "rl"), loadRL(t, s, "rl").Metadata().NextRowID()
		mustQuery(t, s, st.sql)
		tbl := loadRL(t, s, "rl")
		after := lineageFromFiles(t, s, "rl")
		seq := tbl.CurrentSnapshot().SequenceNumber
		owner := map[int64]int64{}
		for k, got := range after {
			if o, ok := owner[got.rowID]; ok {
				t.Fatalf("%s: keys %d and %d share _row_id %d", st.name, k, o, got.rowID)
			}
			owner[got.rowID] = k
			was, old := before[k]
			switch {
			case !old || st.replaced(k):
				if got.seq != seq || got.rowID < next {
					t.Fatalf("%s: new key %d has %+v, want an id from %d on and sequence number %d", st.name, k, got, next, seq)
				}
			case st.updated(k):
				if want := (keyLineage{was.rowID, seq}); got != want {
					t.Fatalf("%s: updated key %d has %+v, want %+v", st.name, k, got, want)
				}
			case got != was:
				t.Fatalf("%s: untouched key %d has %+v, was %+v", st.name, k, got, was)
			}
		}
		scanned := scanLineage(t, tbl)
		if len(scanned) != len(after) {
			t.Fatalf("%s: iceberg-go scans %d keys, the files hold %d", st.name, len(scanned), len(after))
		}
		for k, l := range after {
			if scanned[k] != l {
				t.Fatalf("%s: iceberg-go reads key %d as %+v, the files say %+v", st.name, k, scanned[k], l)
			}
		}
		if n := len(tbl.Schema().Fields()); n != 3 {
			t.Fatalf("%s: the table's schema has %d fields", st.name, n)
		}
	}
	if got := mustQuery(t, s, "SELECT count(*), count(DISTINCT k) FROM rl").rows[0]; got[0] != got[1] {
		t.Fatalf("keys not unique: %v", got)
	}

	mustQuery(t, s, "CREATE TABLE r2 (k int, v text) WITH ('format-version' = '2')")
	mustQuery(t, s, "INSERT INTO r2 SELECT i, 'x' FROM generate_series(1, 100) AS i")
	mustQuery(t, s, "INSERT INTO r2 SELECT i, 'y' FROM generate_series(101, 200) AS i")
	mustQuery(t, s, "DELETE FROM r2 WHERE k % 3 = 0")
	mustQuery(t, s, "UPDATE r2 SET v = 'u' WHERE k % 5 = 0")
	mustQuery(t, s, "ALTER TABLE r2 EXECUTE optimize")
	for _, df := range liveDataFiles(t, loadRL(t, s, "r2")) {
		pr, err := file.OpenParquetFile(strings.TrimPrefix(df.FilePath(), "file://"), false)
		if err != nil {
			t.Fatal(err)
		}
		n := pr.MetaData().Schema.NumColumns()
		pr.Close()
		if n != 2 {
			t.Fatalf("v2 file %s has %d columns, want the table's 2", df.FilePath(), n)
		}
	}
}

func loadRL(t *testing.T, s *Session, name string) *table.Table {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// liveDataFiles are the current snapshot's data files.
func liveDataFiles(t *testing.T, tbl *table.Table) []iceberg.DataFile {
	t.Helper()
	var out []iceberg.DataFile
	for _, e := range liveDataEntries(t, tbl) {
		out = append(out, e.DataFile())
	}
	return out
}

func liveDataEntries(t *testing.T, tbl *table.Table) []iceberg.ManifestEntry {
	t.Helper()
	fs, err := tbl.FS(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	var out []iceberg.ManifestEntry
	for _, m := range mfs {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
	}
	return out
}

// lineageFromFiles is each live key's lineage read from the data files with
// arrow-go's Parquet reader. Keys iceberg-go's scan no longer returns
// (deleted by a vector) are left out; a key in several files is the copy of
// the newest one (an updated row always lands in a newer file).
func lineageFromFiles(t *testing.T, s *Session, name string) map[int64]keyLineage {
	t.Helper()
	tbl := loadRL(t, s, name)
	live := map[int64]bool{}
	for k := range scanLineage(t, tbl) {
		live[k] = true
	}
	out := map[int64]keyLineage{}
	newest := map[int64]int64{}
	for _, e := range liveDataEntries(t, tbl) {
		df := e.DataFile()
		if df.FirstRowID() == nil {
			t.Fatalf("%s has no first_row_id", df.FilePath())
		}
		keys, ids, seqs := fileColumns(t, df.FilePath())
		for pos, k := range keys {
			l := keyLineage{*df.FirstRowID() + int64(pos), e.SequenceNum()}
			if ids[pos] != nil {
				l.rowID = *ids[pos]
			}
			if seqs[pos] != nil {
				l.seq = *seqs[pos]
			}
			if n, ok := newest[k]; live[k] && (!ok || e.SequenceNum() > n) {
				newest[k] = e.SequenceNum()
				out[k] = l
			}
		}
	}
	return out
}

// fileColumns reads a file's key column (field id 1) and lineage columns
// (found by their reserved field ids; nil: NULL or absent).
func fileColumns(t *testing.T, path string) (keys []int64, ids, seqs []*int64) {
	t.Helper()
	pr, err := file.OpenParquetFile(strings.TrimPrefix(path, "file://"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	at, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	n := int(at.NumRows())
	keys, ids, seqs = make([]int64, n), make([]*int64, n), make([]*int64, n)
	for c := 0; c < int(at.NumCols()); c++ {
		fid, _ := at.Schema().Field(c).Metadata.GetValue("PARQUET:field_id")
		row := 0
		for _, ch := range at.Column(c).Data().Chunks() {
			for j := 0; j < ch.Len(); j, row = j+1, row+1 {
				switch fid {
				case "1":
					keys[row] = int64(ch.(*array.Int32).Value(j))
				case strconv.Itoa(iceberg.RowIDFieldID), strconv.Itoa(iceberg.LastUpdatedSequenceNumberFieldID):
					if ch.IsNull(j) {
						continue
					}
					v := ch.(*array.Int64).Value(j)
					if fid == strconv.Itoa(iceberg.RowIDFieldID) {
						ids[row] = &v
					} else {
						seqs[row] = &v
					}
				}
			}
		}
	}
	return keys, ids, seqs
}

// scanLineage is each key's lineage as iceberg-go's scan reads it.
func scanLineage(t *testing.T, tbl *table.Table) map[int64]keyLineage {
	t.Helper()
	at, err := tbl.Scan(table.WithSelectedFields("k", iceberg.RowIDColumnName, iceberg.LastUpdatedSequenceNumberColumnName)).ToArrowTable(t.Context())
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	out := map[int64]keyLineage{}
	tr := array.NewTableReader(at, 1<<16)
	defer tr.Release()
	for tr.Next() {
		b := tr.RecordBatch()
		keys := b.Column(b.Schema().FieldIndices("k")[0]).(*array.Int32)
		ids := b.Column(b.Schema().FieldIndices(iceberg.RowIDColumnName)[0]).(*array.Int64)
		seqs := b.Column(b.Schema().FieldIndices(iceberg.LastUpdatedSequenceNumberColumnName)[0]).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			out[int64(keys.Value(i))] = keyLineage{ids.Value(i), seqs.Value(i)}
		}
	}
	return out
}
