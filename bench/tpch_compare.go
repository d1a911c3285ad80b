package bench

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// tpchDiff says how got differs from want, or "" when they agree. order
// is the columns the query's ORDER BY sorts on: rows must come in the
// order of those keys, and rows whose keys tie may come in any order
// among themselves (with no ORDER BY, the whole answer is one tie).
func tpchDiff(want, got [][]cell, order []int) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for lo := 0; lo < len(want); {
		hi := lo + 1
		for hi < len(want) && sameKey(want[lo], want[hi], order) {
			hi++
		}
		for i := lo; i < hi; i++ {
			if len(got[i]) != len(want[i]) {
				return fmt.Sprintf("row %d has %d columns, want %d", i+1, len(got[i]), len(want[i]))
			}
			if !sameKey(want[i], got[i], order) {
				return fmt.Sprintf("row %d is %s, want %s (ORDER BY columns differ)", i+1, rowString(got[i]), rowString(want[i]))
			}
		}
		if d := diffTies(want[lo:hi], got[lo:hi]); d != "" {
			return fmt.Sprintf("rows %d-%d: %s", lo+1, hi, d)
		}
		lo = hi
	}
	return ""
}

func sameKey(a, b []cell, order []int) bool {
	if len(order) == 0 {
		return true
	}
	for _, c := range order {
		if c >= len(a) || c >= len(b) || !sameCell(a[c], b[c]) {
			return false
		}
	}
	return true
}

// diffTies compares rows that may come in any order: both sorted by a
// canonical form (numbers rounded, so values within the tolerance sort
// alike), then cell by cell.
func diffTies(want, got [][]cell) string {
	if len(want) == 1 {
		return diffRows(want, got)
	}
	sorted := func(rows [][]cell) [][]cell {
		rows = slices.Clone(rows)
		slices.SortStableFunc(rows, func(a, b []cell) int { return cmp.Compare(canonical(a), canonical(b)) })
		return rows
	}
	return diffRows(sorted(want), sorted(got))
}

func canonical(r []cell) string {
	parts := make([]string, len(r))
	for i, c := range r {
		if x, err := strconv.ParseFloat(c.text, 64); err == nil && !c.null {
			parts[i] = strconv.FormatFloat(x, 'e', 6, 64)
		} else {
			parts[i] = c.String()
		}
	}
	return strings.Join(parts, "\x00")
}

// trimBlanks drops trailing blanks: DuckDB reads char(n) values from the
// Parquet files without PostgreSQL's padding.
func trimBlanks(rows [][]cell) [][]cell {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		out[i] = make([]cell, len(r))
		for j, c := range r {
			out[i][j] = cell{text: strings.TrimRight(c.text, " "), null: c.null}
		}
	}
	return out
}
