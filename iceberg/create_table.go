package iceberg

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// PartitionField is one PARTITIONED BY entry: a transform of a source column.
type PartitionField struct {
	Source    string        // source column name
	Transform ice.Transform // identity, year, month, day, hour, bucket[n], truncate[w], void
	Name      string        // partition field name; empty picks Java's default (e.g. ts_day)
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

// CreateTable creates ident with schema sc, partitioned by spec. props may
// hold format-version (default 2) and write.parquet.row-group-limit (default
// DefaultRowGroupRows). Field IDs of the result come from the
// catalog, not from sc: always read them from the returned table.
func (w *Warehouse) CreateTable(ctx context.Context, ident table.Identifier, sc *ice.Schema,
	spec TableSpec, props map[string]string,
) (*table.Table, error) {
	what := "create table " + identString(ident)
	// Before the catalog writes the first metadata file, which may already
	// go to write.metadata.path.
	if err := checkLocations(props, w.roots); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pspec, err := buildPartitionSpec(sc, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	tprops := ice.Properties{}
	maps.Copy(tprops, props)
	if v, ok := tprops[propFormatVersion]; ok {
		if _, err := parseFormatVersion(v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	} else {
		tprops[propFormatVersion] = strconv.Itoa(defaultFormatVersion)
	}
	if _, ok := tprops[PropRowGroupLimit]; !ok {
		tprops[PropRowGroupLimit] = strconv.Itoa(DefaultRowGroupRows)
	}
	tbl, err := w.cat.CreateTable(ctx, ident, sc,
		catalog.WithPartitionSpec(&pspec), catalog.WithProperties(tprops))
	if err != nil {
		return nil, mapCatalogErr(what, err)
	}
	return tbl, nil
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
func buildPartitionSpec(sc *ice.Schema, spec TableSpec) (ice.PartitionSpec, error) {
	if len(spec.Fields) == 0 {
		return *ice.UnpartitionedSpec, nil
	}
	opts := make([]ice.PartitionOption, 0, len(spec.Fields))
	var decimalKey ice.Type
	for _, f := range spec.Fields {
		src, ok := sc.FindFieldByName(f.Source)
		if !ok {
			return ice.PartitionSpec{}, fmt.Errorf("%w: partition source column %q does not exist", ErrInvalidTransform, f.Source)
		}
		if err := checkTransform(src, f.Transform); err != nil {
			return ice.PartitionSpec{}, err
		}
		// iceberg-go names every decimal partition value's Avro type "fixed",
		// so a second decimal key makes every manifest write fail
		// ("conflicting definitions", or "invalid fixed name" for equal
		// types): refuse it here rather than at the first INSERT.
		if rt, ok := f.Transform.ResultType(src.Type).(ice.DecimalType); ok {
			if decimalKey != nil {
				return ice.PartitionSpec{}, fmt.Errorf("%w: a second decimal partition key (%s on %s, after %s): at most one partition key may be a decimal",
					ErrUnsupportedSpec, rt, f.Source, decimalKey)
			}
			decimalKey = rt
		}
		name := f.Name
		if name == "" {
			name = defaultPartitionName(f.Source, f.Transform)
		}
		opts = append(opts, ice.AddPartitionFieldByName(f.Source, name, f.Transform, sc, nil))
	}
	ps, err := ice.NewPartitionSpecOpts(opts...)
	if err != nil {
		return ice.PartitionSpec{}, fmt.Errorf("%w: %v", ErrInvalidTransform, err)
	}
	return ps, nil
}

func checkTransform(src ice.NestedField, t ice.Transform) error {
	if t == nil {
		return fmt.Errorf("%w: no transform for column %s", ErrInvalidTransform, src.Name)
	}
	if _, unknown := t.(ice.UnknownTransform); unknown {
		return fmt.Errorf("%w: unknown transform %s", ErrInvalidTransform, t)
	}
	if _, nested := src.Type.(ice.NestedType); nested {
		return fmt.Errorf("%w: cannot partition by nested column %s of type %s", ErrInvalidTransform, src.Name, src.Type)
	}
	if !t.CanTransform(src.Type) {
		return fmt.Errorf("%w: %s cannot be applied to column %s of type %s", ErrInvalidTransform, t, src.Name, src.Type)
	}
	return nil
}

// defaultPartitionName follows Java's PartitionSpec.Builder naming.
func defaultPartitionName(src string, t ice.Transform) string {
	switch t.(type) {
	case ice.IdentityTransform:
		return src
	case ice.BucketTransform:
		return src + "_bucket"
	case ice.TruncateTransform:
		return src + "_trunc"
	case ice.YearTransform:
		return src + "_year"
	case ice.MonthTransform:
		return src + "_month"
	case ice.DayTransform:
		return src + "_day"
	case ice.HourTransform:
		return src + "_hour"
	case ice.VoidTransform:
		return src + "_null"
	}
	return src + "_" + t.String()
}
