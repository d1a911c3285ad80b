package deletes

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestReaderMemoMatchesProjection reads every file of a table whose schema
// evolved (a rename, a type promotion) twice: through the
// projection memo and through iceberg-go's projection per batch. Each batch
// must be equal, schema metadata (field ids) included; the memo must have
// learnt the relabelling of the current schema's files (on v3 with the
// lineage columns the files lack, all null) and nothing for the older file,
// whose projection casts v, although v is all null in its first batch. Small local files are read
// whole, and count their full size as read.
func TestReaderMemoMatchesProjection(t *testing.T) {
	for _, version := range []int{2, 3} {
		f := newFixture(t, version, ModeMergeOnRead, nil)
		old := genRows(0, 50)
		for i := range old[:20] {
			old[i].v = nil // the first batch's v is all null, the next ones' not
		}
		f.appendRows(old)
		tx := f.table().NewTransaction()
		us := tx.UpdateSchema(true, false)
		us.RenameColumn([]string{"cat"}, "category").UpdateColumn([]string{"v"}, table.ColumnUpdate{
			FieldType: iceberg.Optional[iceberg.Type]{Valid: true, Val: iceberg.PrimitiveTypes.Int64}})
		if err := us.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(f.ctx); err != nil {
			t.Fatal(err)
		}
		tbl := f.table()
		sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
		if err != nil {
			t.Fatal(err)
		}
		for from := int64(50); from < 200; from += 50 {
			rec := buildRows(sc, genRows(from, from+50))
			at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
			if tbl, err = tbl.AppendTable(f.ctx, at, 1<<20, nil); err != nil {
				t.Fatal(err)
			}
			at.Release()
			rec.Release()
		}
		fs, err := tbl.FS(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := f.liveFiles(tbl)
		if len(data) != 4 {
			t.Fatalf("v%d: %d data files, want 4", version, len(data))
		}
		memo := &projectionMemo{}
		plain := positionalReader{fs: fs, nameMapping: tbl.NameMapping(), formatVersion: version,
			batchSize: 16, mem: memory.DefaultAllocator, withFieldIDs: true}
		memoised := plain
		memoised.memo = memo
		requested := readSchemaFor(tbl)
		for _, df := range data {
			want := readBatches(t, plain, df, requested)
			got := readBatches(t, memoised, df, requested)
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("v%d %s: %d batches through the memo, %d without", version, df.FilePath(), len(got), len(want))
			}
			for i := range got {
				if !got[i].Schema().Equal(want[i].Schema()) || !array.RecordEqual(got[i], want[i]) {
					t.Fatalf("v%d %s batch %d: memo gave\n%v\n%v\nwant\n%v\n%v", version, df.FilePath(), i,
						got[i].Schema(), got[i], want[i].Schema(), want[i])
				}
				got[i].Release()
				want[i].Release()
			}
		}
		if len(memo.relabel) != 1 {
			t.Fatalf("v%d: memo learnt %d relabellings, want 1 (the current schema's files; the old file's projection casts v)", version, len(memo.relabel))
		}
		n, err := plain.read(f.ctx, data[0].FilePath(), data[0].FileSizeBytes(), requested, func(arrow.RecordBatch, int64) error { return nil })
		if err != nil || n != data[0].FileSizeBytes() {
			t.Fatalf("v%d: a small local file counted %d bytes read (%v), want its size %d", version, n, err, data[0].FileSizeBytes())
		}
	}
}

func readBatches(t *testing.T, rd positionalReader, df iceberg.DataFile, requested *iceberg.Schema) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	_, err := rd.read(t.Context(), df.FilePath(), df.FileSizeBytes(), requested, func(b arrow.RecordBatch, _ int64) error {
		b.Retain()
		out = append(out, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
