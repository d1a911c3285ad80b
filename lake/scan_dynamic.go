package lake

import (
	"github.com/apache/arrow-go/v18/parquet/file"
)

// A dynamic filter narrows while the scan runs: an ORDER BY ... LIMIT
// knows, once it holds its LIMIT of rows, that a row sorting after the
// last of them on the first key cannot make the cut. Each row group is
// judged by the filter's value when the group is read, by its statistics
// and its pages' (the page index): on a key in no particular order, the
// pages holding a value at or past the bound are a few of each group
// (bench select's top-N: ORDER BY price DESC LIMIT 10), and only they are
// decoded, in every column.

// narrow is pt's ranges cut to the rows the dynamic filter's current
// value might hold in: none when the row group's statistics rule it out,
// the pages its page index keeps otherwise. Should the filter not bind,
// the ranges stay as planned.
func (r pageReader) narrow(rdr *file.Reader, pt pageTask) ([]rowRange, error) {
	if r.dynamic == nil {
		return pt.ranges, nil
	}
	expr := r.dynamic()
	if expr == nil {
		return pt.ranges, nil
	}
	f, err := newRowGroupFilter(r.requested, expr)
	if err != nil || f.trivial() {
		return pt.ranges, nil
	}
	cols := newFileColumns(pt.md, pt.task.File.NaNValueCounts())
	might, err := f.mightMatch(pt.md.RowGroup(pt.rg), cols)
	if err != nil || !might {
		return nil, err
	}
	pages, ok, err := f.pageRanges(rdr, pt.rg, cols)
	if err != nil || !ok {
		return pt.ranges, err
	}
	return intersectRanges(pt.ranges, pages), nil
}

// intersectRanges is the rows in both a and b, each ascending and
// disjoint.
func intersectRanges(a, b []rowRange) []rowRange {
	var out []rowRange
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].start, b[j].start), min(a[i].end, b[j].end)
		if lo < hi {
			out = append(out, rowRange{lo, hi})
		}
		if a[i].end < b[j].end {
			i++
		} else {
			j++
		}
	}
	return out
}
