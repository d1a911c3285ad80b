package lake

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// dataWriter writes the batches of one append as data files of a table with
// magmalake's Parquet writer (ParquetLayout: decimals stored as integers,
// the columns encoded in parallel), in place of iceberg-go's
// table.WriteRecords, which takes its writer properties from the table
// alone. The files are the ones iceberg-go would write: rolled at the
// table's write.target-file-size-bytes, one open file per partition tuple
// (a fan-out), named {partition:05d}-{task}-{write uuid}-{count:05d}.parquet
// under data/{partition path}, with the partition values and statistics
// iceberg-go gives them (table.DataFileFromMetadata).
type dataWriter struct {
	tbl     *table.Table
	fs      iceio.WriteFileIO
	sc      *iceberg.Schema // the file schema
	file    *arrow.Schema   // its Arrow schema, in sc's order, with field ids
	order   []int           // file column i is batch column order[i]
	layout  ParquetLayout
	writeID uuid.UUID
	parts   *partitionPlan // nil: unpartitioned

	writers map[string]*partitionWriter
	open    []*partitionWriter
	tasks   int
	created []string // every file created, for a failed write's cleanup
	files   []iceberg.DataFile
}

// Dictionary switches iceberg-go's writer honours (its internal names).
const (
	propDictEnabled      = "parquet.enable.dictionary"
	propDictColumnPrefix = "write.parquet.dict-encoding-enabled.column"
)

// partitionWriter is the open file of one partition tuple.
type partitionWriter struct {
	id     int
	values map[int]any // by partition field id, as iceberg-go's fan-out gives them
	loc    table.LocationProvider
	count  int // files opened so far
	file   *ParquetFile
	path   string
}

// newDataWriter is the writer for batches of target (columns of sc) into
// tbl, or false where iceberg-go's writer must write them: a format other
// than Parquet, a table property ParquetLayout does not honour (bloom
// filters, dictionary switches, page version, row-group bytes: tables made
// by other engines), a sort order (iceberg-go sorts each batch), a column name
// Parquet needs sanitized, nested, variant or geospatial columns, batches
// lacking a column of sc (iceberg-go fills in its write default), or a
// partition field this cannot evaluate (see newPartitionPlan).
func newDataWriter(ctx context.Context, tbl *table.Table, sc *iceberg.Schema, target *arrow.Schema, writeID uuid.UUID) (*dataWriter, bool, error) {
	props := tbl.Properties()
	if !strings.EqualFold(props.Get(table.WriteFormatDefaultKey, table.WriteFormatDefaultDefault), "parquet") ||
		!tbl.SortOrder().IsUnsorted() {
		return nil, false, nil
	}
	for k := range props {
		if k == table.ParquetRowGroupSizeBytesKey || k == table.ParquetPageVersionKey || k == table.ParquetBloomFilterMaxBytesKey ||
			k == propDictEnabled || strings.HasPrefix(k, table.ParquetBloomFilterColumnEnabledKeyPrefix) ||
			strings.HasPrefix(k, propDictColumnPrefix) {
			return nil, false, nil
		}
	}
	if sanitized, err := iceberg.SanitizeColumnNames(sc); err != nil || !sanitized.Equals(sc) {
		return nil, false, nil
	}
	for _, f := range sc.Fields() {
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return nil, false, nil
		}
		switch f.Type.(type) {
		case iceberg.VariantType, iceberg.GeometryType, iceberg.GeographyType, iceberg.UnknownType:
			return nil, false, nil
		}
	}
	full, err := table.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		return nil, false, err
	}
	if full.NumFields() != target.NumFields() || !flatSchema(full) {
		return nil, false, nil
	}
	order := make([]int, full.NumFields())
	for i, f := range full.Fields() {
		idx := target.FieldIndices(f.Name)
		if len(idx) != 1 || !arrow.TypeEqual(target.Field(idx[0]).Type, f.Type) {
			return nil, false, nil
		}
		order[i] = idx[0]
	}
	parts, ok := newPartitionPlan(tbl, sc, full)
	if !ok {
		return nil, false, nil
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("table io: %w", err)
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return nil, false, fmt.Errorf("table io %T cannot write files", fs)
	}
	target64 := int64(props.GetInt(table.WriteTargetFileSizeBytesKey, table.WriteTargetFileSizeBytesDefault))
	return &dataWriter{
		tbl: tbl, fs: wfs, sc: sc, file: full, order: order,
		layout:  ParquetLayout{Props: props, Limit: target64},
		writeID: writeID, parts: parts, writers: map[string]*partitionWriter{},
	}, true, nil
}

// writeAll writes input's batches and finishes the files; after an error
// it closes the open files and leaves their removal to the caller.
func (w *dataWriter) writeAll(ctx context.Context, input iter.Seq2[arrow.RecordBatch, error]) error {
	for rec, err := range input {
		if err == nil {
			err = w.write(ctx, rec)
		}
		if err != nil {
			w.abort()
			return err
		}
	}
	if err := w.finish(); err != nil {
		w.abort()
		return err
	}
	return nil
}

// write writes one batch (consuming it), each partition's rows to that
// partition's file, closing a file once it reaches the target size.
func (w *dataWriter) write(ctx context.Context, rec arrow.RecordBatch) error {
	rec = w.reorder(rec)
	defer rec.Release()
	if rec.NumRows() == 0 {
		return nil
	}
	if w.parts == nil {
		pw, err := w.writer("", nil)
		if err != nil {
			return err
		}
		rec.Retain()
		return w.writeTo(ctx, pw, rec)
	}
	groups, err := w.parts.groups(rec)
	if err != nil {
		return err
	}
	for _, g := range groups {
		pw, err := w.writer(g.key, func() (map[int]any, string) { return w.parts.values(rec, int(g.rows[0])) })
		if err != nil {
			return err
		}
		var part arrow.RecordBatch
		if len(groups) == 1 {
			rec.Retain()
			part = rec
		} else if part, err = takeRows(ctx, rec, g.rows); err != nil {
			return err
		}
		if err := w.writeTo(ctx, pw, part); err != nil {
			return err
		}
	}
	return nil
}

// reorder puts rec's columns in the file's order under its schema.
func (w *dataWriter) reorder(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, len(w.order))
	for i, j := range w.order {
		cols[i] = rec.Column(j)
	}
	out := array.NewRecordBatch(w.file, cols, rec.NumRows())
	rec.Release()
	return out
}

// writer is the partition's writer, made on its first rows; describe gives
// a new partition's values and path.
func (w *dataWriter) writer(key string, describe func() (map[int]any, string)) (*partitionWriter, error) {
	if pw, ok := w.writers[key]; ok {
		return pw, nil
	}
	pw := &partitionWriter{id: len(w.writers)}
	var path string
	if describe != nil {
		pw.values, path = describe()
	}
	loc, err := w.locationFor(path)
	if err != nil {
		return nil, err
	}
	pw.loc = loc
	w.writers[key] = pw
	return pw, nil
}

// locationFor is where iceberg-go's writer puts a partition's files: the
// table's location provider, or for a partition path one whose data path
// is {table location}/data/{partition path}.
func (w *dataWriter) locationFor(partitionPath string) (table.LocationProvider, error) {
	props := w.tbl.Properties()
	if partitionPath != "" {
		root, err := url.Parse(w.tbl.Location())
		if err != nil {
			return nil, err
		}
		props = maps.Clone(props)
		if props == nil {
			props = iceberg.Properties{}
		}
		props[table.WriteDataPathKey] = root.JoinPath("data", partitionPath).String()
	}
	return table.LoadLocationProvider(w.tbl.Location(), props)
}

// writeTo writes part (consumed) to pw's open file, opening one if needed,
// and closes the file once it is full.
func (w *dataWriter) writeTo(ctx context.Context, pw *partitionWriter, part arrow.RecordBatch) error {
	if pw.file == nil {
		pw.count++
		name := fmt.Sprintf("%05d-%d-%s-%05d.parquet", pw.id, w.tasks, w.writeID, pw.count)
		w.tasks++
		pw.path = pw.loc.NewDataLocation(name)
		w.created = append(w.created, pw.path)
		buffer := fileBuffer
		if w.parts != nil {
			buffer = fanoutBuffer
		}
		f, err := createParquetFile(ctx, w.fs, pw.path, w.file, w.layout, buffer)
		if err != nil {
			part.Release()
			return err
		}
		pw.file = f
		w.open = append(w.open, pw)
	}
	if err := pw.file.Write(part); err != nil {
		return err
	}
	if pw.file.Full() {
		return w.closeFile(pw)
	}
	return nil
}

// closeFile finishes pw's file and describes it.
func (w *dataWriter) closeFile(pw *partitionWriter) error {
	f := pw.file
	pw.file = nil
	for i, o := range w.open {
		if o == pw {
			w.open = append(w.open[:i], w.open[i+1:]...)
			break
		}
	}
	md, size, err := f.Close()
	if err != nil {
		return err
	}
	df, err := table.DataFileFromMetadata(table.DataFileArgs{
		Schema: w.sc, Spec: w.tbl.Spec(), Format: iceberg.ParquetFile,
		Metadata: md, FilePath: pw.path, FileSize: size, Content: iceberg.EntryContentData,
		PartitionValues: pw.values, Properties: w.tbl.Properties(),
		FormatVersion: w.tbl.Metadata().Version(),
	})
	if err != nil {
		return fmt.Errorf("describe %s: %w", pw.path, err)
	}
	w.files = append(w.files, df)
	return nil
}

// finish closes every open file, in the order they were opened.
func (w *dataWriter) finish() error {
	for len(w.open) > 0 {
		if err := w.closeFile(w.open[0]); err != nil {
			return err
		}
	}
	return nil
}

// abort closes the open files after a failure (the caller removes them).
func (w *dataWriter) abort() {
	for _, pw := range w.open {
		pw.file.Abort()
	}
	w.open = nil
}

// partitionPlan evaluates a table's partition spec on the rows of a write.
type partitionPlan struct {
	fields []iceberg.PartitionField // the spec's, in order
	ids    []int                    // partition field ids
	cols   []int                    // per field: its source column in the file schema
	types  []iceberg.Type           // per field: its source type
	result []iceberg.Type           // per field: its result type
	names  []string                 // per field: its name escaped for the path
}

// newPartitionPlan is nil for an unpartitioned table, and false for a spec
// this cannot evaluate as iceberg-go's writer does, which then writes:
// a multi-argument transform, a source that is not a top-level column, or
// a source type outside those ArrowLiteral gives iceberg-go's values for.
func newPartitionPlan(tbl *table.Table, sc *iceberg.Schema, file *arrow.Schema) (*partitionPlan, bool) {
	spec := tbl.Spec()
	if spec.IsUnpartitioned() {
		return nil, true
	}
	ptype := spec.PartitionType(sc)
	if len(ptype.FieldList) != spec.NumFields() {
		return nil, false
	}
	p := &partitionPlan{}
	for i, f := range spec.Fields() {
		if len(f.SourceIDs) > 1 || ptype.FieldList[i].ID != f.FieldID {
			return nil, false
		}
		src, ok := sc.FindFieldByID(f.SourceID())
		if !ok {
			return nil, false
		}
		switch src.Type.(type) {
		case iceberg.Int32Type, iceberg.Int64Type, iceberg.StringType, iceberg.DateType, iceberg.TimeType,
			iceberg.TimestampType, iceberg.TimestampTzType, iceberg.DecimalType, iceberg.BooleanType,
			iceberg.Float32Type, iceberg.Float64Type:
		default:
			return nil, false
		}
		switch f.Transform.(type) {
		case iceberg.IdentityTransform, iceberg.VoidTransform, iceberg.BucketTransform, iceberg.TruncateTransform,
			iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		default:
			return nil, false
		}
		idx := file.FieldIndices(src.Name)
		if len(idx) != 1 {
			return nil, false
		}
		p.fields = append(p.fields, f)
		p.ids = append(p.ids, f.FieldID)
		p.cols = append(p.cols, idx[0])
		p.types = append(p.types, src.Type)
		p.result = append(p.result, ptype.FieldList[i].Type)
		p.names = append(p.names, f.EscapedName())
	}
	return p, true
}

// rowGroup is the rows of one partition tuple in a batch.
type rowGroup struct {
	key  string
	rows []int64
}

// groups are rec's rows by partition tuple, in order of first row.
func (p *partitionPlan) groups(rec arrow.RecordBatch) ([]rowGroup, error) {
	index := map[string]int{}
	var out []rowGroup
	var sb strings.Builder
	for i := 0; i < int(rec.NumRows()); i++ {
		sb.Reset()
		if err := PartitionRowKey(&sb, p.fields, p.cols, p.types, rec, i); err != nil {
			return nil, err
		}
		g, ok := index[sb.String()]
		if !ok {
			g = len(out)
			index[sb.String()] = g
			out = append(out, rowGroup{key: sb.String()})
		}
		out[g].rows = append(out[g].rows, int64(i))
	}
	return out, nil
}

// values are row i's partition values (nil for a null) by partition field
// id, and its partition path, as iceberg-go's writer spells them.
func (p *partitionPlan) values(rec arrow.RecordBatch, i int) (map[int]any, string) {
	vals := make(map[int]any, len(p.fields))
	var sb strings.Builder
	for k, f := range p.fields {
		var v any
		if lit, err := ArrowLiteral(rec.Column(p.cols[k]), i, p.types[k]); err == nil {
			if out := f.Transform.Apply(lit); out.Valid {
				v = out.Val.Any()
			}
		}
		vals[p.ids[k]] = v
		if k > 0 {
			sb.WriteByte('/')
		}
		sb.WriteString(p.names[k])
		sb.WriteByte('=')
		sb.WriteString(url.QueryEscape(f.Transform.ToHumanStrType(p.result[k], v)))
	}
	return vals, sb.String()
}
