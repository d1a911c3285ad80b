package lake

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Page pruning narrows a row group that row-group statistics kept to the
// rows whose data pages might hold a match. Iceberg-go's reader decodes a
// row group whole, every column; a point lookup in a 64Ki-row group then
// decodes 64Ki rows of every column for one row. Parquet writers put each
// data page's min, max and null count in its header, or in a page index
// beside the footer (magmalake's writer does both; iceberg-go v0.7.0's
// writer writes headers only), so the pages of the filter's columns tell
// which row ranges can match; those ranges are read with a reader of our own that seeks to each
// (pqarrow's SeekToRow) and decodes only the pages it needs.

// pageReadShare: a row group is read by page ranges only when they hold at
// most this share of its rows; past it the seeks cost more than they save.
const pageReadShare = 0.5

// rowRange is the rows [start, end) of one row group.
type rowRange struct{ start, end int64 }

// pageTask is the part of a data file read by page ranges: one row group
// and its rows that might match, with the file's footer (md) and the leaf
// columns of the requested fields.
type pageTask struct {
	task   table.FileScanTask
	md     *metadata.FileMetaData
	rg     int
	ranges []rowRange
	leaves []int
}

// pageRead is what the plan knows for page pruning: the field ids the scan
// returns, whether it may judge pages at all, and whether every row group
// it may read is read by our reader (a dynamic filter, scan_dynamic.go).
type pageRead struct {
	want []int // requested top-level field ids
	on   bool
	all  bool
}

// pagedPageBytes: a table whose files are written with data pages of at
// most this size (write.parquet.page-size-bytes) has its pages judged.
// Larger pages rarely split a row group's column chunk, and a footer says
// nothing of how many pages a chunk holds, so judging them would read the
// filter columns' pages for nothing.
const pagedPageBytes = 256 << 10

// newPageRead decides page pruning for a scan of tbl returning the fields
// of readSchema: on when the table's files have small pages and no row
// lineage column is read (iceberg-go's reader derives those); with all,
// every row group without deletes is read by our reader (no lineage
// column read either).
func newPageRead(props iceberg.Properties, readSchema *iceberg.Schema, all bool) pageRead {
	size := props.GetInt(table.ParquetPageSizeBytesKey, table.ParquetPageSizeBytesDefault)
	pr := pageRead{on: size > 0 && size <= pagedPageBytes, all: all}
	for _, f := range readSchema.Fields() {
		if f.ID == iceberg.RowIDFieldID || f.ID == iceberg.LastUpdatedSequenceNumberFieldID {
			return pageRead{}
		}
		pr.want = append(pr.want, f.ID)
	}
	return pr
}

// pageable reports whether task may be read by page ranges: a Parquet file
// with no delete file of any kind (position deletes, deletion vectors and
// equality deletes are applied by iceberg-go's reader).
func (p pageRead) pageable(task table.FileScanTask) bool {
	return (p.on || p.all) && task.File.FileFormat() == iceberg.ParquetFile && len(task.DeleteFiles) == 0 &&
		len(task.DeletionVectorFiles) == 0 && len(task.EqualityDeleteFiles) == 0
}

// pager judges the pages of the row groups of one open file.
type pager struct {
	read   pageRead
	rdr    *file.Reader
	leaves []int // leaf columns of the requested fields
}

// ranges gives the row ranges of row group rg the filter might hold in,
// and whether to read the group by them: only when they leave out enough
// of its rows (or all of them), or always when every group is read by our
// reader (then the whole group when its pages say nothing).
func (p *pager) ranges(f rowGroupFilter, rg int, cols fileColumns) ([]rowRange, bool, error) {
	rows := p.rdr.MetaData().RowGroup(rg).NumRows()
	if !p.read.on {
		return []rowRange{{0, rows}}, p.read.all, nil
	}
	ranges, ok, err := f.pageRanges(p.rdr, rg, cols)
	if err == nil && p.read.all {
		if !ok {
			ranges = []rowRange{{0, rows}}
		}
		return ranges, true, nil
	}
	if err != nil || !ok {
		return nil, false, err
	}
	if float64(rangeRows(ranges)) > pageReadShare*float64(rows) {
		return nil, false, nil
	}
	return ranges, true, nil
}

// task is the part reading ranges of row group rg of task's file.
func (p *pager) task(task table.FileScanTask, rg int, ranges []rowRange) *pageTask {
	return &pageTask{task: task, md: p.rdr.MetaData(), rg: rg, ranges: ranges, leaves: p.leaves}
}

// pageColumn is one filter column's data pages in a row group.
type pageColumn struct {
	col   int
	descr *schema.Column
	first []int64 // first row of each page, ascending
	rows  []int64 // rows of each page
	stats []metadata.EncodedStatistics
}

// pageRanges reads the pages of the filter's page-prunable columns in row
// group rg of rdr and returns the row ranges in which the filter might
// hold; ok is false when no column could be judged by its pages.
func (f rowGroupFilter) pageRanges(rdr *file.Reader, rg int, cols fileColumns) ([]rowRange, bool, error) {
	md := rdr.MetaData()
	rgmd := md.RowGroup(rg)
	nrows := rgmd.NumRows()
	var pcs []pageColumn
	for _, id := range filterFieldIDs(f) {
		col, ok := cols.leaf[id]
		if !ok || !pageStatsReadable(md.Schema.Column(col)) {
			continue
		}
		pc, ok, err := readPageColumn(rdr, rg, col, nrows)
		if err != nil {
			return nil, false, err
		}
		if ok && len(pc.first) > 1 {
			pcs = append(pcs, pc)
		}
	}
	if len(pcs) == 0 {
		return nil, false, nil
	}
	bounds := []int64{nrows}
	for _, pc := range pcs {
		bounds = append(bounds, pc.first...)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	var out []rowRange
	for i := 0; i+1 < len(bounds); i++ {
		start, end := bounds[i], bounds[i+1]
		might, err := f.mightMatchRows(rgmd, cols, pcs, start)
		if err != nil {
			return nil, false, err
		}
		if !might {
			continue
		}
		if n := len(out); n > 0 && out[n-1].end == start {
			out[n-1].end = end
		} else {
			out = append(out, rowRange{start, end})
		}
	}
	return out, true, nil
}

// mightMatchRows judges the rows from start to the next page boundary: a
// paged column by its page holding start, any other by its chunk's
// statistics (what bounds a row group bounds each of its rows).
func (f rowGroupFilter) mightMatchRows(rg *metadata.RowGroupMetaData, cols fileColumns, pcs []pageColumn, start int64) (bool, error) {
	stats := func(col int, typ iceberg.Type, noNaN bool) colStats {
		for _, pc := range pcs {
			if pc.col != col {
				continue
			}
			i, found := slices.BinarySearch(pc.first, start)
			if !found {
				i--
			}
			return pageStats(pc.descr, pc.stats[i], pc.rows[i], typ, noNaN)
		}
		return chunkStats(rg, col, typ, noNaN)
	}
	v, err := iceberg.VisitExpr(f.expr, &groupEval{stats: stats, cols: cols, sets: f.sets})
	return v.might, err
}

// readPageColumn reads the first rows and statistics of the data pages of
// leaf col in row group rg, from the file's page index if it has one, else
// from the pages' headers. ok is false when a page lacks what pruning needs
// (its first row).
func readPageColumn(rdr *file.Reader, rg, col int, nrows int64) (pageColumn, bool, error) {
	if pc, ok := readIndexedPageColumn(rdr, rg, col, nrows); ok {
		return pc, true, nil
	}
	return readPageHeaders(rdr, rg, col, nrows)
}

// readPageHeaders is readPageColumn from the pages' headers.
func readPageHeaders(rdr *file.Reader, rg, col int, nrows int64) (pageColumn, bool, error) {
	pr, err := rdr.RowGroup(rg).GetColumnPageReader(col)
	if err != nil {
		return pageColumn{}, false, fmt.Errorf("pages of column %d: %w", col, err)
	}
	defer pr.Close()
	pc := pageColumn{col: col, descr: rdr.MetaData().Schema.Column(col)}
	for pr.Next() {
		dp, ok := pr.Page().(file.DataPage)
		if !ok {
			continue // the dictionary page
		}
		first := dp.FirstRowIndex()
		if first < 0 || len(pc.first) > 0 && first <= pc.first[len(pc.first)-1] {
			return pageColumn{}, false, nil
		}
		pc.first = append(pc.first, first)
		pc.stats = append(pc.stats, dp.Statistics())
	}
	if err := pr.Err(); err != nil {
		return pageColumn{}, false, fmt.Errorf("pages of column %d: %w", col, err)
	}
	return pc.counted(nrows)
}

// counted fills in the rows of each page from the pages' first rows; ok is
// false when those do not start at 0 and stay inside the row group.
func (pc pageColumn) counted(nrows int64) (pageColumn, bool, error) {
	if len(pc.first) == 0 || pc.first[0] != 0 || pc.first[len(pc.first)-1] >= nrows {
		return pageColumn{}, false, nil
	}
	for i := range pc.first {
		end := nrows
		if i+1 < len(pc.first) {
			end = pc.first[i+1]
		}
		pc.rows = append(pc.rows, end-pc.first[i])
	}
	return pc, true, nil
}

// pageStatsReadable: a flat column whose physical type orders its page
// bounds the same under the deprecated and the current statistics fields
// (arrow-go reads either): numbers and booleans. Byte arrays are left out,
// since an old writer's min/max compared them as signed bytes.
func pageStatsReadable(c *schema.Column) bool {
	if c.MaxRepetitionLevel() > 0 {
		return false
	}
	switch c.PhysicalType() {
	case parquet.Types.Int32, parquet.Types.Int64, parquet.Types.Float, parquet.Types.Double, parquet.Types.Boolean:
		return true
	}
	return false
}

// pageStats reads one page's encoded statistics as colStats of the
// table's type typ; bounds it cannot read as typ stay unknown.
func pageStats(descr *schema.Column, es metadata.EncodedStatistics, rows int64, typ iceberg.Type, noNaN bool) colStats {
	cs := colStats{typ: typ, rows: rows, nulls: -1, noNaN: noNaN || !isFloatType(typ)}
	if es.HasNullCount {
		cs.nulls = es.NullCount
	}
	if es.HasMin && es.HasMax {
		cs.lo, cs.hi = plainBound(descr, es.Min, typ), plainBound(descr, es.Max, typ)
		if cs.lo == nil || cs.hi == nil {
			cs.lo, cs.hi = nil, nil
		}
	}
	return cs
}

// plainBound decodes a PLAIN-encoded statistics value of descr's physical
// type as a literal of typ (intLiteral and floatLiteral check that the
// logical type carries typ's values), or nil.
func plainBound(descr *schema.Column, b []byte, typ iceberg.Type) iceberg.Literal {
	switch descr.PhysicalType() {
	case parquet.Types.Int32:
		if len(b) == 4 {
			return intLiteral(int64(int32(binary.LittleEndian.Uint32(b))), descr, typ)
		}
	case parquet.Types.Int64:
		if len(b) == 8 {
			return intLiteral(int64(binary.LittleEndian.Uint64(b)), descr, typ)
		}
	case parquet.Types.Float:
		if len(b) == 4 {
			return floatLiteral(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), true, typ)
		}
	case parquet.Types.Double:
		if len(b) == 8 {
			return floatLiteral(math.Float64frombits(binary.LittleEndian.Uint64(b)), false, typ)
		}
	case parquet.Types.Boolean:
		if _, ok := typ.(iceberg.BooleanType); ok && len(b) == 1 {
			return iceberg.BoolLiteral(b[0] != 0)
		}
	}
	return nil
}

// filterFieldIDs lists the field ids the bound filter's predicates read
// directly (not through a transform), each once.
func filterFieldIDs(f rowGroupFilter) []int {
	ids, _ := iceberg.VisitExpr(f.expr, fieldIDCollector{})
	slices.Sort(ids)
	return slices.Compact(ids)
}

type fieldIDCollector struct{}

func (fieldIDCollector) VisitTrue() []int                            { return nil }
func (fieldIDCollector) VisitFalse() []int                           { return nil }
func (fieldIDCollector) VisitNot(c []int) []int                      { return c }
func (fieldIDCollector) VisitAnd(l, r []int) []int                   { return append(l, r...) }
func (fieldIDCollector) VisitOr(l, r []int) []int                    { return append(l, r...) }
func (fieldIDCollector) VisitUnbound(iceberg.UnboundPredicate) []int { return nil }
func (fieldIDCollector) VisitBound(p iceberg.BoundPredicate) []int {
	if ref, ok := p.Term().(iceberg.BoundReference); ok {
		return []int{ref.Field().ID}
	}
	return nil
}

// requestedLeaves maps the requested top-level field ids to the leaf
// columns of md that hold them; a field the file lacks (a column added
// later) has none, and reads as its initial-default or NULL (the page
// reader's projection fills it). ok is false when the file holds none of
// the fields, one is nested, or the file has no field ids.
func requestedLeaves(md *metadata.FileMetaData, want []int) ([]int, bool) {
	man, err := pqarrow.NewSchemaManifest(md.Schema, md.KeyValueMetadata(), &pqarrow.ArrowReadProperties{})
	if err != nil {
		return nil, false
	}
	byID := map[int]*pqarrow.SchemaField{}
	for i := range man.Fields {
		f := &man.Fields[i]
		id, err := strconv.Atoi(fieldIDOf(f))
		if err != nil {
			return nil, false
		}
		byID[id] = f
	}
	var leaves []int
	for _, id := range want {
		f, ok := byID[id]
		if !ok {
			continue
		}
		if !f.IsLeaf() || md.Schema.Column(f.ColIndex).MaxRepetitionLevel() > 0 {
			// Nested columns seek by their levels, which no test of ours
			// covers: iceberg-go's reader reads them whole.
			return nil, false
		}
		leaves = append(leaves, f.ColIndex)
	}
	slices.Sort(leaves)
	return slices.Compact(leaves), len(leaves) > 0
}

func fieldIDOf(f *pqarrow.SchemaField) string {
	if f.Field == nil {
		return ""
	}
	v, _ := f.Field.Metadata.GetValue("PARQUET:field_id")
	return v
}

// rangeRows counts the rows of rs.
func rangeRows(rs []rowRange) int64 {
	var n int64
	for _, r := range rs {
		n += r.end - r.start
	}
	return n
}
