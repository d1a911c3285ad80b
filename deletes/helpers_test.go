package deletes

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite"
)

// row is the test model of one table row.
type row struct {
	id  int64
	cat string
	day int // days after baseDay
	v   *int32
}

var baseDay = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

func (r row) ts() int64 { return baseDay.AddDate(0, 0, r.day).UnixMicro() + r.id }

type fixture struct {
	t     *testing.T
	ctx   context.Context
	dir   string
	cat   catalog.Catalog
	ident table.Identifier
	model map[int64]row
}

var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "cat", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
	iceberg.NestedField{ID: 4, Name: "v", Type: iceberg.PrimitiveTypes.Int32},
)

// newFixture creates a table in t.TempDir() with a SQLite catalog.
func newFixture(t *testing.T, version int, mode Mode, spec *iceberg.PartitionSpec) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "cat.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cat, err := sqlcat.NewCatalog("test", db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	props := iceberg.Properties{"format-version": fmt.Sprint(version), PropDeleteMode: string(mode)}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(props)}
	if spec != nil {
		opts = append(opts, catalog.WithPartitionSpec(spec))
	}
	ident := table.Identifier{"ns", "t"}
	if _, err := cat.CreateTable(ctx, ident, testSchema, opts...); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, ctx: ctx, dir: dir, cat: cat, ident: ident, model: map[int64]row{}}
}

func (f *fixture) table() *table.Table {
	f.t.Helper()
	tbl, err := f.cat.LoadTable(f.ctx, f.ident)
	if err != nil {
		f.t.Fatal(err)
	}
	return tbl
}

// appendRows commits rows as one append and records them in the model.
func (f *fixture) appendRows(rows []row) {
	f.t.Helper()
	tbl := f.table()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		f.t.Fatal(err)
	}
	rec := buildRows(sc, rows)
	defer rec.Release()
	for _, r := range rows {
		f.model[r.id] = r
	}
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(f.ctx, at, 1<<20, nil); err != nil {
		f.t.Fatal(err)
	}
}

// buildRows is rows as one batch of schema sc (id, cat, ts, v int or bigint).
func buildRows(sc *arrow.Schema, rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.cat)
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts()))
		switch v := b.Field(3).(type) {
		case *array.Int32Builder: // the table's v
			if r.v == nil {
				v.AppendNull()
			} else {
				v.Append(*r.v)
			}
		case *array.Int64Builder: // v promoted to bigint
			if r.v == nil {
				v.AppendNull()
			} else {
				v.Append(int64(*r.v))
			}
		}
	}
	return b.NewRecordBatch()
}

// genRows makes ids [from, to) with a category, day and v derived from the id.
func genRows(from, to int64) []row {
	var out []row
	for id := from; id < to; id++ {
		r := row{id: id, cat: []string{"a", "b", "c"}[id%3], day: int(id % 4)}
		if id%5 != 0 {
			v := int32(id % 11)
			r.v = &v
		}
		out = append(out, r)
	}
	return out
}

// idPred deletes rows whose id satisfies fn; filter is what the executor
// would push down (AlwaysTrue when nothing translates).
func idPred(filter iceberg.BooleanExpression, exact bool, fn func(int64) bool) Predicate {
	return Predicate{Filter: filter, Exact: exact, Columns: []string{"id"},
		Match: func(_ context.Context, b arrow.RecordBatch) ([]bool, error) {
			ids := b.Column(0).(*array.Int64)
			out := make([]bool, ids.Len())
			for i := range out {
				out[i] = fn(ids.Value(i))
			}
			return out, nil
		}}
}

// deleteAndCheck runs Delete, applies fn to the model independently and
// compares count and read-back.
func (f *fixture) deleteAndCheck(pred Predicate, fn func(row) bool, opts Options) Outcome {
	f.t.Helper()
	want := f.dropFromModel(fn)
	out, err := Delete(f.ctx, Autocommit(f.cat), f.ident, pred, opts)
	if err != nil {
		f.t.Fatalf("delete: %v", err)
	}
	if out.Deleted != want {
		f.t.Fatalf("deleted %d rows, model says %d", out.Deleted, want)
	}
	f.checkReadBack()
	return out
}

// dropFromModel removes the model rows gone reports and counts them: what a
// statement must delete, worked out without the engine.
func (f *fixture) dropFromModel(gone func(row) bool) int64 {
	n := int64(0)
	for id, r := range f.model {
		if gone(r) {
			n++
			delete(f.model, id)
		}
	}
	return n
}

// forEachVariant runs body in a subtest per format version and delete mode,
// each on a fresh table with partition spec (nil: unpartitioned).
func forEachVariant(t *testing.T, spec *iceberg.PartitionSpec, body func(t *testing.T, f *fixture, version int, mode Mode)) {
	for _, vt := range variants {
		t.Run(fmt.Sprintf("v%d-%s", vt.version, vt.mode), func(t *testing.T) {
			body(t, newFixture(t, vt.version, vt.mode, spec), vt.version, vt.mode)
		})
	}
}

// checkReadBack compares iceberg-go's own scan with the model.
func (f *fixture) checkReadBack() {
	f.t.Helper()
	got := f.scanIDs(f.table())
	want := slices.Sorted(maps.Keys(f.model))
	if !slices.Equal(got, want) {
		f.t.Fatalf("read back %d rows %v\nmodel has %d rows %v", len(got), got, len(want), want)
	}
}

func (f *fixture) scanIDs(tbl *table.Table) []int64 {
	f.t.Helper()
	at, err := tbl.Scan().ToArrowTable(f.ctx)
	if err != nil {
		f.t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	var ids []int64
	idx := at.Schema().FieldIndices("id")[0]
	for _, c := range at.Column(idx).Data().Chunks() {
		a := c.(*array.Int64)
		for i := 0; i < a.Len(); i++ {
			ids = append(ids, a.Value(i))
		}
	}
	slices.Sort(ids)
	return ids
}

// liveFiles lists the live manifest entries of the current snapshot.
func (f *fixture) liveFiles(tbl *table.Table) (data, deletes []iceberg.DataFile) {
	f.t.Helper()
	fs, err := tbl.FS(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	mfs, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, m := range mfs {
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				f.t.Fatal(err)
			}
			if e.Status() == iceberg.EntryStatusDELETED {
				continue
			}
			if e.DataFile().ContentType() == iceberg.EntryContentData {
				data = append(data, e.DataFile())
			} else {
				deletes = append(deletes, e.DataFile())
			}
		}
	}
	return data, deletes
}

// filesOnDisk lists every file under the table directory.
func (f *fixture) filesOnDisk() map[string]bool {
	f.t.Helper()
	out := map[string]bool{}
	root := filepath.Join(f.dir, "ns.db", "t")
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out[p] = true
		}
		return nil
	})
	return out
}

func localPath(p string) string { return strings.TrimPrefix(p, "file://") }

func summaryInt(t *testing.T, tbl *table.Table, key string) int64 {
	t.Helper()
	var n int64
	if v, ok := tbl.CurrentSnapshot().Summary.Properties[key]; ok {
		fmt.Sscan(v, &n)
	}
	return n
}
