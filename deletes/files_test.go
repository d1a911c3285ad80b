package deletes

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/lake"
)

// TestRewriteKeepsSourceDictionaries rewrites a file whose low-cardinality
// columns iceberg-go dictionary-encoded and whose unique id column it wrote
// plain, and reads both footers: each column keeps its encoding choice, and
// the survivors read back as the model says.
func TestRewriteKeepsSourceDictionaries(t *testing.T) {
	f := newFixture(t, 2, ModeCopyOnWrite, nil)
	f.appendRows(genRows(0, 3000))
	before, _ := f.liveFiles(f.table())
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%10 == 3 }),
		func(r row) bool { return r.id%10 == 3 }, Options{})
	after, _ := f.liveFiles(f.table())
	if len(before) != 1 || len(after) != 1 || before[0].FilePath() == after[0].FilePath() {
		t.Fatalf("want one file rewritten, have %d before and %d after", len(before), len(after))
	}
	src, out := dictionaryPages(t, before[0].FilePath()), dictionaryPages(t, after[0].FilePath())
	if !src["cat"] || src["id"] {
		t.Fatalf("source encodings %v: want a dictionary on cat and none on id for this test to mean anything", src)
	}
	for col, dict := range src {
		if out[col] != dict {
			t.Errorf("column %s: source dictionary %v, rewrite %v", col, dict, out[col])
		}
	}
	// The writer is told up front: no dictionary (and no hashing) where the
	// source has none.
	pr, err := file.OpenParquetFile(localPath(before[0].FilePath()), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	sc, err := table.SchemaToArrowSchema(f.table().Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	props, err := lake.ParquetLayout{Dictionary: dictionaryColumns(pr.MetaData())}.WriterProperties(sc)
	if err != nil {
		t.Fatal(err)
	}
	for col, dict := range src {
		if props.DictionaryEnabledFor(col) != dict {
			t.Errorf("column %s: writer dictionary %v, source %v", col, props.DictionaryEnabledFor(col), dict)
		}
	}
}

// TestRewriteRowGroupLimit: a copy-on-write rewrite cuts row groups at the
// table's write.parquet.row-group-limit, and at magmalake's default when
// the table (made by another engine here) has none or an unusable one.
func TestRewriteRowGroupLimit(t *testing.T) {
	sc, err := table.SchemaToArrowSchema(testSchema, nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		props iceberg.Properties
		want  int64
	}{
		{nil, lake.DefaultRowGroupRows},
		{iceberg.Properties{lake.PropRowGroupLimit: "1000"}, 1000},
		{iceberg.Properties{lake.PropRowGroupLimit: "0"}, lake.DefaultRowGroupRows},
		{iceberg.Properties{lake.PropRowGroupLimit: "many"}, lake.DefaultRowGroupRows},
	} {
		props, err := lake.ParquetLayout{Props: c.props}.WriterProperties(sc)
		if err != nil {
			t.Fatal(err)
		}
		if got := props.MaxRowGroupLength(); got != c.want {
			t.Errorf("props %v: row groups of %d rows, want %d", c.props, got, c.want)
		}
	}

	f := newFixture(t, 2, ModeCopyOnWrite, nil)
	f.appendRows(genRows(0, 3000))
	tx := f.table().NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{lake.PropRowGroupLimit: "1000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%10 == 3 }),
		func(r row) bool { return r.id%10 == 3 }, Options{})
	after, _ := f.liveFiles(f.table())
	if len(after) != 1 {
		t.Fatalf("%d data files after the rewrite, want 1", len(after))
	}
	pr, err := file.OpenParquetFile(localPath(after[0].FilePath()), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	var groups []int64
	for rg := range pr.NumRowGroups() {
		groups = append(groups, pr.MetaData().RowGroup(rg).NumRows())
	}
	if want := []int64{1000, 1000, 700}; !slices.Equal(groups, want) {
		t.Fatalf("rewritten file's row groups hold %v rows, want %v", groups, want)
	}
}

// dictionaryPages reads a Parquet footer: which columns have a dictionary
// page in every row group.
func dictionaryPages(t *testing.T, path string) map[string]bool {
	t.Helper()
	pr, err := file.OpenParquetFile(localPath(path), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	md := pr.MetaData()
	out := map[string]bool{}
	for j := 0; j < md.Schema.NumColumns(); j++ {
		dict := true
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(j)
			if err != nil {
				t.Fatal(err)
			}
			dict = dict && cc.HasDictionaryPage()
		}
		out[md.Schema.Column(j).Path()] = dict
	}
	return out
}

// TestKeepUndeleted cuts a file of positions into batches at odd offsets and
// checks each batch's survivors against the dropped set directly.
func TestKeepUndeleted(t *testing.T) {
	const count = 5000
	rng := rand.New(rand.NewPCG(1, 2))
	dropped := dv.NewRoaringPositionBitmap()
	gone := map[int64]bool{}
	for i := int64(0); i < count; i++ {
		// Runs of drops and of survivors, so some batches keep all or none.
		if (i/700)%3 == 1 || (i/700)%3 == 2 && rng.IntN(4) == 0 {
			dropped.Set(uint64(i))
			gone[i] = true
		}
	}
	keep := dropped.KeepMaskBytes(count)
	ctx := context.Background()
	for base := int64(0); base < count; {
		n := min(int64(1+rng.IntN(900)), count-base)
		b := positionsBatch(base, n)
		got, err := keepUndeleted(ctx, b, base, keep, count)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for p := base; p < base+n; p++ {
			if !gone[p] {
				want = append(want, p)
			}
		}
		var have []int64
		if got != nil {
			have = got.Column(0).(*array.Int64).Int64Values()
		}
		if len(have) != len(want) || (len(want) == 0) != (got == nil) {
			t.Fatalf("batch at %d: kept %v, want %v", base, have, want)
		}
		for i := range want {
			if have[i] != want[i] {
				t.Fatalf("batch at %d: kept %v, want %v", base, have, want)
			}
		}
		if got != nil {
			got.Release()
		}
		b.Release()
		base += n
	}
	b := positionsBatch(count-2, 3)
	defer b.Release()
	if _, err := keepUndeleted(ctx, b, count-2, keep, count); err == nil {
		t.Fatal("a batch past the record count was accepted")
	}
}

func positionsBatch(base, n int64) arrow.RecordBatch {
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	defer bld.Release()
	for p := base; p < base+n; p++ {
		bld.Append(p)
	}
	col := bld.NewArray()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "pos", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{col}, n)
}
