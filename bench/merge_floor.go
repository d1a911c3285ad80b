package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// mergeFloor is the physical minimum of the bench's MERGE, done by hand
// with arrow-go and iceberg-go and committing nothing:
//
//   - read the source's data files whole (the rows to write come from them)
//     and hash its keys (id → grp);
//   - plan the target's files with the filter the source's keys imply (the
//     id range, and the source's grp for the one-partition case), as
//     iceberg-go's scan planning prunes them;
//   - read only the key columns of each candidate file and find the matched
//     positions by a hash set lookup per row;
//   - write the delete side the mode asks: copy-on-write reads each file
//     with a match whole and writes its survivors (the engine's rewrite
//     layout); v2 writes one position delete file per partition (file_path
//     dictionary-encoded, pos delta-encoded, as the engine writes them); v3
//     one Puffin file of deletion vectors (iceberg-go's DV writer);
//   - write the new rows with iceberg-go's WriteRecords under the table's
//     layout and partitioning: the source rows themselves, since the UPDATE
//     SET and the INSERT take every value from the source.
type mergeFloor struct {
	tbl  *table.Table
	fs   iceio.IO
	rd   *floor // its Parquet reader
	mode Mode
	dir  string // the floor's own output (removed afterwards)

	byGrp bool // ON compares grp too
	rows  []arrow.RecordBatch
	keys  map[int64]int32    // source id → grp
	files []iceberg.DataFile // candidate target files
	pos   [][]int64          // matched positions per candidate, ascending
}

// mergeFloorOutcome is what the floor found and wrote.
type mergeFloorOutcome struct {
	took             time.Duration
	matched, written int64
	candidates       int
}

// measureMergeFloor runs the floor on tbl (a fresh clone) against the
// source's data files.
func measureMergeFloor(ctx context.Context, tbl *table.Table, ms mergeSpec, src []iceberg.DataFile, m Mode, tmp string) (mergeFloorOutcome, error) {
	var out mergeFloorOutcome
	fs, err := tbl.FS(ctx)
	if err != nil {
		return out, err
	}
	dir, err := os.MkdirTemp(tmp, "merge-floor-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	fl := &mergeFloor{tbl: tbl, fs: fs, rd: &floor{fs: fs}, mode: m, dir: dir, byGrp: ms.onePart >= 0}
	defer func() { releaseBatches(fl.rows) }()
	start := time.Now()
	out.written, err = fl.run(ctx, src)
	out.took = time.Since(start)
	if err != nil {
		return out, fmt.Errorf("merge floor: %w", err)
	}
	for _, p := range fl.pos {
		out.matched += int64(len(p))
	}
	out.candidates = len(fl.files)
	return out, nil
}

func (fl *mergeFloor) run(ctx context.Context, src []iceberg.DataFile) (int64, error) {
	if err := fl.readSource(ctx, src); err != nil {
		return 0, err
	}
	if err := fl.plan(ctx); err != nil {
		return 0, err
	}
	fl.pos = make([][]int64, len(fl.files))
	if err := parallel(ctx, len(fl.files), func(i int) error { return fl.match(ctx, i) }); err != nil {
		return 0, err
	}
	if err := fl.writeDeletes(ctx); err != nil {
		return 0, err
	}
	return fl.writeRows(ctx)
}

// readSource holds the source's rows and hashes their keys.
func (fl *mergeFloor) readSource(ctx context.Context, src []iceberg.DataFile) error {
	fl.keys = map[int64]int32{}
	for _, df := range src {
		err := fl.rd.read(ctx, df.FilePath(), nil, func(b arrow.RecordBatch) error {
			b.Retain()
			fl.rows = append(fl.rows, b)
			ids := b.Column(b.Schema().FieldIndices(colID)[0]).(*array.Int64)
			grps := b.Column(b.Schema().FieldIndices(colGrp)[0]).(*array.Int32)
			for r := range ids.Len() {
				fl.keys[ids.Value(r)] = grps.Value(r)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// plan lists the candidate files: those whose metrics and partition the
// filter implied by the source's keys does not rule out.
func (fl *mergeFloor) plan(ctx context.Context) error {
	var lo, hi int64
	grps := map[int32]bool{}
	first := true
	for id, g := range fl.keys {
		if first || id < lo {
			lo = id
		}
		if first || id > hi {
			hi = id
		}
		first = false
		grps[g] = true
	}
	if first {
		return nil
	}
	filter := iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference(colID), lo), iceberg.LessThanEqual(iceberg.Reference(colID), hi))
	if fl.byGrp {
		vals := make([]int32, 0, len(grps))
		for g := range grps {
			vals = append(vals, g)
		}
		filter = iceberg.NewAnd(filter, iceberg.IsIn(iceberg.Reference(colGrp), vals...))
	}
	tasks, err := fl.tbl.Scan(table.WithRowFilter(filter)).PlanFiles(ctx)
	if err != nil {
		return err
	}
	for _, t := range tasks {
		fl.files = append(fl.files, t.File)
	}
	return nil
}

// match finds the positions of candidate i's rows that some source row
// joins, reading the key columns only.
func (fl *mergeFloor) match(ctx context.Context, i int) error {
	names := []string{colID}
	if fl.byGrp {
		names = append(names, colGrp)
	}
	var base int64
	var pos []int64
	err := fl.rd.read(ctx, fl.files[i].FilePath(), names, func(b arrow.RecordBatch) error {
		ids := b.Column(0).(*array.Int64).Int64Values()
		var grps *array.Int32
		if fl.byGrp {
			grps = b.Column(1).(*array.Int32)
		}
		for r, id := range ids {
			g, ok := fl.keys[id]
			if ok && (grps == nil || (grps.IsValid(r) && grps.Value(r) == g)) {
				pos = append(pos, base+int64(r))
			}
		}
		base += b.NumRows()
		return nil
	})
	fl.pos[i] = pos
	return err
}

// writeDeletes writes the mode's record of the matched rows.
func (fl *mergeFloor) writeDeletes(ctx context.Context) error {
	var hit []int
	for i, p := range fl.pos {
		if len(p) > 0 {
			hit = append(hit, i)
		}
	}
	switch fl.mode {
	case CopyOnWrite:
		return parallel(ctx, len(hit), func(k int) error { return fl.rewrite(ctx, hit[k], k) })
	case MergeOnReadV3:
		return fl.writeDVs(ctx, hit)
	}
	groups := map[string][]int{}
	var order []string
	for _, i := range hit {
		key := fmt.Sprint(sortedPartitionKey(fl.files[i].Partition()))
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	return parallel(ctx, len(order), func(k int) error { return fl.writePositionDeletes(groups[order[k]], k) })
}

func sortedPartitionKey(part map[int]any) []string {
	var out []string
	for id, v := range part {
		out = append(out, fmt.Sprintf("%d=%v", id, v))
	}
	slices.Sort(out)
	return out
}

// rewrite reads candidate i whole and writes the rows not matched, laid out
// as the engine lays out a copy-on-write rewrite (floorWriterProps).
func (fl *mergeFloor) rewrite(ctx context.Context, i, k int) error {
	f, err := os.Create(filepath.Join(fl.dir, fmt.Sprintf("rewrite-%d.parquet", k)))
	if err != nil {
		return err
	}
	bw := &floorSink{Writer: bufio.NewWriterSize(f, 1<<20), f: f}
	var fw *pqarrow.FileWriter
	pos, base := fl.pos[i], int64(0)
	err = fl.rd.readWith(ctx, fl.files[i].FilePath(), nil, func(md *metadata.FileMetaData, b arrow.RecordBatch) error {
		if fw == nil {
			var err error
			if fw, err = pqarrow.NewFileWriter(b.Schema(), bw, floorWriterProps(md), pqarrow.DefaultWriterProps()); err != nil {
				return err
			}
		}
		var kept arrow.RecordBatch
		var err error
		kept, pos, err = dropPositions(ctx, b, base, pos)
		base += b.NumRows()
		if err != nil {
			return err
		}
		defer kept.Release()
		return fw.WriteBuffered(kept)
	})
	if fw != nil {
		return errors.Join(err, fw.Close())
	}
	return errors.Join(err, f.Close())
}

// dropPositions filters out of b (rows base...) the positions at the head of
// pos (ascending) that fall in it, and returns the positions left.
func dropPositions(ctx context.Context, b arrow.RecordBatch, base int64, pos []int64) (arrow.RecordBatch, []int64, error) {
	n := b.NumRows()
	if len(pos) == 0 || pos[0] >= base+n {
		b.Retain()
		return b, pos, nil
	}
	keep := make([]bool, n)
	for r := range keep {
		keep[r] = true
	}
	for len(pos) > 0 && pos[0] < base+n {
		keep[pos[0]-base] = false
		pos = pos[1:]
	}
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer bld.Release()
	bld.AppendValues(keep, nil)
	mask := bld.NewArray()
	defer mask.Release()
	out, err := compute.FilterRecordBatch(ctx, b, mask, compute.DefaultFilterOptions())
	return out, pos, err
}

// writeDVs writes one Puffin file with a deletion vector per candidate
// with a match.
func (fl *mergeFloor) writeDVs(ctx context.Context, hit []int) error {
	wfs, ok := fl.fs.(iceio.WriteFileIO)
	if !ok {
		return errors.New("the table's file system cannot write")
	}
	meta := fl.tbl.Metadata()
	w := dv.NewDVWriter(wfs, func(id int32) *iceberg.PartitionSpec { return meta.PartitionSpecByID(int(id)) })
	for _, i := range hit {
		df := fl.files[i]
		if err := w.Add(df.FilePath(), fl.pos[i], df.SpecID(), df.Partition()); err != nil {
			return err
		}
	}
	_, err := w.Flush(ctx, filepath.Join(fl.dir, "deletes.puffin"))
	return err
}

// writePositionDeletes writes one v2 position delete file for candidates
// idx (one partition's), sorted by path then position.
func (fl *mergeFloor) writePositionDeletes(idx []int, k int) error {
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(fl.files[a].FilePath(), fl.files[b].FilePath()) })
	rec := fl.positionBatch(idx)
	defer rec.Release()
	f, err := os.Create(filepath.Join(fl.dir, fmt.Sprintf("deletes-%d.parquet", k)))
	if err != nil {
		return err
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDataPageVersion(parquet.DataPageV2),
		parquet.WithDictionaryFor("pos", false),
		parquet.WithEncodingFor("pos", parquet.Encodings.DeltaBinaryPacked),
	)
	fw, err := pqarrow.NewFileWriter(rec.Schema(), &floorSink{Writer: bufio.NewWriterSize(f, 1<<20), f: f}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return errors.Join(err, f.Close())
	}
	return errors.Join(fw.Write(rec), fw.Close())
}

// positionBatch is the (file_path, pos) rows of candidates idx, file_path
// a dictionary array of one entry per data file.
func (fl *mergeFloor) positionBatch(idx []int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	dict, ix, pos := array.NewStringBuilder(mem), array.NewInt32Builder(mem), array.NewInt64Builder(mem)
	defer dict.Release()
	defer ix.Release()
	defer pos.Release()
	for k, i := range idx {
		dict.Append(fl.files[i].FilePath())
		for _, p := range fl.pos[i] {
			ix.Append(int32(k))
			pos.Append(p)
		}
	}
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	d, x, p := dict.NewArray(), ix.NewArray(), pos.NewArray()
	defer d.Release()
	defer x.Release()
	defer p.Release()
	paths := array.NewDictionaryArray(dt, x, d)
	defer paths.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "file_path", Type: dt}, {Name: "pos", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{paths, p}, int64(p.Len()))
}

// writeRows writes the source's rows as the table's data files (under the
// clone's location, which dropClone removes) and counts them.
func (fl *mergeFloor) writeRows(ctx context.Context) (int64, error) {
	if len(fl.rows) == 0 {
		return 0, nil
	}
	var n int64
	rows := func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range fl.rows {
			b.Retain() // WriteRecords releases what it takes
			n += b.NumRows()
			if !yield(b, nil) {
				return
			}
		}
	}
	for _, err := range table.WriteRecords(ctx, fl.tbl, fl.rows[0].Schema(), rows) {
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}
