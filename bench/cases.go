package bench

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
)

// Layout is the generated table's partitioning.
type Layout string

// Layouts.
const (
	Unpartitioned Layout = "unpartitioned"
	Partitioned   Layout = "partitioned" // identity(grp), one grp per file
)

// Mode is how a delete is written: the table's format version and
// write.delete.mode.
type Mode string

// Modes.
const (
	CopyOnWrite   Mode = "cow"
	MergeOnReadV2 Mode = "mor-v2"
	MergeOnReadV3 Mode = "mor-v3"
)

func (m Mode) props() map[string]string {
	switch m {
	case MergeOnReadV2:
		return map[string]string{"format-version": "2", "write.delete.mode": "merge-on-read"}
	case MergeOnReadV3:
		return map[string]string{"format-version": "3", "write.delete.mode": "merge-on-read"}
	}
	return map[string]string{"format-version": "2", "write.delete.mode": "copy-on-write"}
}

// Modes lists every mode, in report order.
var allModes = []Mode{CopyOnWrite, MergeOnReadV2, MergeOnReadV3}

// Case names.
const (
	caseScattered = "scattered-1pct"
	caseRange     = "range-10pct"
	casePartition = "partition"
)

// predicate is one delete condition in the three forms the contenders take.
type predicate struct {
	name    string
	sql     string                               // WHERE clause for our DELETE
	filter  iceberg.BooleanExpression            // for iceberg-go's Transaction.Delete
	columns []string                             // what the floor reads to decide
	match   func(cols []arrow.Array, i int) bool // the floor's hand-written test
	model   func(r row) bool                     // the same test on a generated row
}

// predicates are the cases for a layout: 1% of rows scattered over every
// file, 10% of rows in an id range (whole files in the middle, partial files
// at both ends), and, partitioned, one whole partition.
func predicates(l Layout, sh shape) []predicate {
	lo := sh.rows * 305 / 1000
	hi := lo + sh.rows/10
	out := []predicate{
		{
			name:    caseScattered,
			sql:     "k = 7",
			filter:  iceberg.EqualTo(iceberg.Reference(colK), int32(7)),
			columns: []string{colK},
			match: func(c []arrow.Array, i int) bool {
				a := c[0].(*array.Int32)
				return a.IsValid(i) && a.Value(i) == 7
			},
			model: func(r row) bool { return r.k == 7 },
		},
		{
			name:    caseRange,
			sql:     fmt.Sprintf("id >= %d AND id < %d", lo, hi),
			filter:  iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference(colID), lo), iceberg.LessThan(iceberg.Reference(colID), hi)),
			columns: []string{colID},
			match: func(c []arrow.Array, i int) bool {
				v := c[0].(*array.Int64).Value(i)
				return v >= lo && v < hi
			},
			model: func(r row) bool { return r.id >= lo && r.id < hi },
		},
	}
	if l == Partitioned {
		g := int32(min(3, sh.parts-1))
		out = append(out, predicate{
			name:    casePartition,
			sql:     fmt.Sprintf("grp = %d", g),
			filter:  iceberg.EqualTo(iceberg.Reference(colGrp), g),
			columns: []string{colGrp},
			match: func(c []arrow.Array, i int) bool {
				a := c[0].(*array.Int32)
				return a.IsValid(i) && a.Value(i) == g
			},
			model: func(r row) bool { return r.grp == g },
		})
	}
	return out
}
