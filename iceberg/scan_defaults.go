package iceberg

import (
	"sync"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// readableTable is tbl as its scans read it: its schemas' defaults as
// iceberg-go's readers take them (ReadableSchema), since they fill the
// columns a data file lacks with the initial-default; tbl itself when no
// schema has a default.
func readableTable(tbl *table.Table) *table.Table {
	meta := tbl.Metadata()
	if !hasDefaults(meta.Schemas()) {
		return tbl
	}
	return table.New(tbl.Identifier(), &readableMetadata{Metadata: meta}, tbl.MetadataLocation(), tbl.FS, nil)
}

func hasDefaults(schemas []*ice.Schema) bool {
	for _, sc := range schemas {
		if ReadableSchema(sc) != sc {
			return true
		}
	}
	return false
}

// readableMetadata is metadata whose schemas have readable defaults,
// converted once when first asked for.
type readableMetadata struct {
	table.Metadata
	once    sync.Once
	schemas []*ice.Schema
	current *ice.Schema
}

func (m *readableMetadata) convert() {
	m.once.Do(func() {
		cur := m.Metadata.CurrentSchema()
		for _, sc := range m.Metadata.Schemas() {
			r := ReadableSchema(sc)
			m.schemas = append(m.schemas, r)
			if sc == cur || sc.ID == cur.ID {
				m.current = r
			}
		}
		if m.current == nil {
			m.current = ReadableSchema(cur)
		}
	})
}

func (m *readableMetadata) Schemas() []*ice.Schema {
	m.convert()
	return m.schemas
}

func (m *readableMetadata) CurrentSchema() *ice.Schema {
	m.convert()
	return m.current
}
