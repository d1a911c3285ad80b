package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// The dimension table: dimRows keys, of which the fact table's k (uniform
// in [0, 100)) hits the first 100, so every fact row finds one match and
// the build side is still the whole dimension.
const (
	dimTable = "dim"
	dimRows  = 10_000
)

// dimRow is row i of the dimension: its key, one of 8 regions and a weight
// in [0, 100) that the join query filters on.
type dimRow struct {
	key    int32
	region string
	weight int32
}

func dimRowAt(i int) dimRow {
	h := splitmix64(uint64(i) + 1<<40) // another stream than the fact rows'
	return dimRow{key: int32(i), region: fmt.Sprintf("region-%d", h%8), weight: int32((h >> 8) % 100)}
}

// dimDDL is the dimension's PostgreSQL definition; its Iceberg schema
// follows the same types.
const dimDDL = "CREATE TABLE dim (d_key int NOT NULL, d_region text, d_weight int)"

// factDDL is the generated table's PostgreSQL definition (tableSchema's types).
const factDDL = "CREATE TABLE %s (id bigint NOT NULL, k int, grp int, amount double precision, " +
	"price numeric(12,2), name text, ts timestamp, flag boolean)"

func dimArrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "d_key", Type: sql.Int32.ArrowType()},
		{Name: "d_region", Type: sql.Text.ArrowType(), Nullable: true},
		{Name: "d_weight", Type: sql.Int32.ArrowType(), Nullable: true},
	}, nil)
}

func dimIcebergSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "d_key", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 2, Name: "d_region", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "d_weight", Type: iceberg.PrimitiveTypes.Int32},
	)
}

// dimBatches yields the whole dimension as one batch.
func dimBatches() iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, dimArrowSchema())
		defer b.Release()
		for i := range dimRows {
			r := dimRowAt(i)
			b.Field(0).(*array.Int32Builder).Append(r.key)
			b.Field(1).(*array.StringBuilder).Append(r.region)
			b.Field(2).(*array.Int32Builder).Append(r.weight)
		}
		yield(b.NewRecordBatch(), nil)
	}
}

// writeDim creates the dimension table in magmalake's warehouse and returns
// its data files.
func writeDim(ctx context.Context, wh *lake.Warehouse) ([]iceberg.DataFile, error) {
	ident := lake.Ident(lake.DefaultNamespace, dimTable)
	tbl, err := wh.Tables().CreateTable(ctx, ident, dimIcebergSchema(), lake.TableSpec{}, nil)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dimTable, err)
	}
	dfs, err := lake.WriteDataFiles(ctx, tbl, dimBatches())
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dimTable, err)
	}
	if _, err := lake.Append(ctx, wh, ident, dfs, nil); err != nil {
		return nil, fmt.Errorf("append %s: %w", dimTable, err)
	}
	return dfs, nil
}

// copyFact streams the shape's rows in PostgreSQL's COPY text format, the
// same values magmalake's data files hold (rowAt is the one source of both).
func copyFact(w io.Writer, s shape) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for i := range s.rows {
		line = appendFactLine(line[:0], s.rowAt(i))
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendFactLine is one COPY text line. Floats print in Go's shortest
// round-trip form, which PostgreSQL reads back to the same double.
func appendFactLine(b []byte, r row) []byte {
	b = strconv.AppendInt(b, r.id, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.k), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.grp), 10)
	b = append(b, '\t')
	if r.amount != nil {
		b = strconv.AppendFloat(b, *r.amount, 'g', -1, 64)
	} else {
		b = append(b, `\N`...)
	}
	b = append(b, '\t')
	b = appendCents(b, r.price)
	b = append(b, '\t')
	if r.name != nil {
		b = append(b, *r.name...) // "name-NNNNN": nothing to escape
	} else {
		b = append(b, `\N`...)
	}
	b = append(b, '\t')
	b = time.UnixMicro(r.ts).UTC().AppendFormat(b, "2006-01-02 15:04:05.999999")
	b = append(b, '\t')
	if r.flag {
		b = append(b, 't')
	} else {
		b = append(b, 'f')
	}
	return append(b, '\n')
}

// appendCents prints a non-negative count of cents as numeric(12,2) text.
func appendCents(b []byte, cents int64) []byte {
	b = strconv.AppendInt(b, cents/100, 10)
	b = append(b, '.')
	if c := cents % 100; c < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, cents%100, 10)
}

// copyDim is the dimension in COPY text format.
func copyDim() string {
	var sb strings.Builder
	for i := range dimRows {
		r := dimRowAt(i)
		fmt.Fprintf(&sb, "%d\t%s\t%d\n", r.key, r.region, r.weight)
	}
	return sb.String()
}

// localPaths are the data files' paths on disk, for DuckDB's read_parquet.
func localPaths(files []iceberg.DataFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = strings.TrimPrefix(f.FilePath(), "file://")
	}
	return out
}
