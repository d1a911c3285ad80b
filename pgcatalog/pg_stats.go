package pgcatalog

import (
	"context"
	"math"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// addPgStats adds pg_stats, PostgreSQL 15's view of the planner's column
// statistics, with a row per column ANALYZE sketched (the table's
// statistics file for its current snapshot, else for its nearest
// analyzed ancestor): n_distinct from the sketch's ndv, null_frac and
// avg_width from what the live data files record (null counts and column
// sizes). Iceberg keeps no most-common values, histograms or correlation:
// those are NULL. The anyarray columns are text here, the one type that
// differs from PostgreSQL's.
func addPgStats(m relSet) {
	m.addLoaded("pg_catalog", "pg_stats", 0, `schemaname name, tablename name, attname name, inherited bool,
		null_frac float4, avg_width int4, n_distinct float4, most_common_vals anyarray,
		most_common_freqs float4[], histogram_bounds anyarray, correlation float4,
		most_common_elems anyarray, most_common_elem_freqs float4[], elem_count_histogram float4[]`, statsRows)
}

func statsRows(ctx context.Context, s *snapshot) ([][]any, error) {
	var out [][]any
	for _, t := range s.tables {
		if t.tbl == nil {
			continue
		}
		sf, ok := lake.StatisticsFor(t.tbl, nil)
		if !ok {
			continue
		}
		var cache *lake.ManifestCache
		if s.env.Warehouse != nil {
			cache = s.env.Warehouse.Commits().Manifests()
		}
		files, err := lake.ColumnStats(ctx, t.tbl, nil, cache)
		if err != nil {
			return nil, err
		}
		ndvs := lake.ColumnNDVs(t.tbl, nil)
		for _, bm := range sf.BlobMetadata {
			if bm.Type != table.BlobTypeApacheDatasketchesThetaV1 || len(bm.Fields) != 1 {
				continue
			}
			id := int(bm.Fields[0])
			f, ok := t.tbl.Schema().FindFieldByID(id)
			ndv, known := ndvs[id]
			if !ok || !known {
				continue // a column dropped since
			}
			nullFrac, width := fileColumnStats(files, id)
			out = append(out, []any{t.ns.name, t.name, f.Name, false,
				nullFrac, width, nDistinct(ndv, t.tuples), nil,
				nil, nil, nil,
				nil, nil, nil})
		}
	}
	return out, nil
}

// fileColumnStats are a column's null fraction and average width in
// bytes of its non-null values, from the data files' null counts and
// column sizes (0 where a file does not record them).
func fileColumnStats(files lake.ColumnFileStats, id int) (nullFrac float64, width int64) {
	if files.Records == 0 {
		return 0, 0
	}
	nulls, known := files.Nulls[id]
	if known {
		nullFrac = float64(nulls) / float64(files.Records)
	}
	if bytes, ok := files.Bytes[id]; ok && files.Records > nulls {
		width = int64(math.Round(float64(bytes) / float64(files.Records-nulls)))
	}
	return nullFrac, width
}

// nDistinct is PostgreSQL's convention for pg_stats.n_distinct: the count
// when the column's distinct values look like a fixed set (at most a
// tenth of the rows, ANALYZE's own rule), else minus the fraction of the
// rows, which stays right as the table grows (-1: every row distinct).
func nDistinct(ndv, rows int64) float64 {
	if rows <= 0 || float64(ndv) <= 0.1*float64(rows) {
		return float64(ndv)
	}
	return -math.Min(1, float64(ndv)/float64(rows))
}
