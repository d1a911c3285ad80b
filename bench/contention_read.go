package bench

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/lake"
)

// tableRead is one reading of a table: per id the values of the other
// columns (timestamps as microseconds, NULL as math.MinInt64).
type tableRead struct {
	reader string
	rows   map[int64][]int64
	dups   []int64 // ids read more than once
	err    error
}

func newTableRead(reader string) *tableRead {
	return &tableRead{reader: reader, rows: map[int64][]int64{}}
}

func (t *tableRead) add(id int64, vals []int64) {
	if _, seen := t.rows[id]; seen {
		t.dups = append(t.dups, id)
	}
	t.rows[id] = vals
}

const nullValue = math.MinInt64

// readEverywhere reads the table through every server and with iceberg-go's
// own scan: several servers on one catalog must agree with each other and
// with a reader that shares none of magmalake's code.
func (l *sharedLake) readEverywhere(ctx context.Context, name string, cols []string) []*tableRead {
	var out []*tableRead
	for i := range l.servers {
		out = append(out, l.readServer(ctx, i, name, cols))
	}
	return append(out, l.readIceberg(ctx, name, cols))
}

func (l *sharedLake) readServer(ctx context.Context, server int, name string, cols []string) *tableRead {
	t := newTableRead(fmt.Sprintf("server %d", server))
	c, err := l.connect(ctx, server)
	if err != nil {
		t.err = err
		return t
	}
	defer c.close()
	sql := fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), name)
	o := c.query(ctx, c.conn, sql, func(r pgx.Rows) error {
		vals, err := r.Values()
		if err != nil {
			return err
		}
		ints, err := pgInts(vals)
		if err != nil {
			return err
		}
		t.add(ints[0], ints[1:])
		return nil
	})
	t.err = o.err
	return t
}

// pgInts turns bigint and timestamp values into int64s.
func pgInts(vals []any) ([]int64, error) {
	out := make([]int64, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			out[i] = nullValue
		case int64:
			out[i] = v
		case time.Time:
			out[i] = v.UnixMicro()
		default:
			return nil, fmt.Errorf("column %d: unexpected %T", i, v)
		}
	}
	return out, nil
}

// readIceberg opens the catalog as the servers do and scans with iceberg-go.
func (l *sharedLake) readIceberg(ctx context.Context, name string, cols []string) *tableRead {
	t := newTableRead("iceberg-go scan")
	t.err = l.scanIceberg(ctx, name, cols, t)
	return t
}

// loadTable opens the catalog as the servers do and loads the table; done
// releases the catalog.
func (l *sharedLake) loadTable(ctx context.Context, name string) (tbl *table.Table, done func(), err error) {
	props, _ := catalogPropMap(l.cfg.CatalogProps) // checked in withDefaults
	wh, err := lake.Open(ctx, lake.Config{DataDir: l.dataDir, CatalogProps: props, WarehouseURI: l.cfg.Warehouse})
	if err != nil {
		return nil, nil, fmt.Errorf("open catalog: %w", err)
	}
	tbl, err = wh.LoadTable(ctx, lake.Ident(lake.DefaultNamespace, name))
	if err != nil {
		wh.Close()
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return tbl, func() { wh.Close() }, nil
}

func (l *sharedLake) scanIceberg(ctx context.Context, name string, cols []string, t *tableRead) error {
	tbl, done, err := l.loadTable(ctx, name)
	if err != nil {
		return err
	}
	defer done()
	at, err := tbl.Scan(table.WithSelectedFields(cols...)).ToArrowTable(ctx)
	if err != nil {
		return fmt.Errorf("scan %s: %w", name, err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 4096)
	defer tr.Release()
	for tr.Next() {
		if err := addBatch(t, tr.RecordBatch(), cols); err != nil {
			return fmt.Errorf("scan %s: %w", name, err)
		}
	}
	return tr.Err()
}

// addBatch adds a batch's rows; columns come by name, in cols' order.
func addBatch(t *tableRead, b arrow.RecordBatch, cols []string) error {
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		idx := b.Schema().FieldIndices(c)
		if len(idx) != 1 {
			return fmt.Errorf("no column %q in the scan", c)
		}
		arrs[i] = b.Column(idx[0])
	}
	for r := range int(b.NumRows()) {
		vals := make([]int64, len(arrs))
		for i, a := range arrs {
			v, err := arrowInt(a, r)
			if err != nil {
				return fmt.Errorf("column %s: %w", cols[i], err)
			}
			vals[i] = v
		}
		t.add(vals[0], vals[1:])
	}
	return nil
}

func arrowInt(a arrow.Array, r int) (int64, error) {
	if a.IsNull(r) {
		return nullValue, nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(r), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(r).ToTime(unit).UnixMicro(), nil
	}
	return 0, fmt.Errorf("unexpected %s", a.DataType())
}
