package lake

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// A data file written before a column was added lacks it, and iceberg-go's
// reader fills the column with its initial-default (or NULL) — but only
// while it reads some other column of the file: asked for columns a file
// has none of, arrow-go fails ("no leaf column readers matched col
// indices"). So a scan also reads an anchor, a column the file has, which
// the scan's output leaves out. Writers write every column of the schema
// they write with, so a column of every schema the table had is in every
// data file; when no column of the scan's schema is, the data files say
// which columns they hold (anchorFiles).

// anchorColumns is read, the columns a scan of sc reads, with an anchor
// added unless one of them is in every schema of meta. perFile reports
// that sc has no such column: the scan's data files must be looked at.
func anchorColumns(meta table.Metadata, sc *iceberg.Schema, read []string) (out []string, perFile bool) {
	schemas := meta.Schemas()
	for _, name := range read {
		if f, ok := sc.FindFieldByName(name); ok && inEvery(schemas, f.ID) {
			return read, false
		}
	}
	var best *iceberg.NestedField
	for _, f := range sc.Fields() {
		if inEvery(schemas, f.ID) && (best == nil || cheaper(f, *best)) {
			best = &f
		}
	}
	if best == nil {
		return read, true
	}
	return append(slices.Clip(read), best.Name), false
}

func inEvery(schemas []*iceberg.Schema, id int) bool {
	for _, sc := range schemas {
		if _, ok := sc.FindFieldByID(id); !ok {
			return false
		}
	}
	return true
}

// cheaper orders anchor candidates: narrow values first, then field id.
func cheaper(a, b iceberg.NestedField) bool {
	return cmp.Or(cmp.Compare(valueWidth(a.Type), valueWidth(b.Type)), cmp.Compare(a.ID, b.ID)) < 0
}

// valueWidth ranks a type by the bytes a value of it takes to decode.
func valueWidth(t iceberg.Type) int {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return 1
	case iceberg.Int32Type, iceberg.Float32Type, iceberg.DateType:
		return 4
	case iceberg.Int64Type, iceberg.Float64Type, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
		iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return 8
	case iceberg.DecimalType:
		if t.Precision() <= 18 {
			return 8
		}
		return 16
	case iceberg.UUIDType, iceberg.FixedType:
		return 16
	case iceberg.PrimitiveType:
		return 32 // strings, binary: variable
	}
	return 64 // nested
}

// anchorFiles makes sure a scan of snapshot snapID of tbl reading read
// reads a column of each data file of tasks: for a file that has none of
// them it adds one the file has, the cheapest, preferring the scan
// schema's columns. A column since dropped is read under a name no column
// can have, as an extra field of the scan's schema sc (the table and the
// schema returned).
func anchorFiles(ctx context.Context, tbl *table.Table, sc *iceberg.Schema, read []string, tasks []table.FileScanTask) (*table.Table, *iceberg.Schema, []string, error) {
	have := map[int]bool{}
	for _, name := range read {
		if f, ok := sc.FindFieldByName(name); ok {
			have[f.ID] = true
		}
	}
	candidates := topLevelFields(tbl.Metadata().Schemas())
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, nil, nil, err
	}
	var extra []iceberg.NestedField
	out := slices.Clip(read)
	seen := map[string]bool{}
	for _, task := range tasks {
		df := task.File
		if seen[df.FilePath()] {
			continue
		}
		seen[df.FilePath()] = true
		ids, err := fileFieldIDs(fs, df)
		if err != nil {
			return nil, nil, nil, err
		}
		if slices.ContainsFunc(candidates, func(f iceberg.NestedField) bool { return have[f.ID] && holds(ids, f) }) {
			continue
		}
		anchor, ok := pickAnchor(candidates, sc, ids)
		if !ok {
			return nil, nil, nil, fmt.Errorf("data file %s holds none of the table's columns", df.FilePath())
		}
		have[anchor.ID] = true
		if cur, ok := sc.FindFieldByID(anchor.ID); ok {
			out = append(out, cur.Name)
			continue
		}
		anchor.Name = droppedName(anchor.ID)
		anchor.Required, anchor.InitialDefault, anchor.WriteDefault = false, nil, nil
		extra = append(extra, anchor)
		out = append(out, anchor.Name)
	}
	if len(extra) > 0 {
		tbl = scanTable(tbl, extra)
		sc = iceberg.NewSchemaWithIdentifiers(sc.ID, sc.IdentifierFieldIDs, append(sc.Fields(), extra...)...)
	}
	return tbl, sc, out, nil
}

// droppedName is what the scan calls a dropped column it reads as an
// anchor: NUL is in no SQL identifier.
func droppedName(id int) string { return "\x00" + strconv.Itoa(id) }

// pickAnchor is the cheapest field a file with field ids ids holds: one
// of sc if it has any, else one of another schema.
func pickAnchor(candidates []iceberg.NestedField, sc *iceberg.Schema, ids map[int]bool) (iceberg.NestedField, bool) {
	var best *iceberg.NestedField
	bestCurrent := false
	for _, f := range candidates {
		if !holds(ids, f) {
			continue
		}
		_, current := sc.FindFieldByID(f.ID)
		if best == nil || current && !bestCurrent || current == bestCurrent && cheaper(f, *best) {
			best, bestCurrent = &f, current
		}
	}
	if best == nil {
		return iceberg.NestedField{}, false
	}
	return *best, true
}

// topLevelFields is every top-level field the schemas have, each as the
// latest schema has it, by field id.
func topLevelFields(schemas []*iceberg.Schema) []iceberg.NestedField {
	byID := map[int]iceberg.NestedField{}
	for _, sc := range schemas {
		for _, f := range sc.Fields() {
			byID[f.ID] = f
		}
	}
	out := make([]iceberg.NestedField, 0, len(byID))
	for _, f := range byID {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b iceberg.NestedField) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// holds reports whether a file with field ids ids has column f (or, for a
// nested one, a column under it).
func holds(ids map[int]bool, f iceberg.NestedField) bool {
	if ids[f.ID] {
		return true
	}
	if nt, ok := f.Type.(iceberg.NestedType); ok {
		return slices.ContainsFunc(nt.Fields(), func(c iceberg.NestedField) bool { return holds(ids, c) })
	}
	return false
}

// fileFieldIDs is the field ids of the columns data file df has, from its
// manifest entry's column metrics, else (a writer that kept none) from
// its Parquet footer.
func fileFieldIDs(fs iceio.IO, df iceberg.DataFile) (map[int]bool, error) {
	ids := map[int]bool{}
	for _, m := range []map[int]int64{df.ValueCounts(), df.NullValueCounts(), df.ColumnSizes()} {
		for id := range m {
			ids[id] = true
		}
	}
	if len(ids) > 0 || df.FileFormat() != iceberg.ParquetFile {
		return ids, nil
	}
	md, err := readFooter(fs, df.FilePath(), df.FileSizeBytes())
	if err != nil {
		return nil, err
	}
	var walk func(n schema.Node)
	walk = func(n schema.Node) {
		if id := n.FieldID(); id >= 0 {
			ids[int(id)] = true
		}
		if g, ok := n.(*schema.GroupNode); ok {
			for i := range g.NumFields() {
				walk(g.Field(i))
			}
		}
	}
	walk(md.Schema.Root())
	return ids, nil
}
