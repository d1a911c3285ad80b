package lake

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// PartitionField is one PARTITIONED BY entry: a transform of a source column.
type PartitionField struct {
	Source    string            // source column name
	Transform iceberg.Transform // identity, year, month, day, hour, bucket[n], truncate[w], void
	Name      string            // partition field name; empty picks Java's default (e.g. ts_day)
}

// TableSpec describes a new table's partitioning.
type TableSpec struct {
	Fields []PartitionField
}

// propFormatVersion is the table property that selects the format version.
const propFormatVersion = table.PropertyFormatVersion

const (
	defaultFormatVersion = 2
	maxFormatVersion     = 3
)

// PropRowGroupLimit caps the rows of one Parquet row group a write puts in
// a data file (Iceberg's write.parquet.row-group-limit).
const PropRowGroupLimit = table.ParquetRowGroupLimitKey

// DefaultRowGroupRows is the row-group limit of the tables CreateTable
// makes, unless their properties set one. iceberg-go's own default (1Mi
// rows) leaves a data file of a few hundred thousand rows a single row
// group, so a filter that file statistics keep the file for decodes all of
// it. With 64Ki-row groups a selective filter decodes one group of several
// (row-group pruning, rowgroups.go): bench select's point lookup on 10M rows
// in 40 files went from 116 ms to 21 ms (128Ki: 37 ms), while full scans
// measured the same within noise and the files no larger (a column chunk
// of 64Ki values still compresses as well). It is recorded as a table
// property, so other engines writing to the table lay out files alike.
const DefaultRowGroupRows = 64 << 10

// PropPageSizeBytes and PropPageRowLimit size the data pages of a data
// file: a page ends once its values pass the bytes, checked every
// page-row-limit values (arrow-go's write batch), so a column of 8-byte
// values gets pages of page-row-limit rows. PropDictSizeBytes caps a
// column chunk's dictionary: past it the column's later pages are plain.
const (
	PropPageSizeBytes = table.ParquetPageSizeBytesKey
	PropPageRowLimit  = table.ParquetPageRowLimitKey
	PropDictSizeBytes = table.ParquetDictSizeBytesKey
)

// DefaultPageBytes, DefaultPageRows and DefaultDictBytes are the page
// layout of the tables CreateTable makes, unless their properties set one:
// pages of about 8Ki rows, eight to a 64Ki-row row group, so a point lookup
// decodes a page of each column (lake.Scan's page pruning, pages.go)
// instead of the whole row group; and dictionaries of at most one page,
// since any page of a dictionary-encoded column needs its chunk's whole
// dictionary, which for a column of distinct values (ids, amounts, times)
// is as big as its data. iceberg-go's defaults (1 MiB pages, 20,000-row
// write batches, 2 MiB dictionaries) make each column chunk one page and
// keep such dictionaries. bench select at 10M rows: the point lookup
// 15-17 ms -> 8.8 ms, as at 1M rows (8.6 ms); full scans the same within
// the machine's noise (±15%), the bytes they read -1% to +6%.
const (
	DefaultPageBytes = 64 << 10
	DefaultPageRows  = 8 << 10
	DefaultDictBytes = 64 << 10
)

// CreateTable creates ident with schema sc, partitioned by spec. props may
// hold format-version (default 2), write.parquet.row-group-limit (default
// DefaultRowGroupRows) and the page layout (DefaultPageBytes,
// DefaultPageRows). Field IDs of the result come from the
// catalog, not from sc: always read them from the returned table.
func (t *Tables) CreateTable(ctx context.Context, ident table.Identifier, sc *iceberg.Schema,
	spec TableSpec, props map[string]string,
) (*table.Table, error) {
	what := "create table " + IdentKey(ident)
	if err := checkIdent("table", ident); err != nil {
		return nil, err
	}
	// Before the catalog writes the first metadata file, which may already
	// go to write.metadata.path.
	if err := checkLocations(props, t.roots); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	opts, err := t.createLocation(ctx, ident, props)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pspec, err := buildPartitionSpec(sc, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	// Defaults as the metadata file keeps them (see SpecSchema).
	if sc, err = SpecSchema(sc); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	tprops := iceberg.Properties{}
	maps.Copy(tprops, props)
	if v, ok := tprops[propFormatVersion]; ok {
		if _, err := parseFormatVersion(v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	} else {
		tprops[propFormatVersion] = strconv.Itoa(defaultFormatVersion)
	}
	for key, def := range map[string]int{
		PropRowGroupLimit: DefaultRowGroupRows,
		PropPageSizeBytes: DefaultPageBytes,
		PropPageRowLimit:  DefaultPageRows,
		PropDictSizeBytes: DefaultDictBytes,
	} {
		if _, ok := tprops[key]; !ok {
			tprops[key] = strconv.Itoa(def)
		}
	}
	opts = append(opts, catalog.WithPartitionSpec(&pspec), catalog.WithProperties(tprops))
	tbl, err := t.wh.cat.CreateTable(ctx, ident, sc, opts...)
	if err != nil {
		if ne := refusedName(err, "table", ident[len(ident)-1]); ne != nil {
			return nil, ne
		}
		return nil, mapCatalogErr(what, err)
	}
	return tbl, nil
}

// createLocation is where a SQL catalog's new table goes, unless its
// properties say: as iceberg-go would put it, <warehouse>/<schema>.db/<table>
// (or under the schema's location), but with the names as path segments
// that unescape to themselves, so that no name reaches another directory.
// A REST catalog's server chooses.
func (t *Tables) createLocation(ctx context.Context, ident table.Identifier, props map[string]string) ([]catalog.CreateTableOpt, error) {
	if t.wh.sqlWarehouse == "" || props["location"] != "" || len(ident) != 2 {
		return nil, nil
	}
	nsProps, err := t.wh.cat.LoadNamespaceProperties(ctx, namespaceIdent(ident[0]))
	if err != nil {
		return nil, mapCatalogErr("schema "+ident[0], err)
	}
	nsLoc := nsProps.Get("location", "")
	loc := tableLocation(t.wh.sqlWarehouse, nsLoc, ident[0], ident[1])
	root := t.wh.sqlWarehouse
	if nsLoc != "" {
		root = nsLoc
	}
	if !unescapedUnder(loc, root) { // pathSegment makes this impossible; checked all the same
		return nil, &NameError{Kind: "table", Name: ident[1], Why: "would place the table outside the warehouse"}
	}
	return []catalog.CreateTableOpt{catalog.WithLocation(loc)}, nil
}

func parseFormatVersion(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxFormatVersion {
		return 0, fmt.Errorf("%w: %s=%q must be 1, 2 or 3", ErrInvalidProperty, propFormatVersion, v)
	}
	return n, nil
}

// buildPartitionSpec validates each transform against its source type, so a
// bad PARTITIONED BY fails with ErrInvalidTransform rather than at first write.
func buildPartitionSpec(sc *iceberg.Schema, spec TableSpec) (iceberg.PartitionSpec, error) {
	if len(spec.Fields) == 0 {
		return *iceberg.UnpartitionedSpec, nil
	}
	opts := make([]iceberg.PartitionOption, 0, len(spec.Fields))
	var decimalKey iceberg.Type
	for _, f := range spec.Fields {
		src, ok := sc.FindFieldByName(f.Source)
		if !ok {
			return iceberg.PartitionSpec{}, fmt.Errorf("%w: partition source column %q does not exist", ErrInvalidTransform, f.Source)
		}
		if err := checkTransform(src, f.Transform); err != nil {
			return iceberg.PartitionSpec{}, err
		}
		// iceberg-go names every decimal partition value's Avro type "fixed",
		// so a second decimal key makes every manifest write fail
		// ("conflicting definitions", or "invalid fixed name" for equal
		// types): refuse it here rather than at the first INSERT.
		if rt, ok := f.Transform.ResultType(src.Type).(iceberg.DecimalType); ok {
			if decimalKey != nil {
				return iceberg.PartitionSpec{}, fmt.Errorf("%w: a second decimal partition key (%s on %s, after %s): at most one partition key may be a decimal",
					ErrUnsupportedSpec, rt, f.Source, decimalKey)
			}
			decimalKey = rt
		}
		name := f.Name
		if name == "" {
			name = defaultPartitionName(f.Source, f.Transform)
		}
		opts = append(opts, iceberg.AddPartitionFieldByName(f.Source, name, f.Transform, sc, nil))
	}
	ps, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return iceberg.PartitionSpec{}, fmt.Errorf("%w: %v", ErrInvalidTransform, err)
	}
	return ps, nil
}

func checkTransform(src iceberg.NestedField, t iceberg.Transform) error {
	if t == nil {
		return fmt.Errorf("%w: no transform for column %s", ErrInvalidTransform, src.Name)
	}
	if _, unknown := t.(iceberg.UnknownTransform); unknown {
		return fmt.Errorf("%w: unknown transform %s", ErrInvalidTransform, t)
	}
	if _, nested := src.Type.(iceberg.NestedType); nested {
		return fmt.Errorf("%w: cannot partition by nested column %s of type %s", ErrInvalidTransform, src.Name, src.Type)
	}
	if !t.CanTransform(src.Type) {
		return fmt.Errorf("%w: %s cannot be applied to column %s of type %s", ErrInvalidTransform, t, src.Name, src.Type)
	}
	return nil
}

// defaultPartitionName follows Java's PartitionSpec.Builder naming.
func defaultPartitionName(src string, t iceberg.Transform) string {
	switch t.(type) {
	case iceberg.IdentityTransform:
		return src
	case iceberg.BucketTransform:
		return src + "_bucket"
	case iceberg.TruncateTransform:
		return src + "_trunc"
	case iceberg.YearTransform:
		return src + "_year"
	case iceberg.MonthTransform:
		return src + "_month"
	case iceberg.DayTransform:
		return src + "_day"
	case iceberg.HourTransform:
		return src + "_hour"
	case iceberg.VoidTransform:
		return src + "_null"
	}
	return src + "_" + t.String()
}
