package session

import (
	"encoding/binary"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/puffin"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/theta"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// loadTable is public.name as the catalog has it now.
func loadTable(t *testing.T, s *Session, name string) *table.Table {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// statisticsOf is tbl's statistics entry for snapshot id.
func statisticsOf(tbl *table.Table, id int64) (table.StatisticsFile, bool) {
	for sf := range tbl.Metadata().Statistics() {
		if sf.SnapshotID == id {
			return sf, true
		}
	}
	return table.StatisticsFile{}, false
}

// readStatistics opens a statistics file with iceberg-go's Puffin reader
// and checks the sizes its entry records.
func readStatistics(t *testing.T, tbl *table.Table, sf table.StatisticsFile) *puffin.Reader {
	t.Helper()
	fs, err := tbl.FS(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f, err := fs.Open(sf.StatisticsPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	size, err := f.Seek(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	tail := make([]byte, 12)
	if _, err := f.ReadAt(tail, size-12); err != nil {
		t.Fatal(err)
	}
	// The footer: magic, payload, payload size, flags, magic.
	footer := 4 + int64(binary.LittleEndian.Uint32(tail)) + 12
	if sf.FileSizeInBytes != size || sf.FileFooterSizeInBytes != footer {
		t.Fatalf("entry says %d bytes, footer %d; the file has %d, footer %d", sf.FileSizeInBytes, sf.FileFooterSizeInBytes, size, footer)
	}
	r, err := puffin.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sketchOf is the compact sketch of values, each serialized by
// iceberg-go's single-value serialization of literals (an implementation
// apart from the one ANALYZE uses).
func sketchOf(t *testing.T, values []iceberg.Literal) []byte {
	t.Helper()
	s, err := theta.New(theta.DefaultLgK)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		b, err := v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		s.Update(b)
	}
	out, err := s.Compact().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAnalyzeCommitsThetaStatistics: ANALYZE writes one Puffin file for
// the current snapshot, with an apache-datasketches-theta-v1 blob per
// column (fields, snapshot-id, sequence-number, ndv) and commits it to
// the metadata without a new snapshot. ndv is the count of distinct
// non-null live values (the sketch is exact below 4096: deleted rows and
// NULLs are not counted), and the blobs hold the bytes of a sketch fed
// iceberg-go's serialization of the same values.
func TestAnalyzeCommitsThetaStatistics(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, `CREATE TABLE st (id int, s text, n bigint, d date, f double precision, b boolean, x numeric(10,2),
		ts timestamp, u uuid, e text)`)
	mustQuery(t, s, `INSERT INTO st SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'v' || (i % 37) END, i / 3,
		DATE '2024-01-01' + i % 50, (i % 13) * 0.5, i % 2 = 0, (i % 71) * 1.25 - 40,
		TIMESTAMP '2024-01-01' + (i % 11) * interval '1 hour',
		('00000000-0000-0000-0000-0000000000' || lpad((i % 23)::text, 2, '0'))::uuid, NULL
		FROM generate_series(1, 2000) i`)
	mustQuery(t, s, "DELETE FROM st WHERE id > 1900")
	before := loadTable(t, s, "st")
	if res := mustQuery(t, s, "ANALYZE st"); res.tag != "ANALYZE" {
		t.Fatalf("tag %q", res.tag)
	}
	tbl := loadTable(t, s, "st")
	if len(tbl.Metadata().Snapshots()) != len(before.Metadata().Snapshots()) || tbl.CurrentSnapshot().SnapshotID != before.CurrentSnapshot().SnapshotID {
		t.Fatal("ANALYZE made a snapshot")
	}
	snap := tbl.CurrentSnapshot()
	sf, ok := statisticsOf(tbl, snap.SnapshotID)
	if !ok {
		t.Fatal("no statistics for the current snapshot")
	}
	r := readStatistics(t, tbl, sf)
	cols := []string{"id", "s", "n", "d", "f", "b", "x", "ts", "u", "e"}
	if len(sf.BlobMetadata) != len(cols) || len(r.Blobs()) != len(cols) {
		t.Fatalf("%d blobs in the metadata, %d in the file, want %d", len(sf.BlobMetadata), len(r.Blobs()), len(cols))
	}
	for i, c := range cols {
		bm, fb := sf.BlobMetadata[i], r.Blobs()[i]
		f, _ := tbl.Schema().FindFieldByName(c)
		if bm.Type != table.BlobTypeApacheDatasketchesThetaV1 || !slices.Equal(bm.Fields, []int32{int32(f.ID)}) ||
			bm.SnapshotID != snap.SnapshotID || bm.SequenceNumber != snap.SequenceNumber {
			t.Fatalf("%s: blob metadata %+v", c, bm)
		}
		if string(fb.Type) != string(bm.Type) || fb.SnapshotID != bm.SnapshotID || fb.Properties["ndv"] != bm.Properties["ndv"] {
			t.Fatalf("%s: the file's blob %+v differs from the metadata's %+v", c, fb, bm)
		}
		want := mustQuery(t, s, "SELECT count(DISTINCT "+c+") FROM st").rows[0][0]
		if bm.Properties["ndv"] != want {
			t.Errorf("%s: ndv %s, want %s", c, bm.Properties["ndv"], want)
		}
		data, err := r.ReadBlobByMetadata(fb)
		if err != nil {
			t.Fatal(err)
		}
		sk, err := theta.Parse(data, theta.DefaultSeed)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if strconv.FormatFloat(sk.Estimate(), 'f', -1, 64) != want {
			t.Errorf("%s: the sketch estimates %v, want %s", c, sk.Estimate(), want)
		}
		if lits := distinctLiterals(t, s, c); lits != nil && string(sketchOf(t, lits)) != string(data) {
			t.Errorf("%s: the blob is not the sketch of iceberg-go's serialization of the values", c)
		}
	}
}

// distinctLiterals are column c's distinct non-null values of st as
// iceberg-go literals, for the columns whose text reads back simply.
func distinctLiterals(t *testing.T, s *Session, c string) []iceberg.Literal {
	t.Helper()
	var lit func(string) iceberg.Literal
	switch c {
	case "id":
		lit = func(v string) iceberg.Literal {
			n, _ := strconv.ParseInt(v, 10, 32)
			return iceberg.NewLiteral(int32(n))
		}
	case "n":
		lit = func(v string) iceberg.Literal { n, _ := strconv.ParseInt(v, 10, 64); return iceberg.NewLiteral(n) }
	case "s":
		lit = func(v string) iceberg.Literal { return iceberg.NewLiteral(v) }
	case "x":
		lit = func(v string) iceberg.Literal {
			l, err := iceberg.NewLiteral(v).To(iceberg.DecimalTypeOf(10, 2))
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
	case "d":
		lit = func(v string) iceberg.Literal {
			l, err := iceberg.NewLiteral(v).To(iceberg.PrimitiveTypes.Date)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
	default:
		return nil
	}
	var out []iceberg.Literal
	for _, row := range mustQuery(t, s, "SELECT DISTINCT "+c+" FROM st WHERE "+c+" IS NOT NULL").rows {
		out = append(out, lit(row[0]))
	}
	return out
}

// TestAnalyzeNamesColumnsAndRefs: ANALYZE t (col, ...) sketches the
// columns named; t@b analyzes the branch's snapshot; a missing or
// repeated column is PostgreSQL's error; a view is skipped with
// PostgreSQL's warning; ANALYZE alone analyzes every table.
func TestAnalyzeNamesColumnsAndRefs(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE ra (a int, b text)")
	mustQuery(t, s, "CREATE TABLE rb (c int)")
	mustQuery(t, s, "INSERT INTO ra SELECT i, 'x' || (i % 4) FROM generate_series(1, 30) i")
	mustQuery(t, s, "INSERT INTO rb VALUES (1), (2)")
	mustQuery(t, s, "ALTER TABLE ra CREATE BRANCH br")
	mustQuery(t, s, "INSERT INTO ra VALUES (31, 'new')")
	mustQuery(t, s, "CREATE VIEW rv AS SELECT * FROM ra")

	mustQuery(t, s, "ANALYZE ra (b)")
	tbl := loadTable(t, s, "ra")
	sf, ok := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	if !ok || len(sf.BlobMetadata) != 1 || sf.BlobMetadata[0].Properties["ndv"] != "5" {
		t.Fatalf("ANALYZE ra (b): %+v", sf)
	}
	// Another column's ANALYZE keeps b's sketch, as PostgreSQL keeps b's
	// statistics.
	mustQuery(t, s, "ANALYZE ra (a)")
	tbl = loadTable(t, s, "ra")
	sf, _ = statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	ndvs := map[int32]string{}
	for _, bm := range sf.BlobMetadata {
		ndvs[bm.Fields[0]] = bm.Properties["ndv"]
	}
	if len(ndvs) != 2 || ndvs[1] != "31" || ndvs[2] != "5" {
		t.Fatalf("ANALYZE ra (a) after ANALYZE ra (b): ndv by field %v, want 1: 31, 2: 5", ndvs)
	}
	r := readStatistics(t, tbl, sf)
	if len(r.Blobs()) != 2 {
		t.Fatalf("the file holds %d blobs, want 2", len(r.Blobs()))
	}
	mustQuery(t, s, `ANALYZE "ra@br"`)
	tbl = loadTable(t, s, "ra")
	ref, _ := lake.FindRef(tbl.Metadata(), "br")
	sf, ok = statisticsOf(tbl, ref.SnapshotID)
	if !ok || len(sf.BlobMetadata) != 2 || sf.BlobMetadata[0].Properties["ndv"] != "30" || sf.BlobMetadata[1].Properties["ndv"] != "4" {
		t.Fatalf("ANALYZE ra@br: %+v", sf)
	}
	mustFail(t, s, pgerr.UndefinedColumn, "ANALYZE ra (nope)")
	mustFail(t, s, pgerr.DuplicateColumn, "ANALYZE ra (a, a)")
	p, err := s.Prepare(t.Context(), "ANALYZE VERBOSE rv", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(t.Context(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notices) != 1 || res.Notices[0].Severity != "WARNING" || !strings.Contains(res.Notices[0].Message, `skipping "rv"`) {
		t.Fatalf("ANALYZE rv: %+v", res.Notices)
	}
	mustQuery(t, s, "ANALYZE")
	for _, name := range []string{"ra", "rb"} {
		tbl := loadTable(t, s, name)
		sf, ok := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
		if !ok || len(sf.BlobMetadata) != len(tbl.Schema().Fields()) {
			t.Fatalf("ANALYZE left %s with %+v", name, sf)
		}
	}
}

// TestStatisticsFilesOutliveOrphanRemoval: a statistics file is a file the
// table references: orphan removal with no age threshold keeps it.
func TestStatisticsFilesOutliveOrphanRemoval(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE so (a int)")
	mustQuery(t, s, "INSERT INTO so VALUES (1), (2)")
	mustQuery(t, s, "ANALYZE so")
	tbl := loadTable(t, s, "so")
	sf, _ := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	mustQuery(t, s, "ALTER TABLE so EXECUTE remove_orphan_files(retention_threshold => '0s')")
	if _, err := os.Stat(localPath(sf.StatisticsPath)); err != nil {
		t.Fatalf("orphan removal took the statistics file: %v", err)
	}
}

// TestExpiryRemovesStatistics: expiring a snapshot removes its
// statistics entry and deletes its file; a file a kept snapshot's entry
// shares (OPTIMIZE carried the statistics to its snapshot) stays until
// that entry goes too.
func TestExpiryRemovesStatistics(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE se (a int) WITH ('write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO se SELECT i FROM generate_series(1, 50) i")
	mustQuery(t, s, "ANALYZE se")
	first := loadTable(t, s, "se")
	old, _ := statisticsOf(first, first.CurrentSnapshot().SnapshotID)
	mustQuery(t, s, "INSERT INTO se VALUES (51)")
	mustQuery(t, s, "DELETE FROM se WHERE a < 5")
	mustQuery(t, s, "ANALYZE se")
	tbl := loadTable(t, s, "se")
	analyzed := tbl.CurrentSnapshot().SnapshotID
	shared, _ := statisticsOf(tbl, analyzed)
	mustQuery(t, s, "ALTER TABLE se EXECUTE optimize(delete_ratio_threshold => 0.01, file_size_threshold => '1GB')")
	tbl = loadTable(t, s, "se")
	carried, ok := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	if tbl.CurrentSnapshot().SnapshotID == analyzed || !ok || carried.StatisticsPath != shared.StatisticsPath {
		t.Fatalf("OPTIMIZE did not carry the statistics to its snapshot: %+v", carried)
	}
	if carried.BlobMetadata[0].SnapshotID != analyzed || carried.BlobMetadata[0].Properties["ndv"] != "47" {
		t.Fatalf("carried blob %+v: want computed from %d, ndv 47", carried.BlobMetadata[0], analyzed)
	}
	mustQuery(t, s, "ALTER TABLE se EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
	tbl = loadTable(t, s, "se")
	var listed []int64
	for sf := range tbl.Metadata().Statistics() {
		listed = append(listed, sf.SnapshotID)
	}
	if !slices.Equal(listed, []int64{tbl.CurrentSnapshot().SnapshotID}) {
		t.Fatalf("after expiry statistics for %v, want only the current snapshot's", listed)
	}
	if _, err := os.Stat(localPath(old.StatisticsPath)); !os.IsNotExist(err) {
		t.Fatalf("the expired snapshot's statistics file is still there (%v)", err)
	}
	if _, err := os.Stat(localPath(shared.StatisticsPath)); err != nil {
		t.Fatalf("the file the kept snapshot's entry shares was deleted: %v", err)
	}
	// Once no entry lists it, the next expiry deletes the shared file.
	mustQuery(t, s, "INSERT INTO se VALUES (52)")
	mustQuery(t, s, "ANALYZE se")
	mustQuery(t, s, "ALTER TABLE se EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
	if _, err := os.Stat(localPath(shared.StatisticsPath)); !os.IsNotExist(err) {
		t.Fatalf("the shared statistics file outlived every entry that listed it (%v)", err)
	}
}

// TestAnalyzeAgainReplacesTheFile: analyzing the same snapshot again
// replaces its entry and deletes the file it replaced.
func TestAnalyzeAgainReplacesTheFile(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE sr (a int)")
	mustQuery(t, s, "INSERT INTO sr VALUES (1)")
	mustQuery(t, s, "ANALYZE sr")
	tbl := loadTable(t, s, "sr")
	first, _ := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	mustQuery(t, s, "ANALYZE sr")
	tbl = loadTable(t, s, "sr")
	second, _ := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	if first.StatisticsPath == second.StatisticsPath {
		t.Fatal("the second ANALYZE wrote no new file")
	}
	if _, err := os.Stat(localPath(first.StatisticsPath)); !os.IsNotExist(err) {
		t.Fatalf("the replaced statistics file is still there (%v)", err)
	}
}

// TestDropTablePurgeDeletesStatistics: DROP TABLE ... PURGE deletes the
// table's statistics files with its other files.
func TestDropTablePurgeDeletesStatistics(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE sp (a int)")
	mustQuery(t, s, "INSERT INTO sp VALUES (1)")
	mustQuery(t, s, "ANALYZE sp")
	tbl := loadTable(t, s, "sp")
	sf, _ := statisticsOf(tbl, tbl.CurrentSnapshot().SnapshotID)
	if _, err := os.Stat(localPath(sf.StatisticsPath)); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, s, "DROP TABLE sp PURGE")
	if _, err := os.Stat(localPath(sf.StatisticsPath)); !os.IsNotExist(err) {
		t.Fatalf("DROP TABLE ... PURGE left the statistics file (%v)", err)
	}
}

// localPath is a file:// location's path.
func localPath(loc string) string { return strings.TrimPrefix(loc, "file://") }
