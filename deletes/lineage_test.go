package deletes

import (
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// lineage is one row's _row_id and _last_updated_sequence_number.
type lineage struct{ rowID, seq int64 }

// lineageModel works out each live key's lineage from the data files alone
// (spec, "Row Lineage"): the file's explicit value where it has a non-null
// one, else first_row_id + position and the entry's data sequence number.
// A key in several files (an update's old copy, deleted by a vector) is the
// copy of the newest file: an updated row always lands in a newer one.
func (f *fixture) lineageModel(tbl *table.Table) map[int64]lineage {
	f.t.Helper()
	fs, err := tbl.FS(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	mfs, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[int64]lineage{}
	fileSeq := map[int64]int64{} // key → data sequence number of its copy
	for _, m := range mfs {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				f.t.Fatal(err)
			}
			df := e.DataFile()
			if df.FirstRowID() == nil {
				f.t.Fatalf("%s has no first_row_id", df.FilePath())
			}
			seq := e.SequenceNum()
			for pos, r := range f.fileLineage(df.FilePath()) {
				if r.rowID < 0 {
					r.rowID = *df.FirstRowID() + int64(pos)
				}
				if r.seq < 0 {
					r.seq = seq
				}
				if s, ok := fileSeq[r.key]; !ok || seq > s {
					fileSeq[r.key] = seq
					out[r.key] = lineage{r.rowID, r.seq}
				}
			}
		}
	}
	for id := range out { // keys deleted by a vector or position delete
		if _, ok := f.model[id]; !ok {
			delete(out, id)
		}
	}
	return out
}

// fileRow is a data file's row: its key and explicit lineage (-1: none).
type fileRow struct{ key, rowID, seq int64 }

// fileLineage reads a data file with arrow-go's Parquet reader, finding the
// lineage columns by their reserved field ids.
func (f *fixture) fileLineage(path string) []fileRow {
	f.t.Helper()
	pr, err := file.OpenParquetFile(localPath(path), false)
	if err != nil {
		f.t.Fatal(err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		f.t.Fatal(err)
	}
	at, err := fr.ReadTable(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	defer at.Release()
	rows := make([]fileRow, at.NumRows())
	col := func(id int, set func(r *fileRow, v int64)) {
		for i := range rows {
			set(&rows[i], -1)
		}
		for i := 0; i < int(at.NumCols()); i++ {
			if v, _ := at.Schema().Field(i).Metadata.GetValue("PARQUET:field_id"); v != strconv.Itoa(id) {
				continue
			}
			n := 0
			for _, c := range at.Column(i).Data().Chunks() {
				a := c.(*array.Int64)
				for j := 0; j < a.Len(); j, n = j+1, n+1 {
					if a.IsValid(j) {
						set(&rows[n], a.Value(j))
					}
				}
			}
		}
	}
	col(1, func(r *fileRow, v int64) { r.key = v })
	col(iceberg.RowIDFieldID, func(r *fileRow, v int64) { r.rowID = v })
	col(iceberg.LastUpdatedSequenceNumberFieldID, func(r *fileRow, v int64) { r.seq = v })
	return rows
}

// scanLineage is each key's lineage as iceberg-go's scan reports it.
func (f *fixture) scanLineage(tbl *table.Table) map[int64]lineage {
	f.t.Helper()
	at, err := tbl.Scan(table.WithSelectedFields("id", iceberg.RowIDColumnName, iceberg.LastUpdatedSequenceNumberColumnName)).ToArrowTable(f.ctx)
	if err != nil {
		f.t.Fatalf("scan lineage: %v", err)
	}
	defer at.Release()
	out := map[int64]lineage{}
	tr := array.NewTableReader(at, 1<<16)
	defer tr.Release()
	for tr.Next() {
		b := tr.RecordBatch()
		ids := b.Column(b.Schema().FieldIndices("id")[0]).(*array.Int64)
		rid := b.Column(b.Schema().FieldIndices(iceberg.RowIDColumnName)[0]).(*array.Int64)
		seq := b.Column(b.Schema().FieldIndices(iceberg.LastUpdatedSequenceNumberColumnName)[0]).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			out[ids.Value(i)] = lineage{rid.Value(i), seq.Value(i)}
		}
	}
	return out
}

// lineageStep checks one statement against the lineage model taken before
// it: untouched keys keep both values; changed (updated) keys keep their
// _row_id and have the new snapshot's sequence number; new keys have ids
// from the old next-row-id on; no two live rows share an id; iceberg-go's
// scan agrees.
func (f *fixture) lineageStep(name string, changed func(id int64) bool, run func()) {
	f.t.Helper()
	before := f.lineageModel(f.table())
	next := f.table().Metadata().NextRowID()
	run()
	tbl := f.table()
	after := f.lineageModel(tbl)
	seq := tbl.CurrentSnapshot().SequenceNumber
	seen := map[int64]int64{}
	for id, got := range after {
		if other, ok := seen[got.rowID]; ok {
			f.t.Fatalf("%s: keys %d and %d share _row_id %d", name, id, other, got.rowID)
		}
		seen[got.rowID] = id
		was, old := before[id]
		switch {
		case !old:
			if got.seq != seq || got.rowID < next {
				f.t.Fatalf("%s: new key %d has lineage %+v, want an id from the old next-row-id %d on and sequence number %d", name, id, got, next, seq)
			}
		case changed(id):
			if want := (lineage{was.rowID, seq}); got != want {
				f.t.Fatalf("%s: updated key %d has lineage %+v, want its _row_id and the new snapshot's sequence number: %+v", name, id, got, want)
			}
		case got != was:
			f.t.Fatalf("%s: untouched key %d has lineage %+v, was %+v", name, id, got, was)
		}
	}
	if len(after) != len(f.model) {
		f.t.Fatalf("%s: %d keys in the files, model has %d", name, len(after), len(f.model))
	}
	f.checkReadBack()
	if !tbl.Schema().Equals(testSchema) {
		f.t.Fatalf("%s: the table's schema changed: %s", name, tbl.Schema())
	}
	if scanned := f.scanLineage(tbl); len(scanned) != len(after) {
		f.t.Fatalf("%s: iceberg-go scans %d keys, files hold %d", name, len(scanned), len(after))
	} else {
		for id, l := range after {
			if scanned[id] != l {
				f.t.Fatalf("%s: iceberg-go reads key %d as %+v, the files say %+v", name, id, scanned[id], l)
			}
		}
	}
}

// TestRowLineageKeptThroughRewrites: on a v3 table, copy-on-write DELETE and
// UPDATE and OPTIMIZE rewrite survivors with their _row_id and
// _last_updated_sequence_number; updated rows (both modes) keep their _row_id
// and take the new sequence number; rows appended afterwards get new ids.
func TestRowLineageKeptThroughRewrites(t *testing.T) {
	f := newFixture(t, 3, ModeCopyOnWrite, &partSpec)
	f.appendRows(genRows(0, 300))
	f.appendRows(genRows(300, 500))
	none := func(int64) bool { return false }
	f.lineageStep("append", none, func() {})

	f.lineageStep("cow delete", none, func() {
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%7 == 0 }),
			func(r row) bool { return r.id%7 == 0 }, Options{})
	})
	f.lineageStep("cow delete again", none, func() {
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%11 == 0 }),
			func(r row) bool { return r.id%11 == 0 }, Options{})
	})
	f.lineageStep("cow update", func(id int64) bool { return id%5 == 0 }, func() {
		f.update(func(id int64) bool { return id%5 == 0 })
	})
	setProps(t, f, iceberg.Properties{PropUpdateMode: string(ModeMergeOnRead)})
	f.lineageStep("mor update", func(id int64) bool { return id%13 == 0 }, func() {
		f.update(func(id int64) bool { return id%13 == 0 })
	})
	f.lineageStep("optimize", none, func() {
		if _, err := Optimize(f.ctx, Autocommit(f.cat), f.ident, OptimizeOptions{SizeThreshold: 1 << 30, RatioThreshold: 0.01}); err != nil {
			t.Fatal(err)
		}
	})
	f.checkLineageDeltaEncoded()
	f.lineageStep("append after", none, func() { f.appendRows(genRows(500, 520)) })
}

// checkLineageDeltaEncoded: the lineage columns of the rewritten files are
// DELTA_BINARY_PACKED without a dictionary (unique or constant runs of
// integers a dictionary only hashes for nothing).
func (f *fixture) checkLineageDeltaEncoded() {
	f.t.Helper()
	data, _ := f.liveFiles(f.table())
	chunks := 0
	for _, df := range data {
		pr, err := file.OpenParquetFile(localPath(df.FilePath()), false)
		if err != nil {
			f.t.Fatal(err)
		}
		md := pr.MetaData()
		for g := 0; g < md.NumRowGroups(); g++ {
			rg := md.RowGroup(g)
			for c := 0; c < rg.NumColumns(); c++ {
				if !iceberg.IsMetadataColumn(int(md.Schema.Column(c).SchemaNode().FieldID())) {
					continue
				}
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					f.t.Fatal(err)
				}
				chunks++
				if cc.HasDictionaryPage() || !slices.Contains(cc.Encodings(), parquet.Encodings.DeltaBinaryPacked) {
					f.t.Fatalf("%s: lineage column %s has encodings %v (dictionary page %v), want DELTA_BINARY_PACKED without a dictionary",
						df.FilePath(), md.Schema.Column(c).Name(), cc.Encodings(), cc.HasDictionaryPage())
				}
			}
		}
		pr.Close()
	}
	if chunks == 0 {
		f.t.Fatal("no rewritten file holds lineage columns")
	}
}

// update runs Update (v = v + 100) on the keys match picks and in the model.
func (f *fixture) update(match func(int64) bool) {
	f.t.Helper()
	for id, r := range f.model {
		if match(id) && r.v != nil {
			v := *r.v + 100
			r.v = &v
			f.model[id] = r
		}
	}
	if _, err := Update(f.ctx, Autocommit(f.cat), f.ident, idPred(iceberg.AlwaysTrue{}, false, match), updateFn(f.t, f, ""), UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	if got := f.scanModel(iceberg.AlwaysTrue{}); !sameRows(got, f.model) {
		f.t.Fatalf("after update the table differs from the model")
	}
}

// TestRowLineageNotOnV2: a v2 table's rewritten files hold the table's
// columns only.
func TestRowLineageNotOnV2(t *testing.T) {
	f := newFixture(t, 2, ModeCopyOnWrite, nil)
	f.appendRows(genRows(0, 100))
	f.appendRows(genRows(100, 200))
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%3 == 0 }),
		func(r row) bool { return r.id%3 == 0 }, Options{})
	if _, err := Optimize(f.ctx, Autocommit(f.cat), f.ident, OptimizeOptions{SizeThreshold: 1 << 30, RatioThreshold: 0.01}); err != nil {
		t.Fatal(err)
	}
	f.checkReadBack()
	data, _ := f.liveFiles(f.table())
	for _, df := range data {
		if n := f.parquetColumns(df.FilePath()); n != len(testSchema.Fields()) {
			t.Fatalf("%s has %d columns, want the table's %d", df.FilePath(), n, len(testSchema.Fields()))
		}
	}
}

func (f *fixture) parquetColumns(path string) int {
	f.t.Helper()
	pr, err := file.OpenParquetFile(localPath(path), false)
	if err != nil {
		f.t.Fatal(err)
	}
	defer pr.Close()
	return pr.MetaData().Schema.NumColumns()
}

// TestRowLineageAcrossSpecsAndBatches: a file larger than one read batch
// keeps each row's position-derived id (batches after the first start past
// position 0), and OPTIMIZE keeps lineage where it partitions an older
// spec's rows again through iceberg-go's writer.
func TestRowLineageAcrossSpecsAndBatches(t *testing.T) {
	f := newFixture(t, 3, ModeCopyOnWrite, nil)
	f.appendRows(genRows(0, rewriteBatchRows+5000))
	none := func(int64) bool { return false }
	f.lineageStep("cow delete", none, func() {
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%9 == 0 }),
			func(r row) bool { return r.id%9 == 0 }, Options{})
	})
	f.lineageStep("cow update", func(id int64) bool { return id%1000 == 1 }, func() {
		f.update(func(id int64) bool { return id%1000 == 1 })
	})
	tx := f.table().NewTransaction()
	if err := tx.UpdateSpec(false).AddIdentity("cat").Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.appendRows(genRows(rewriteBatchRows+5000, rewriteBatchRows+5300))
	f.lineageStep("optimize across specs", none, func() {
		out, err := Optimize(f.ctx, Autocommit(f.cat), f.ident, OptimizeOptions{SizeThreshold: 1 << 30, RatioThreshold: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		if out.RewrittenFiles == 0 {
			t.Fatalf("optimize rewrote nothing: %+v", out)
		}
	})
	data, _ := f.liveFiles(f.table())
	for _, df := range data {
		if int(df.SpecID()) != f.table().Metadata().DefaultPartitionSpec() {
			t.Fatalf("%s is still of spec %d", df.FilePath(), df.SpecID())
		}
	}
}
