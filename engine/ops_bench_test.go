package engine

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// Operator micro-benchmarks over in-memory relations shaped like bench
// select's tables (bench/generate.go), so a profile shows the engine's own
// work without Parquet decoding: go test ./engine -run XXX -bench Ops.

// benchCatalog serves fixed relations as virtual tables.
type benchCatalog map[string]*plan.Virtual

func (c benchCatalog) ResolveTable(_ context.Context, name sql.TableName) (*plan.Table, error) {
	v, ok := c[name.Table]
	if !ok {
		return nil, fmt.Errorf("no relation %s", name.Table)
	}
	return &plan.Table{Virtual: v}, nil
}

func benchMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// benchFact is n rows of k (in [0, 100)), grp (10 values), amount (a
// double, NULL in 1 of 50), price (numeric(12,2)) and name (100,000
// values, NULL in 1 of 20), in one batch.
func benchFact(n int) *plan.Virtual {
	cols := []sql.Column{{Name: "k", Type: sql.Int32}, {Name: "grp", Type: sql.Int32}, {Name: "amount", Type: sql.Float64},
		{Name: "price", Type: sql.Numeric(12, 2)}, {Name: "name", Type: sql.Text}}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	for i := range n {
		h := benchMix(uint64(i))
		b.Field(0).(*array.Int32Builder).Append(int32(h % 100))
		b.Field(1).(*array.Int32Builder).Append(int32(i * 10 / n))
		if (h>>44)%50 != 0 {
			b.Field(2).(*array.Float64Builder).Append(float64((h>>20)%1_000_000) / 7)
		} else {
			b.Field(2).AppendNull()
		}
		b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64((h >> 8) % 10_000_000)))
		if (h>>50)%20 != 0 {
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("name-%05d", (h>>24)%100_000))
		} else {
			b.Field(4).AppendNull()
		}
	}
	rec := b.NewRecordBatch()
	b.Release()
	return &plan.Virtual{Columns: cols, Rows: func(context.Context) (arrow.RecordBatch, error) {
		rec.Retain()
		return rec, nil
	}}
}

// benchDim is bench select's dimension: 10,000 keys, 8 regions, weights in [0, 100).
func benchDim() *plan.Virtual {
	cols := []sql.Column{{Name: "d_key", Type: sql.Int32}, {Name: "d_region", Type: sql.Text}, {Name: "d_weight", Type: sql.Int32}}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	for i := range 10_000 {
		h := benchMix(uint64(i) + 1<<40)
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("region-%d", h%8))
		b.Field(2).(*array.Int32Builder).Append(int32((h >> 8) % 100))
	}
	rec := b.NewRecordBatch()
	b.Release()
	return &plan.Virtual{Columns: cols, Rows: func(context.Context) (arrow.RecordBatch, error) {
		rec.Retain()
		return rec, nil
	}}
}

// runBench plans and drains q once per iteration.
func runBench(b *testing.B, cat plan.Catalog, q string) {
	stmts, err := sql.Parse(q)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	env := &Env{Catalog: cat}
	b.ReportAllocs()
	for b.Loop() {
		pq, err := Plan(ctx, env, stmts[0].(*sql.Select), nil)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := pq.Run(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := rows.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		rows.Close()
	}
}

func BenchmarkOps(b *testing.B) {
	cat := benchCatalog{"fact": benchFact(1_000_000), "dim": benchDim()}
	for _, c := range []struct{ name, q string }{
		{"join-dim", "SELECT d.d_region, count(*) AS n, sum(f.price) AS total, avg(f.amount) AS avg_amount " +
			"FROM fact f JOIN dim d ON f.k = d.d_key WHERE d.d_weight < 50 GROUP BY d.d_region ORDER BY d.d_region"},
		{"group-high-card", "SELECT name, count(*) AS n, sum(price) AS total FROM fact GROUP BY name ORDER BY n DESC, name LIMIT 10"},
		{"group-low-card", "SELECT grp, count(*) AS n, sum(price) AS total, avg(amount) AS avg_amount, count(DISTINCT name) AS names " +
			"FROM fact GROUP BY grp ORDER BY grp"},
	} {
		b.Run(c.name, func(b *testing.B) { runBench(b, cat, c.q) })
	}
}

// BenchmarkGroupIDs is the grouper alone: 1M text keys in 100,000 groups
// (bench select's GROUP BY name), in batches of 25,000 rows.
func BenchmarkGroupIDs(b *testing.B) {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range 1_000_000 {
		bld.Append(fmt.Sprintf("name-%05d", benchMix(uint64(i))%100_000))
	}
	col := bld.NewArray()
	bld.Release()
	defer col.Release()
	for b.Loop() {
		g := newGrouper([]sql.Type{sql.Text}, nil, 1)
		for lo := 0; lo < col.Len(); lo += 25_000 {
			part := array.NewSlice(col, int64(lo), int64(lo+25_000))
			if _, err := g.groupIDs([]arrow.Array{part}, part.Len()); err != nil {
				b.Fatal(err)
			}
			part.Release()
		}
	}
}

// benchLineitem is n rows shaped like TPC-H's lineitem for Q1: quantity,
// extendedprice, discount and tax as numeric(15,2), returnflag and
// linestatus as one-letter text, shipdate as a date; in one batch.
func benchLineitem(n int) *plan.Virtual {
	cols := []sql.Column{{Name: "l_quantity", Type: sql.Numeric(15, 2)}, {Name: "l_extendedprice", Type: sql.Numeric(15, 2)},
		{Name: "l_discount", Type: sql.Numeric(15, 2)}, {Name: "l_tax", Type: sql.Numeric(15, 2)},
		{Name: "l_returnflag", Type: sql.Text}, {Name: "l_linestatus", Type: sql.Text}, {Name: "l_shipdate", Type: sql.Date}}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	for i := range n {
		h := benchMix(uint64(i))
		qty := int64(h%50+1) * 100
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(qty))
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(qty * int64((h>>8)%100_000+90_000) / 100))
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64((h >> 20) % 11)))
		b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64((h >> 24) % 9)))
		b.Field(4).(*array.StringBuilder).Append(string("ANR"[(h>>28)%3]))
		b.Field(5).(*array.StringBuilder).Append(string("OF"[(h>>30)%2]))
		b.Field(6).(*array.Date32Builder).Append(arrow.Date32(8036 + int32((h>>32)%2526)))
	}
	rec := b.NewRecordBatch()
	b.Release()
	return &plan.Virtual{Columns: cols, Rows: func(context.Context) (arrow.RecordBatch, error) {
		rec.Retain()
		return rec, nil
	}}
}

// BenchmarkTPCHQ1 is TPC-H's Q1 over 1M lineitem-shaped rows: decimal
// arithmetic inside aggregates, grouped by two text keys.
func BenchmarkTPCHQ1(b *testing.B) {
	cat := benchCatalog{"lineitem": benchLineitem(1_000_000)}
	runBench(b, cat, `SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
	sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
	avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
	FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day
	GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`)
}
