package plan

import (
	"context"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/metatable"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// openTable opens a table named in FROM, as of a snapshot if asked.
func (p *Builder) openTable(from *sql.TableRef) (Node, error) {
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
		return openVirtualRows(ctx, rt.Virtual, qual)
	}
	if rt.View != nil {
		if from.SnapshotID != nil || from.AsOfTimestamp != nil || from.Ref != "" {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "time travel applies to tables, not to the view %q", from.Name.Table)
		}
		return p.viewSource(rt.View, qual)
	}
	if rt.Meta != "" {
		return openMetaRows(ctx, rt, qual)
	}
	ts := &Scan{Table: rt, SnapshotID: from.SnapshotID}
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
		ts.SnapshotID = &id
	}
	if from.AsOfTimestamp != nil {
		ms, err := asOfMillis(ctx, from.AsOfTimestamp)
		if err != nil {
			return nil, err
		}
		ts.AsOf = true
		if ts.SnapshotID, err = lake.SnapshotAsOf(rt.Table, ms); err != nil {
			return nil, err
		}
	}
	sc := lake.SchemaForSnapshot(rt.Table, ts.SnapshotID)
	ts.Sc = &sql.Scope{}
	if from.Alias != "" {
		ts.Sc.Aliased = map[string]string{from.Name.Table: from.Alias}
	}
	types := sql.ColumnTypes(rt.Table.Properties(), sc.Fields())
	for i, f := range sc.Fields() {
		ts.Sc.Columns = append(ts.Sc.Columns, sql.ScopeColumn{Table: qual, Name: f.Name, T: types[i], FieldID: f.ID})
	}
	if rt.Table.Metadata().Version() >= 3 {
		ts.withLineageColumns(qual)
	}
	return ts, nil
}

// withLineageColumns adds a v3 table's row lineage as system columns:
// selectable by name, never in *, never pushed into the scan's filter (no
// field id of the table's schema).
func (t *Scan) withLineageColumns(qual string) {
	t.Columns = make([]string, 0, len(t.Sc.Columns)+2)
	for _, c := range t.Sc.Columns {
		t.Columns = append(t.Columns, c.Name)
	}
	for _, name := range []string{iceberg.RowIDColumnName, iceberg.LastUpdatedSequenceNumberColumnName} {
		if slices.Contains(t.Columns, name) {
			continue // a user column of that name comes first
		}
		t.Sc.Columns = append(t.Sc.Columns, sql.ScopeColumn{Table: qual, Name: name, T: sql.Int64, System: true})
		t.Columns = append(t.Columns, name)
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

// openMetaRows reads metadata table rt ("t$snapshots") as the registry
// (package metatable) produces it.
func openMetaRows(ctx context.Context, rt *Table, qual string) (Node, error) {
	mt, err := metatable.Find(rt.Ident, rt.Meta)
	if err != nil {
		return nil, err
	}
	cols, data, err := mt.Read(ctx, rt.Table)
	if err != nil {
		return nil, err
	}
	m := &Rows{Sc: &sql.Scope{}, Data: data}
	for i, c := range cols {
		m.Sc.Columns = append(m.Sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type})
		m.Cols = append(m.Cols, i)
	}
	return m, nil
}

// openVirtualRows reads a session-computed relation (pg_catalog) whole,
// as a metadata table is read.
func openVirtualRows(ctx context.Context, v *Virtual, qual string) (Node, error) {
	batch, err := v.Rows(ctx)
	if err != nil {
		return nil, err
	}
	m := &Rows{Sc: &sql.Scope{}, Data: []arrow.RecordBatch{batch}}
	for i, c := range v.Columns {
		system := i >= len(v.Columns)-v.System
		m.Sc.Columns = append(m.Sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type, Hidden: system})
		m.Cols = append(m.Cols, i)
	}
	return m, nil
}
