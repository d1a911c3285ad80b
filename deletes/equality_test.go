package deletes

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
)

// catVKey is one (cat, v) equality key; v nil is NULL.
type catVKey struct {
	cat string
	v   *int32
}

func keyBatch(keys []catVKey) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "cat", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, k := range keys {
		b.Field(0).(*array.StringBuilder).Append(k.cat)
		if k.v == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int32Builder).Append(*k.v)
		}
	}
	return b.NewRecordBatch()
}

func (k catVKey) matches(r row) bool {
	return r.cat == k.cat && (r.v == nil) == (k.v == nil) && (k.v == nil || *k.v == *r.v)
}

// keyPred selects the rows any key matches, NULL matching NULL.
func keyPred(keys []catVKey) Predicate {
	return Predicate{Filter: iceberg.AlwaysTrue{}, Columns: []string{"cat", "v"},
		Match: func(_ context.Context, b arrow.RecordBatch) ([]bool, error) {
			cats, vs := b.Column(0), b.Column(1).(*array.Int32)
			out := make([]bool, b.NumRows())
			for i := range out {
				r := row{cat: cats.ValueStr(i)}
				if vs.IsValid(i) {
					v := vs.Value(i)
					r.v = &v
				}
				for _, k := range keys {
					out[i] = out[i] || k.matches(r)
				}
			}
			return out, nil
		}}
}

func TestEqualityDelete(t *testing.T) {
	f := newFixture(t, 2, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 40))
	three := int32(3)
	keys := []catVKey{{cat: "a", v: nil}, {cat: "b", v: &three}}
	want := f.dropFromModel(func(r row) bool { return keys[0].matches(r) || keys[1].matches(r) })
	kb := keyBatch(keys)
	defer kb.Release()
	out, err := EqualityDelete(f.ctx, Autocommit(f.cat), f.ident, keyPred(keys), []string{"cat", "v"}, kb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Deleted != want || want < 2 {
		t.Fatalf("deleted %d, model %d", out.Deleted, want)
	}
	f.checkReadBack()
	tbl := f.table()
	if got := summaryInt(t, tbl, "added-equality-deletes"); got != 2 {
		t.Fatalf("added-equality-deletes %d", got)
	}
	_, dels := f.liveFiles(tbl)
	if len(dels) != 1 || dels[0].ContentType() != iceberg.EntryContentEqDeletes ||
		!slices.Equal(dels[0].EqualityFieldIDs(), []int{2, 4}) || dels[0].SpecID() != 0 {
		t.Fatalf("delete files %v", dels)
	}
	checkEqualityFile(t, dels[0], []int{2, 4})

	// Rows inserted later with the same key survive (higher sequence number).
	f.appendRows([]row{{id: 100, cat: "a"}, {id: 101, cat: "b", v: &three}})
	f.checkReadBack()
	// Later positional statements honour the equality delete, also when
	// their filter excludes the delete file's values (stats pruning).
	seven := iceberg.EqualTo(iceberg.Reference("v"), int32(7))
	f.deleteAndCheck(Predicate{Filter: seven, Exact: true, Columns: []string{"v"},
		Match: func(_ context.Context, b arrow.RecordBatch) ([]bool, error) {
			vs := b.Column(0).(*array.Int32)
			out := make([]bool, b.NumRows())
			for i := range out {
				out[i] = vs.IsValid(i) && vs.Value(i) == 7
			}
			return out, nil
		}}, func(r row) bool { return r.v != nil && *r.v == 7 }, Options{Mode: ModeCopyOnWrite})
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%2 == 0 }),
		func(r row) bool { return r.id%2 == 0 }, Options{Mode: ModeCopyOnWrite})
	f.overwriteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id < 9 }),
		func(r row) bool { return r.id < 9 }, genRows(200, 202), OverwriteOptions{})
}

// checkEqualityFile reads the Parquet file itself: only the key columns,
// under the table's field ids.
func checkEqualityFile(t *testing.T, d iceberg.DataFile, ids []int) {
	t.Helper()
	pr, err := file.OpenParquetFile(localPath(d.FilePath()), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if sc.NumFields() != len(ids) {
		t.Fatalf("equality file has %d columns", sc.NumFields())
	}
	for i, f := range sc.Fields() {
		if id, _ := f.Metadata.GetValue("PARQUET:field_id"); id != []string{"2", "4"}[i] {
			t.Fatalf("column %s has field id %q", f.Name, id)
		}
	}
}

// TestEqualityDeleteNotApplicable: a v3 table takes no equality delete.
func TestEqualityDeleteNotApplicable(t *testing.T) {
	f := newFixture(t, 3, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 5))
	kb := keyBatch([]catVKey{{cat: "a"}})
	_, err := EqualityDelete(f.ctx, Autocommit(f.cat), f.ident, keyPred(nil), []string{"cat", "v"}, kb, Options{})
	kb.Release()
	if !errors.Is(err, ErrEqualityNotApplicable) || EqualityApplicable(f.table()) {
		t.Fatalf("v3: want ErrEqualityNotApplicable, got %v", err)
	}
	f.checkReadBack()
}
