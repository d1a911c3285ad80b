package engine

import (
	"context"
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// source is what a SELECT reads from: a table (possibly as of a snapshot),
// a metadata table, or nothing (SELECT without FROM: one empty row).
type source interface {
	scope() *sql.Scope
	// project keeps only the given columns of scope(), in that order.
	project(cols []int) source
	// batches streams the rows; filter may skip rows it proves false.
	// The caller releases each batch.
	batches(ctx context.Context, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error)
}

// openTable opens a table named in FROM, as of a snapshot if asked.
func (p *planner) openTable(from *sql.TableRef) (source, error) {
	ctx := p.ctx
	rt, err := p.env.Catalog.ResolveTable(ctx, from.Name)
	if err != nil {
		return nil, err
	}
	qual := from.Alias
	if qual == "" {
		qual = from.Name.Table
	}
	if rt.Virtual != nil {
		return openVirtualSource(ctx, rt.Virtual, qual)
	}
	if rt.View != nil {
		if from.SnapshotID != nil || from.AsOfTimestamp != nil || from.Ref != "" {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "time travel applies to tables, not to the view %q", from.Name.Table)
		}
		return p.viewSource(rt.View, qual)
	}
	if rt.Meta != "" {
		return openMetaSource(ctx, rt, qual)
	}
	ts := &tableSource{rt: rt, snapshotID: from.SnapshotID, manifests: p.env.Options.Manifests}
	ref := from.Ref
	if rt.Ref != "" {
		if from.SnapshotID != nil || from.AsOfTimestamp != nil || from.Ref != "" {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%q already names a branch or tag; it takes no FOR VERSION or FOR TIMESTAMP", from.Name.Table)
		}
		ref = rt.Ref
	}
	if ref != "" {
		snap := rt.Table.Metadata().SnapshotByName(ref)
		if snap == nil {
			return nil, pgerr.Errorf(pgerr.UndefinedObject, "table %q has no branch or tag %q", rt.Ident[len(rt.Ident)-1], ref)
		}
		id := snap.SnapshotID
		ts.snapshotID = &id
	}
	if from.AsOfTimestamp != nil {
		p.env.bindsOutside()
		ms, err := asOfMillis(ctx, from.AsOfTimestamp)
		if err != nil {
			return nil, err
		}
		if ts.snapshotID, err = lake.SnapshotAsOf(rt.Table, ms); err != nil {
			return nil, err
		}
	}
	if ts.snapshotID != nil {
		p.env.bindsPinned()
	}
	sc := lake.SchemaForSnapshot(rt.Table, ts.snapshotID)
	ts.sc = &sql.Scope{}
	if from.Alias != "" {
		ts.sc.Aliased = map[string]string{from.Name.Table: from.Alias}
	}
	types := sql.ColumnTypes(rt.Table.Properties(), sc.Fields())
	for i, f := range sc.Fields() {
		ts.sc.Columns = append(ts.sc.Columns, sql.ScopeColumn{Table: qual, Name: f.Name, T: types[i], FieldID: f.ID})
	}
	if rt.Table.Metadata().Version() >= 3 {
		ts.withLineageColumns(qual)
	}
	return ts, nil
}

// withLineageColumns adds a v3 table's row lineage as system columns:
// selectable by name, never in *, never pushed into the scan's filter (no
// field id of the table's schema).
func (t *tableSource) withLineageColumns(qual string) {
	t.cols = make([]string, 0, len(t.sc.Columns)+2)
	for _, c := range t.sc.Columns {
		t.cols = append(t.cols, c.Name)
	}
	for _, name := range []string{iceberg.RowIDColumnName, iceberg.LastUpdatedSequenceNumberColumnName} {
		if slices.Contains(t.cols, name) {
			continue // a user column of that name comes first
		}
		t.sc.Columns = append(t.sc.Columns, sql.ScopeColumn{Table: qual, Name: name, T: sql.Int64, System: true})
		t.cols = append(t.cols, name)
	}
}

// asOfMillis evaluates FOR TIMESTAMP AS OF's expression as a timestamptz.
func asOfMillis(ctx context.Context, n sql.Syntax) (int64, error) {
	e, err := sql.Bind(n, &sql.Scope{}, &sql.Params{Input: sql.InputStyleOf(ctx)})
	if err != nil {
		return 0, err
	}
	arr, err := sql.Eval(ctx, &sql.Cast{X: e, T: sql.TimestampTZ}, nil, nil)
	if err != nil {
		return 0, err
	}
	defer arr.Release()
	if arr.IsNull(0) {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "FOR TIMESTAMP AS OF needs a timestamp, not NULL")
	}
	us := int64(arr.(*array.Timestamp).Value(0))
	return time.UnixMicro(us).UnixMilli(), nil
}

type tableSource struct {
	rt         *Table
	sc         *sql.Scope
	cols       []string // nil: every column
	snapshotID *int64
	reuse      bool // read again per outer value of a correlated subquery
	manifests  *lake.ManifestCache
}

func (t *tableSource) scope() *sql.Scope { return t.sc }

func (t *tableSource) project(cols []int) source {
	p := *t
	p.sc = &sql.Scope{}
	p.cols = make([]string, 0, len(cols))
	for _, i := range cols {
		p.sc.Columns = append(p.sc.Columns, t.sc.Columns[i])
		p.cols = append(p.cols, t.sc.Columns[i].Name)
	}
	return &p
}

func (t *tableSource) batches(ctx context.Context, filter iceberg.BooleanExpression, _ []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	if seq, ok, err := t.cachedBatches(ctx, filter); ok || err != nil {
		return seq, err
	}
	return t.scan(ctx, filter)
}

func (t *tableSource) scan(ctx context.Context, filter iceberg.BooleanExpression) (iter.Seq2[arrow.RecordBatch, error], error) {
	_, seq, err := lake.Scan(ctx, t.rt.Table, lake.ScanOptions{
		Columns: t.cols, Filter: filter, SnapshotID: t.snapshotID, Manifests: t.manifests,
	})
	if err != nil {
		return nil, err
	}
	return narrowedBatches(seq, t.sc.Columns), nil
}

// metaSource serves a metadata table ("t$snapshots"), read whole: they are small.
type metaSource struct {
	sc   *sql.Scope
	data []arrow.RecordBatch
	cols []int
}

// openMetaSource reads metadata table rt ("t$snapshots") as the registry
// (meta_tables.go) produces it.
func openMetaSource(ctx context.Context, rt *Table, qual string) (source, error) {
	mt, err := FindMetaTable(rt.Ident, rt.Meta)
	if err != nil {
		return nil, err
	}
	cols, data, err := mt.read(ctx, rt.Table)
	if err != nil {
		return nil, err
	}
	m := &metaSource{sc: &sql.Scope{}, data: data}
	for i, c := range cols {
		m.sc.Columns = append(m.sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type})
		m.cols = append(m.cols, i)
	}
	return m, nil
}

// openVirtualSource reads a session-computed relation (pg_catalog) whole,
// as a metadata table is read.
func openVirtualSource(ctx context.Context, v *Virtual, qual string) (source, error) {
	batch, err := v.Rows(ctx)
	if err != nil {
		return nil, err
	}
	m := &metaSource{sc: &sql.Scope{}, data: []arrow.RecordBatch{batch}}
	for i, c := range v.Columns {
		system := i >= len(v.Columns)-v.System
		m.sc.Columns = append(m.sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type, Hidden: system})
		m.cols = append(m.cols, i)
	}
	return m, nil
}

func (m *metaSource) scope() *sql.Scope { return m.sc }

func (m *metaSource) project(cols []int) source {
	p := &metaSource{sc: &sql.Scope{}, data: m.data}
	for _, i := range cols {
		p.sc.Columns = append(p.sc.Columns, m.sc.Columns[i])
		p.cols = append(p.cols, m.cols[i])
	}
	return p
}

func (m *metaSource) batches(ctx context.Context, _ iceberg.BooleanExpression, _ []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	fields := make([]arrow.Field, len(m.cols))
	for i, c := range m.sc.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range m.data {
			cols := make([]arrow.Array, len(m.cols))
			for i, c := range m.cols {
				cols[i] = b.Column(c)
			}
			if !yield(array.NewRecordBatch(schema, cols, b.NumRows()), nil) {
				return
			}
		}
	}, nil
}

// noSource is the single empty row SELECT without FROM evaluates over.
type noSource struct{}

func (noSource) scope() *sql.Scope    { return &sql.Scope{} }
func (noSource) project([]int) source { return noSource{} }
func (noSource) batches(context.Context, iceberg.BooleanExpression, []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return func(yield func(arrow.RecordBatch, error) bool) {
		yield(array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1), nil)
	}, nil
}

// typeFromArrow maps the executor Arrow types back to SQL types.
func typeFromArrow(dt arrow.DataType) sql.Type {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return sql.Bool
	case *arrow.Int16Type:
		return sql.Int16
	case *arrow.Int32Type:
		return sql.Int32
	case *arrow.Int64Type:
		return sql.Int64
	case *arrow.Uint32Type:
		return sql.OID
	case *arrow.Float32Type:
		return sql.Float32
	case *arrow.Float64Type:
		return sql.Float64
	case *arrow.Decimal128Type:
		return sql.Numeric(int(t.Precision), int(t.Scale))
	case *arrow.BinaryType:
		return sql.Bytea
	case *arrow.Date32Type:
		return sql.Date
	case *arrow.Time64Type:
		return sql.Time
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return sql.TimestampTZ
		}
		return sql.Timestamp
	}
	if dt.ID() == arrow.EXTENSION {
		return sql.UUID
	}
	return sql.Text
}

// metadataCount is the answer of SELECT count(*) [, count(*) ...] FROM t
// from t's snapshot summary, when no WHERE, grouping or delete file makes
// the rows differ from the files' record counts.
func (q *selectQuery) metadataCount() (int64, bool) {
	ts, ok := q.src.(*tableSource)
	if !ok || q.where != nil || q.agg == nil || len(q.agg.GroupBy) > 0 || len(q.agg.Calls) == 0 {
		return 0, false
	}
	for _, c := range q.agg.Calls {
		if c.Name != "count" || c.Arg != nil || c.Distinct || c.Filter != nil {
			return 0, false
		}
	}
	n, deletes, ok := ts.recordCount()
	return n, ok && !deletes
}

// recordCount is the rows the scanned snapshot's summary records (0 for a
// table without one) and whether delete files apply; ok is false when the
// summary does not say.
func (t *tableSource) recordCount() (n int64, deletes, ok bool) {
	snap := t.rt.Table.CurrentSnapshot()
	if t.snapshotID != nil {
		snap = t.rt.Table.Metadata().SnapshotByID(*t.snapshotID)
	}
	if snap == nil {
		return 0, false, true
	}
	if snap.Summary == nil {
		return 0, false, false
	}
	props := snap.Summary.Properties
	n, err := strconv.ParseInt(props[lake.SummaryTotalRecords], 10, 64)
	return n, props[lake.SummaryTotalDeleteFiles] != "0", err == nil
}

// MetaColumns are the columns of metadata table rt ("t$files") as a query
// sees them: DESCRIBE shows these, not the base table's. Those the
// registry lists need no rows read (t$delete_debt plans every delete).
func MetaColumns(ctx context.Context, rt *Table) ([]Column, error) {
	mt, err := FindMetaTable(rt.Ident, rt.Meta)
	if err != nil {
		return nil, err
	}
	if mt.Columns != nil {
		return slices.Clone(mt.Columns), nil
	}
	src, err := openMetaSource(ctx, rt, rt.Meta)
	if err != nil {
		return nil, err
	}
	var out []Column
	for _, c := range src.scope().Columns {
		if !c.Hidden {
			out = append(out, Column{Name: c.Name, Type: c.T})
		}
	}
	return out, nil
}
