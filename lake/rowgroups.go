package lake

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/parallel"
)

// maxFooterReads bounds the Parquet footers read at once: each is a small
// read whose cost is mostly latency (object stores), so a few overlap well.
const maxFooterReads = 8

// ScanStats is what a Scan with a Filter and no Limit planned to read
// (other scans leave it zero). Row groups are counted over the Parquet
// files row-group pruning looked at, which is none when the filter binds to
// true; a file with one row group counts without its footer being read
// (unless its pages were judged).
type ScanStats struct {
	DataFiles     int // data files left after manifest pruning
	RowGroups     int // row groups in the files counted
	RowGroupsRead int // of those, the row groups left to read
	// PagedRowGroups of the row groups read are read by page ranges only,
	// PagedRows rows in all (the rest of their rows are skipped).
	PagedRowGroups int
	PagedRows      int64
}

// scanPart is one read of a planned scan, in the scan's order: a task for
// iceberg-go's reader (a file, or a run of its row groups), or one row
// group read by page ranges (page).
type scanPart struct {
	task table.FileScanTask
	page *pageTask
}

// prunedTask is one planned task after row-group pruning: the parts that
// replace it and how many row groups it had and kept.
type prunedTask struct {
	parts        []scanPart
	groups, kept int
	pagedGroups  int
	pagedRows    int64
}

func wholeTask(task table.FileScanTask, groups int) prunedTask {
	return prunedTask{parts: []scanPart{{task: task}}, groups: groups, kept: groups}
}

// pruneRowGroups replaces each Parquet task (a whole file or a byte range
// of one) by parts: one task per run of its row groups in which filter
// might hold, or, where pages allow (pageRead), a row group's page ranges
// in which it might; tasks with none are dropped, other tasks stay as they
// are. Footers are read concurrently, results kept in task order.
func pruneRowGroups(ctx context.Context, fs iceio.IO, f rowGroupFilter, pages pageRead, tasks []table.FileScanTask, stats *ScanStats) ([]scanPart, error) {
	out := make([]prunedTask, len(tasks))
	err := parallel.ForEach(ctx, len(tasks), maxFooterReads, func(ctx context.Context, i int) error {
		var err error
		out[i], err = pruneTask(ctx, fs, f, pages, tasks[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	var kept []scanPart
	for _, p := range out {
		kept = append(kept, p.parts...)
		stats.RowGroups += p.groups
		stats.RowGroupsRead += p.kept
		stats.PagedRowGroups += p.pagedGroups
		stats.PagedRows += p.pagedRows
	}
	return kept, nil
}

// pruneTask prunes the row groups of one task: a whole Parquet file, or
// the byte range of one iceberg-go planned for a file bigger than
// read.split.target-size (the row groups whose offset lies in it; a range
// is narrowed, never widened). Single-row-group files, which manifest
// pruning has already judged on the same statistics, are kept unread
// unless their pages may be judged.
func pruneTask(ctx context.Context, fs iceio.IO, f rowGroupFilter, pages pageRead, task table.FileScanTask) (prunedTask, error) {
	df := task.File
	if df.FileFormat() != iceberg.ParquetFile {
		return prunedTask{parts: []scanPart{{task: task}}}, nil
	}
	paged := pages.pageable(task)
	if !paged && len(df.SplitOffsets()) == 1 && wholeFile(task) {
		return wholeTask(task, 1), nil
	}
	if err := ctx.Err(); err != nil {
		return prunedTask{}, err
	}
	if paged {
		return prunePages(fs, f, pages, task)
	}
	md, err := readFooter(fs, df.FilePath(), df.FileSizeBytes())
	if err != nil {
		return prunedTask{}, err
	}
	return splitTask(task, md, f, nil)
}

func wholeFile(task table.FileScanTask) bool {
	return task.Start == 0 && (task.Length == 0 || task.Length == task.File.FileSizeBytes())
}

// inTask reports whether the row group at offset is one task reads.
func inTask(task table.FileScanTask, offset int64) bool {
	return wholeFile(task) || (offset >= task.Start && offset < task.Start+task.Length)
}

// readFooter reads only the metadata of a Parquet file of size bytes (0:
// unknown).
func readFooter(fs iceio.IO, path string, size int64) (*metadata.FileMetaData, error) {
	src, err := OpenSized(fs, path, size)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	rdr, err := file.NewParquetReader(src)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("read footer of %s: %w", path, err), src.Close())
	}
	md := rdr.MetaData()
	if err := rdr.Close(); err != nil { // closes src too
		return nil, fmt.Errorf("close %s: %w", path, err)
	}
	return md, nil
}

// prunePages prunes a task whose row groups may be narrowed to page ranges:
// the file stays open while the filter columns' pages are read.
func prunePages(fs iceio.IO, f rowGroupFilter, pages pageRead, task table.FileScanTask) (res prunedTask, err error) {
	path := task.File.FilePath()
	src, err := OpenSized(fs, path, task.File.FileSizeBytes())
	if err != nil {
		return prunedTask{}, fmt.Errorf("open %s: %w", path, err)
	}
	rdr, err := file.NewParquetReader(src)
	if err != nil {
		return prunedTask{}, errors.Join(fmt.Errorf("read footer of %s: %w", path, err), src.Close())
	}
	defer func() {
		if cerr := rdr.Close(); cerr != nil && err == nil { // closes src too
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	md := rdr.MetaData()
	var pg *pager
	if leaves, ok := requestedLeaves(md, pages.want); ok {
		pg = &pager{read: pages, rdr: rdr, leaves: leaves}
	}
	return splitTask(task, md, f, pg)
}

// splitTask keeps the row groups of md in which f might hold, as one task
// per contiguous run (byte ranges, see rowGroupOffsets); with pg, a kept
// row group whose pages narrow it enough becomes a part of its own, read
// by page ranges, and one whose pages rule every row out is dropped.
func splitTask(task table.FileScanTask, md *metadata.FileMetaData, f rowGroupFilter, pg *pager) (prunedTask, error) {
	n := md.NumRowGroups()
	offsets, ok := rowGroupOffsets(md, task.File.SplitOffsets())
	if !ok {
		if !wholeFile(task) {
			return prunedTask{parts: []scanPart{{task: task}}}, nil // its row groups unknown
		}
		return wholeTask(task, n), nil
	}
	cols := newFileColumns(md, task.File.NaNValueCounts())
	keep := make([]bool, n)
	paged := make([][]rowRange, n) // non-nil: read by these ranges
	res := prunedTask{}
	for rg := range n {
		if !inTask(task, offsets[rg]) {
			continue
		}
		res.groups++
		might, err := f.mightMatch(md.RowGroup(rg), cols)
		if err == nil && might && pg != nil {
			var ranges []rowRange
			var use bool
			if ranges, use, err = pg.ranges(f, rg, cols); use {
				might, paged[rg] = len(ranges) > 0, ranges
			}
		}
		if err != nil {
			return prunedTask{}, fmt.Errorf("row group %d of %s: %w", rg, task.File.FilePath(), err)
		}
		keep[rg] = might
		if might {
			res.kept++
		}
	}
	if res.kept == res.groups && !slices.ContainsFunc(paged, func(r []rowRange) bool { return r != nil }) {
		res.parts = []scanPart{{task: task}}
		return res, nil
	}
	end := append(slices.Clone(offsets[1:]), md.GetSourceFileSize())
	for first := 0; first < n; first++ {
		if !keep[first] {
			continue
		}
		if paged[first] != nil {
			res.parts = append(res.parts, scanPart{page: pg.task(task, first, paged[first])})
			if rows := rangeRows(paged[first]); rows < md.RowGroup(first).NumRows() {
				res.pagedGroups++
				res.pagedRows += rows
			}
			continue
		}
		last := first
		for last+1 < n && keep[last+1] && paged[last+1] == nil {
			last++
		}
		t := task // delete files, residual, row lineage: all as planned
		t.Start, t.Length = offsets[first], end[last]-offsets[first]
		res.parts = append(res.parts, scanPart{task: t})
		first = last
	}
	return res, nil
}

// rowGroupOffsets are the byte offsets iceberg-go v0.7.0's reader selects
// row groups by: a task with a byte range reads the row groups whose offset
// lies in [Start, Start+Length). The reader takes the data file's split
// offsets when they list one valid offset per row group, else each row
// group's first page (dictionary page if it comes first, else data page,
// else the row group's file_offset). We split only when both agree, so a
// range means the same row groups whichever the reader uses; ok is false
// when they do not, or when the offsets do not ascend inside the file.
func rowGroupOffsets(md *metadata.FileMetaData, splitOffsets []int64) ([]int64, bool) {
	n, size := md.NumRowGroups(), md.GetSourceFileSize()
	offsets := make([]int64, n)
	for rg := range n {
		off, ok := firstPageOffset(md.RowGroup(rg))
		if !ok || off < 0 || off >= size || rg > 0 && off <= offsets[rg-1] {
			return nil, false
		}
		offsets[rg] = off
	}
	if len(splitOffsets) > 0 && !slices.Equal(splitOffsets, offsets) {
		return nil, false
	}
	return offsets, true
}

func firstPageOffset(rg *metadata.RowGroupMetaData) (int64, bool) {
	if rg.NumColumns() == 0 {
		return rg.FileOffset(), true
	}
	cc, err := rg.ColumnChunk(0)
	if err != nil {
		return 0, false
	}
	data := cc.DataPageOffset()
	if cc.HasDictionaryPage() {
		if dict := cc.DictionaryPageOffset(); dict >= 0 && (data < 0 || dict < data) {
			return dict, true
		}
	}
	if data >= 0 {
		return data, true
	}
	return rg.FileOffset(), true
}
