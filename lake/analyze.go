package lake

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/theta"
)

// AnalyzeOptions are what ANALYZE reads.
type AnalyzeOptions struct {
	// Ref is the branch or tag whose snapshot is analyzed; "" is main.
	Ref string
	// Columns are the columns sketched, by name; nil is every column.
	// Columns of a type that cannot be sketched are passed over: nested
	// ones, and those whose values Scan does not return as they are stored
	// (fixed, nanosecond timestamps).
	Columns []string
}

// AnalyzeOutcome is what ANALYZE computed and committed.
type AnalyzeOutcome struct {
	SnapshotID int64 // 0: the table has no snapshot, nothing analyzed
	Rows       int64 // live rows read
	Columns    []ColumnNDV
	Path       string // the statistics file written
}

// ColumnNDV is a column's estimated number of distinct non-null values.
type ColumnNDV struct {
	Name    string
	FieldID int
	NDV     int64
}

// Analyze computes a Theta sketch of the distinct non-null values of each
// column of ident's snapshot (main's, or opts.Ref's), writes them as one
// Puffin statistics file (blob type apache-datasketches-theta-v1, property
// ndv) and commits it to the table's metadata for that snapshot, replacing
// the statistics file it had: the table's statistics as Iceberg's spec
// has them, which Spark and Trino read. No snapshot is created.
func (m *Maintenance) Analyze(ctx context.Context, ident table.Identifier, opts AnalyzeOptions) (AnalyzeOutcome, error) {
	what := "analyze " + IdentKey(ident)
	_, unhold := m.commits.writes.Hold(ident, time.Now())
	defer unhold()
	tbl, err := m.wh.LoadTable(ctx, ident)
	if err != nil {
		return AnalyzeOutcome{}, err
	}
	snap, err := analyzedSnapshot(tbl, opts)
	if err != nil || snap == nil {
		return AnalyzeOutcome{}, wrapWhat(what, err)
	}
	cols, err := sketchedColumns(SchemaForSnapshot(tbl, &snap.SnapshotID), opts.Columns)
	if err != nil {
		return AnalyzeOutcome{}, wrapWhat(what, err)
	}
	out := AnalyzeOutcome{SnapshotID: snap.SnapshotID}
	if len(cols) == 0 {
		return out, nil
	}
	sketches, err := sketchColumns(ctx, tbl, snap.SnapshotID, cols, &out.Rows)
	if err != nil {
		return out, wrapWhat(what, err)
	}
	kept := keptBlobs(ctx, tbl, snap.SnapshotID, cols)
	sf, err := writeStatisticsFile(ctx, tbl, *snap, cols, sketches, kept)
	if err != nil {
		return out, wrapWhat(what, err)
	}
	out.Path = sf.StatisticsPath
	for i, c := range cols {
		out.Columns = append(out.Columns, ColumnNDV{Name: c.field.Name, FieldID: c.field.ID, NDV: ndvOf(sketches[i])})
	}
	if err := m.commitStatistics(ctx, ident, sf, true); err != nil {
		return out, wrapWhat(what, err)
	}
	return out, nil
}

func wrapWhat(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// analyzedSnapshot is the snapshot opts names (by ref, else main's); nil
// for a table (or branch) without one.
func analyzedSnapshot(tbl *table.Table, opts AnalyzeOptions) (*table.Snapshot, error) {
	if opts.Ref == "" {
		return tbl.CurrentSnapshot(), nil
	}
	r, ok := FindRef(tbl.Metadata(), opts.Ref)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoSuchRef, opts.Ref)
	}
	return tbl.Metadata().SnapshotByID(r.SnapshotID), nil
}

// sketchedColumn is a column ANALYZE sketches and how its values become
// bytes.
type sketchedColumn struct {
	field iceberg.NestedField
	value singleValue
}

// sketchedColumns are the columns of sc named (nil: every one that can be
// sketched, in table order).
func sketchedColumns(sc *iceberg.Schema, names []string) ([]sketchedColumn, error) {
	var out []sketchedColumn
	if names == nil {
		for _, f := range sc.Fields() {
			if v, ok := singleValueOf(f.Type); ok {
				out = append(out, sketchedColumn{field: f, value: v})
			}
		}
		return out, nil
	}
	for _, n := range names {
		f, ok := sc.FindFieldByName(n)
		if !ok || slices.IndexFunc(sc.Fields(), func(g iceberg.NestedField) bool { return g.ID == f.ID }) < 0 {
			return nil, fmt.Errorf("%w: %q", ErrNoSuchColumn, n)
		}
		v, ok := singleValueOf(f.Type)
		if ok && !slices.ContainsFunc(out, func(c sketchedColumn) bool { return c.field.ID == f.ID }) {
			out = append(out, sketchedColumn{field: f, value: v})
		}
	}
	return out, nil
}

// sketchColumns reads the live rows of snapshot snapID of tbl and feeds
// each column's non-null values to its sketch; rows counts them.
func sketchColumns(ctx context.Context, tbl *table.Table, snapID int64, cols []sketchedColumn, rows *int64) ([]*theta.Sketch, error) {
	sketches := make([]*theta.Sketch, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		s, err := theta.New(theta.DefaultLgK)
		if err != nil {
			return nil, err
		}
		sketches[i], names[i] = s, c.field.Name
	}
	_, batches, err := Scan(ctx, tbl, ScanOptions{Columns: names, SnapshotID: &snapID})
	if err != nil {
		return nil, err
	}
	var buf []byte
	for b, err := range batches {
		if err != nil {
			return nil, err
		}
		*rows += b.NumRows()
		for i, c := range cols {
			arr := b.Column(i)
			for r := range arr.Len() {
				if arr.IsNull(r) {
					continue
				}
				buf = c.value(buf[:0], arr, r)
				sketches[i].Update(buf)
			}
		}
		b.Release()
	}
	return sketches, nil
}

// ndvOf is a sketch's estimate as Iceberg's writers record it in the
// blob's ndv property: the estimate truncated to a whole number.
func ndvOf(s *theta.Sketch) int64 { return int64(math.Trunc(s.Estimate())) }

// ndvProperty is the blob property holding the estimate (the spec's).
const ndvProperty = "ndv"

func formatNDV(n int64) string { return strconv.FormatInt(n, 10) }
