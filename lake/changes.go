package lake

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// The change feed ("t$changes") is what each snapshot of main's history,
// oldest first, did to the table's rows, in Spark's changelog columns:
// the table's columns (its current schema), then _change_type,
// _change_ordinal (the snapshot's place in the history, from 0) and
// _commit_snapshot_id. A snapshot's rows are those of the data files it
// added, removed or changed the deletes of, read before and after it; rows
// in both are unchanged (a copy-on-write rewrite carries most rows of a
// file) and left out. On a v3 table rows are matched by _row_id, so a row
// whose _last_updated_sequence_number moved is an UPDATE_BEFORE and
// UPDATE_AFTER pair; a v2 table has no row identity, so rows are matched
// by value and a changed row is a DELETE and an INSERT.
//
// Snapshots whose parent has expired start the feed: what they changed
// can no longer be read.

// Change types, as Spark's create_changelog_view names them.
const (
	ChangeInsert       = "INSERT"
	ChangeDelete       = "DELETE"
	ChangeUpdateBefore = "UPDATE_BEFORE"
	ChangeUpdateAfter  = "UPDATE_AFTER"
)

// changeFields are the columns the feed adds after the table's.
var changeFields = []arrow.Field{
	{Name: "_change_type", Type: arrow.BinaryTypes.String},
	{Name: "_change_ordinal", Type: arrow.PrimitiveTypes.Int32},
	{Name: "_commit_snapshot_id", Type: arrow.PrimitiveTypes.Int64},
}

// Changes reads tbl's change feed. The caller releases the batches.
func Changes(ctx context.Context, tbl *table.Table) (*arrow.Schema, []arrow.RecordBatch, error) {
	what := "read " + IdentKey(tbl.Identifier()) + "$changes"
	f := &feed{tbl: tbl, lineage: tbl.Metadata().Version() >= 3}
	for _, fl := range tbl.Schema().Fields() {
		f.cols = append(f.cols, fl.Name)
	}
	if err := f.run(ctx); err != nil {
		f.release()
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return f.schema, f.out, nil
}

// feed builds the change feed one snapshot at a time.
type feed struct {
	tbl     *table.Table
	lineage bool
	cols    []string // the table's columns
	schema  *arrow.Schema
	out     []arrow.RecordBatch
}

func (f *feed) release() {
	for _, b := range f.out {
		b.Release()
	}
	f.out = nil
}

func (f *feed) run(ctx context.Context) error {
	history := mainHistory(f.tbl.Metadata())
	var prev map[string]*LiveFile
	ordinal := 0
	for i, snap := range history {
		view, err := SnapshotView(f.tbl, snap.SnapshotID)
		if err != nil {
			return err
		}
		now, err := LiveFiles(ctx, view)
		if err != nil {
			return err
		}
		if i == 0 && snap.ParentSnapshotID != nil {
			prev = now // its parent expired: the feed starts here
			continue
		}
		if err := f.snapshot(ctx, view, prev, now, ordinal, snap.SnapshotID); err != nil {
			return err
		}
		prev = now
		ordinal++
	}
	if f.schema == nil {
		none, err := f.read(ctx, f.tbl, []table.FileScanTask{})
		if err != nil {
			return err
		}
		f.schema = f.outSchema(none.schema)
		none.release()
	}
	return nil
}

// mainHistory is main's ancestry, oldest first, as far back as it is kept.
func mainHistory(meta table.Metadata) []*table.Snapshot {
	var out []*table.Snapshot
	for snap := meta.SnapshotByName(table.MainBranch); snap != nil; {
		out = append(out, snap)
		if snap.ParentSnapshotID == nil {
			break
		}
		snap = meta.SnapshotByID(*snap.ParentSnapshotID)
	}
	slices.Reverse(out)
	return out
}

// snapshot adds one snapshot's changes: prev and now are the live files
// before and after it.
func (f *feed) snapshot(ctx context.Context, view *table.Table, prev, now map[string]*LiveFile, ordinal int, id int64) error {
	var before, after []table.FileScanTask
	for _, p := range slices.Sorted(maps.Keys(prev)) {
		if lf, ok := now[p]; !ok || !slices.Equal(lf.Keys, prev[p].Keys) {
			before = append(before, prev[p].Tasks...)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(now)) {
		if lf, ok := prev[p]; !ok || !slices.Equal(lf.Keys, now[p].Keys) {
			after = append(after, now[p].Tasks...)
		}
	}
	if len(before)+len(after) == 0 {
		return nil
	}
	// The tasks carry their own delete files: reading them on the view
	// of the snapshot after is reading each as of its own snapshot.
	was, err := f.read(ctx, view, before)
	if err != nil {
		return err
	}
	defer was.release()
	is, err := f.read(ctx, view, after)
	if err != nil {
		return err
	}
	defer is.release()
	return f.emit(was, is, ordinal, id)
}

// rowSet is the rows of some batches, each named by its key.
type rowSet struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	keys    [][]string // per batch, per row
	seqs    [][]int64  // per batch, per row: _last_updated_sequence_number (v3)
}

func (r rowSet) release() {
	for _, b := range r.batches {
		b.Release()
	}
}

// read scans tasks of tbl: the table's columns, and on v3 its lineage.
func (f *feed) read(ctx context.Context, tbl *table.Table, tasks []table.FileScanTask) (rowSet, error) {
	cols := slices.Clone(f.cols)
	if f.lineage {
		cols = append(cols, iceberg.RowIDColumnName, iceberg.LastUpdatedSequenceNumberColumnName)
	}
	if tasks == nil {
		tasks = []table.FileScanTask{} // nil would plan the whole table
	}
	schema, batches, err := Scan(ctx, tbl, ScanOptions{Columns: cols, Tasks: tasks})
	if err != nil {
		return rowSet{}, err
	}
	rs := rowSet{schema: schema}
	for b, err := range batches {
		if err != nil {
			rs.release()
			return rowSet{}, err
		}
		rs.batches = append(rs.batches, b)
		keys, seqs := f.rowKeys(b)
		rs.keys, rs.seqs = append(rs.keys, keys), append(rs.seqs, seqs)
	}
	return rs, nil
}

// rowKeys names each row of b: its _row_id on v3, its values on v2.
func (f *feed) rowKeys(b arrow.RecordBatch) ([]string, []int64) {
	n := int(b.NumRows())
	keys := make([]string, n)
	if f.lineage {
		ids := b.Column(len(f.cols)).(*array.Int64)
		seqs := b.Column(len(f.cols) + 1).(*array.Int64)
		out := make([]int64, n)
		for i := range n {
			keys[i] = fmt.Sprint(ids.Value(i))
			out[i] = seqs.Value(i)
		}
		return keys, out
	}
	var sb strings.Builder
	for i := range n {
		sb.Reset()
		for c := range len(f.cols) {
			col := b.Column(c)
			if col.IsNull(i) {
				sb.WriteString("\x00N")
			} else {
				sb.WriteString("\x00V")
				sb.WriteString(col.ValueStr(i))
			}
		}
		keys[i] = sb.String()
	}
	return keys, nil
}

// rowRef is one row of a rowSet.
type rowRef struct{ batch, row int }

// emit matches the rows before and after a snapshot and appends what
// changed.
func (f *feed) emit(before, after rowSet, ordinal int, id int64) error {
	left := map[string][]rowRef{}
	for b, keys := range before.keys {
		for r, k := range keys {
			left[k] = append(left[k], rowRef{b, r})
		}
	}
	picks := map[string][][]int64{} // change type → per batch of the side, the rows
	add := func(kind string, side rowSet, ref rowRef) {
		if picks[kind] == nil {
			picks[kind] = make([][]int64, len(side.batches))
		}
		picks[kind][ref.batch] = append(picks[kind][ref.batch], int64(ref.row))
	}
	for b, keys := range after.keys {
		for r, k := range keys {
			refs := left[k]
			if len(refs) == 0 {
				add(ChangeInsert, after, rowRef{b, r})
				continue
			}
			old := refs[0]
			left[k] = refs[1:]
			if f.lineage && before.seqs[old.batch][old.row] != after.seqs[b][r] {
				add(ChangeUpdateBefore, before, old)
				add(ChangeUpdateAfter, after, rowRef{b, r})
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(left)) {
		for _, ref := range left[k] {
			add(ChangeDelete, before, ref)
		}
	}
	if f.schema == nil {
		f.schema = f.outSchema(after.schema)
	}
	for _, kind := range []string{ChangeDelete, ChangeUpdateBefore, ChangeUpdateAfter, ChangeInsert} {
		side := after
		if kind == ChangeDelete || kind == ChangeUpdateBefore {
			side = before
		}
		for b, rows := range picks[kind] {
			if len(rows) == 0 {
				continue
			}
			out, err := f.take(side.batches[b], rows, kind, ordinal, id)
			if err != nil {
				return err
			}
			f.out = append(f.out, out)
		}
	}
	return nil
}

// outSchema is the table's columns of a read's schema and the feed's own.
func (f *feed) outSchema(read *arrow.Schema) *arrow.Schema {
	return arrow.NewSchema(slices.Concat(read.Fields()[:len(f.cols)], changeFields), nil)
}

// take is rows of b as feed rows of kind.
func (f *feed) take(b arrow.RecordBatch, rows []int64, kind string, ordinal int, id int64) (arrow.RecordBatch, error) {
	mem := memory.DefaultAllocator
	idx := array.NewInt64Builder(mem)
	idx.AppendValues(rows, nil)
	indices := idx.NewInt64Array()
	idx.Release()
	defer indices.Release()
	cols := make([]arrow.Array, 0, len(f.cols)+len(changeFields))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for c := range len(f.cols) {
		taken, err := compute.TakeArray(context.Background(), b.Column(c), indices)
		if err != nil {
			return nil, fmt.Errorf("change feed column %s: %w", f.cols[c], err)
		}
		cols = append(cols, taken)
	}
	n := len(rows)
	kinds := array.NewStringBuilder(mem)
	ords := array.NewInt32Builder(mem)
	ids := array.NewInt64Builder(mem)
	for range n {
		kinds.Append(kind)
		ords.Append(int32(ordinal))
		ids.Append(id)
	}
	cols = append(cols, kinds.NewArray(), ords.NewArray(), ids.NewArray())
	kinds.Release()
	ords.Release()
	ids.Release()
	return array.NewRecordBatch(f.schema, slices.Clone(cols), int64(n)), nil
}
