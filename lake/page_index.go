package lake

import (
	"slices"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// A file with a page index (Parquet's ColumnIndex and OffsetIndex, which
// magmalake's writer adds and Spark, Trino and DuckDB read) gives every
// page's first row and bounds from a few hundred bytes beside the footer.
// Without one, readPageColumn reads the column chunk's page headers, and
// arrow-go's page reader decompresses each page on the way: a tenth of the
// CPU of a selective TPC-H query went there, before any row was read.

// readIndexedPageColumn is readPageColumn from rdr's page index; ok is
// false when leaf col of row group rg has none, or one that does not
// describe its pages consistently (readPageColumn then reads the headers).
func readIndexedPageColumn(rdr *file.Reader, rg, col int, nrows int64) (pc pageColumn, ok bool) {
	defer func() {
		// arrow-go's column index decoder panics on malformed bytes.
		if recover() != nil {
			pc, ok = pageColumn{}, false
		}
	}()
	pir := rdr.GetPageIndexReader()
	if pir == nil {
		return pageColumn{}, false
	}
	rgr, err := pir.RowGroup(rg)
	if err != nil || rgr == nil {
		return pageColumn{}, false
	}
	ci, err := rgr.GetColumnIndex(col)
	if err != nil || ci == nil {
		return pageColumn{}, false
	}
	oi, err := rgr.GetOffsetIndex(col)
	if err != nil || oi == nil {
		return pageColumn{}, false
	}
	locs := oi.GetPageLocations()
	stats, ok := indexStats(ci, len(locs))
	if !ok {
		return pageColumn{}, false
	}
	pc = pageColumn{col: col, descr: rdr.MetaData().Schema.Column(col), stats: stats}
	for _, l := range locs {
		if l == nil || len(pc.first) > 0 && l.FirstRowIndex <= pc.first[len(pc.first)-1] {
			return pageColumn{}, false
		}
		pc.first = append(pc.first, l.FirstRowIndex)
	}
	pc, ok, _ = pc.counted(nrows)
	if !ok {
		return pageColumn{}, false
	}
	// A page of nulls only has no bounds in the index; its null count is
	// its row count (a flat column: one value per row).
	for i, s := range pc.stats {
		if !s.HasMin && !s.HasNullCount {
			pc.stats[i].HasNullCount, pc.stats[i].NullCount = true, pc.rows[i]
		}
	}
	return pc, true
}

// indexStats are a column index's per-page bounds and null counts as the
// statistics a page header would carry; ok is false unless it lists pages
// of them.
func indexStats(ci metadata.ColumnIndex, pages int) ([]metadata.EncodedStatistics, bool) {
	nullPages, mins, maxs := ci.GetNullPages(), ci.GetMinValues(), ci.GetMaxValues()
	if pages == 0 || len(nullPages) != pages || len(mins) != pages || len(maxs) != pages {
		return nil, false
	}
	var counts []int64
	if ci.IsSetNullCounts() {
		if counts = ci.GetNullCounts(); len(counts) != pages {
			return nil, false
		}
	}
	out := make([]metadata.EncodedStatistics, pages)
	for i := range out {
		s := &out[i]
		if counts != nil {
			s.HasNullCount, s.NullCount = true, counts[i]
		}
		if nullPages[i] {
			continue // its min and max are placeholders
		}
		s.HasMin, s.Min = true, slices.Clone(mins[i])
		s.HasMax, s.Max = true, slices.Clone(maxs[i])
	}
	return out, true
}
