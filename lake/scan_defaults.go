package lake

import (
	"sync"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// scanTable is tbl as its scans read it: its schemas' defaults as
// iceberg-go's readers take them (ReadableSchema), since they fill the
// columns a data file lacks with the initial-default, and with extra
// fields (anchors of dropped columns, see anchorFiles) after the others;
// tbl itself when there is nothing to change.
func scanTable(tbl *table.Table, extra []iceberg.NestedField) *table.Table {
	meta := tbl.Metadata()
	if len(extra) == 0 && !anyDefaults(meta.Schemas()) {
		return tbl
	}
	conv := func(sc *iceberg.Schema) *iceberg.Schema { return withExtra(sc, extra) }
	return table.New(tbl.Identifier(), &schemaView{Metadata: meta, conv: conv}, tbl.MetadataLocation(), tbl.FS, nil)
}

func anyDefaults(schemas []*iceberg.Schema) bool {
	for _, sc := range schemas {
		if fieldsHaveDefaults(sc.Fields()) {
			return true
		}
	}
	return false
}

func fieldsHaveDefaults(fields []iceberg.NestedField) bool {
	for _, f := range fields {
		if f.InitialDefault != nil || f.WriteDefault != nil {
			return true
		}
		if nt, ok := f.Type.(iceberg.NestedType); ok && fieldsHaveDefaults(nt.Fields()) {
			return true
		}
	}
	return false
}

// schemaView is metadata whose schemas are conv's of the metadata's,
// converted once when first asked for.
type schemaView struct {
	table.Metadata
	conv    func(*iceberg.Schema) *iceberg.Schema
	once    sync.Once
	schemas []*iceberg.Schema
	current *iceberg.Schema
}

func (m *schemaView) convert() {
	m.once.Do(func() {
		cur := m.Metadata.CurrentSchema()
		for _, sc := range m.Metadata.Schemas() {
			r := m.conv(sc)
			m.schemas = append(m.schemas, r)
			if sc.ID == cur.ID {
				m.current = r
			}
		}
		if m.current == nil {
			m.current = m.conv(cur)
		}
	})
}

func (m *schemaView) Schemas() []*iceberg.Schema {
	m.convert()
	return m.schemas
}

func (m *schemaView) CurrentSchema() *iceberg.Schema {
	m.convert()
	return m.current
}

// withExtra is sc with the readable defaults, and the fields of extra it
// does not have (older schemas still have a dropped column) after its own.
func withExtra(sc *iceberg.Schema, extra []iceberg.NestedField) *iceberg.Schema {
	r := ReadableSchema(sc)
	fields := r.Fields()
	n := len(fields)
	for _, f := range extra {
		if _, ok := sc.FindFieldByID(f.ID); !ok {
			fields = append(fields, f)
		}
	}
	if len(fields) == n {
		return r
	}
	return iceberg.NewSchemaWithIdentifiers(sc.ID, sc.IdentifierFieldIDs, fields...)
}
