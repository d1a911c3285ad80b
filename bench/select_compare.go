package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// cell is one result value as text in PostgreSQL's output format (DuckDB's
// values are printed to match: booleans as t/f).
type cell struct {
	text string
	null bool
}

func (c cell) String() string {
	if c.null {
		return "NULL"
	}
	return c.text
}

// floatTolerance is the relative difference allowed between two numbers:
// sums and averages of doubles depend on the order rows were added in,
// which differs between the engines, and avg over integers or numerics is
// numeric in PostgreSQL but double in DuckDB.
const floatTolerance = 1e-9

// sameCell is exact text equality, or numeric equality within the tolerance.
func sameCell(a, b cell) bool {
	if a.null || b.null {
		return a.null == b.null
	}
	if a.text == b.text {
		return true
	}
	x, errX := strconv.ParseFloat(a.text, 64)
	y, errY := strconv.ParseFloat(b.text, 64)
	if errX != nil || errY != nil {
		return false
	}
	return math.Abs(x-y) <= floatTolerance*math.Max(math.Abs(x), math.Abs(y))
}

// diffRows says how got differs from want, or "" when they agree; rows
// compare in order (every query orders its result totally).
func diffRows(want, got [][]cell) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if len(want[i]) != len(got[i]) {
			return fmt.Sprintf("row %d has %d columns, want %d", i+1, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if !sameCell(want[i][j], got[i][j]) {
				return fmt.Sprintf("row %d column %d is %s, want %s (row %s, want %s)", i+1, j+1,
					got[i][j], want[i][j], rowString(got[i]), rowString(want[i]))
			}
		}
	}
	return ""
}

func rowString(r []cell) string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
