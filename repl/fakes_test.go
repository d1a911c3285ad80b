package repl

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// memRows serves prepared batches as stmt.Rows.
type memRows struct {
	batches []arrow.RecordBatch
	tag     string
	next    int
	closed  bool
}

func (r *memRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.next >= len(r.batches) {
		return nil, io.EOF
	}
	r.next++
	return r.batches[r.next-1], nil
}

func (r *memRows) Tag() string  { return r.tag }
func (r *memRows) Close() error { r.closed = true; return nil }

// textBatch builds one batch from text values (nil = NULL), each parsed into
// its column's Arrow type.
func textBatch(cols []stmt.Column, rows [][]*string) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for c, col := range cols {
		fields[c] = arrow.Field{Name: col.Name, Type: col.Type.ArrowType(), Nullable: true}
		b := array.NewBuilder(memory.DefaultAllocator, col.Type.ArrowType())
		for _, row := range rows {
			if row[c] == nil {
				b.AppendNull()
				continue
			}
			if err := b.AppendValueFromString(*row[c]); err != nil {
				return nil, fmt.Errorf("column %s value %q: %w", col.Name, *row[c], err)
			}
		}
		arrs[c] = b.NewArray()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(rows))), nil
}

// rowsResult is a query result with the given columns and text rows.
func rowsResult(cols []stmt.Column, tag string, rows ...[]*string) *stmt.Result {
	b, err := textBatch(cols, rows)
	if err != nil {
		panic(err)
	}
	return &stmt.Result{Columns: cols, Rows: &memRows{batches: []arrow.RecordBatch{b}, tag: tag}}
}

func str(s string) *string { return &s }

// fakeSession answers queries from a table of canned responses and records
// what was prepared.
type fakeSession struct {
	answers  map[string]func(ctx context.Context) (*stmt.Result, error)
	prepared []string
	tx       byte
}

func (f *fakeSession) Prepare(ctx context.Context, query string, _ []uint32) (*stmt.Prepared, error) {
	f.prepared = append(f.prepared, query)
	if _, ok := f.answers[query]; !ok {
		return nil, &pgerr.Error{Code: pgerr.SyntaxError, Message: fmt.Sprintf("fake cannot parse %q", query), Position: 1}
	}
	return &stmt.Prepared{Query: query}, nil
}

func (f *fakeSession) Execute(ctx context.Context, p *stmt.Prepared, _ []stmt.Param) (*stmt.Result, error) {
	res, err := f.answers[p.Query](ctx)
	if err != nil {
		return nil, err
	}
	// Canned answers are reused: hand out fresh row cursors.
	if rows, ok := res.Rows.(*memRows); ok {
		cp := *res
		cp.Rows = &memRows{batches: rows.batches, tag: rows.tag}
		return &cp, nil
	}
	return res, nil
}

func (f *fakeSession) TxStatus() byte {
	if f.tx == 0 {
		return stmt.TxIdle
	}
	return f.tx
}

// pgSession runs the shell's statements on real PostgreSQL, turning its text
// results into Arrow batches as magmalake's executor would produce them.
type pgSession struct{ c *pgx.Conn }

func (s *pgSession) Prepare(ctx context.Context, query string, _ []uint32) (*stmt.Prepared, error) {
	return &stmt.Prepared{Query: query}, nil
}

func (s *pgSession) Execute(ctx context.Context, p *stmt.Prepared, _ []stmt.Param) (*stmt.Result, error) {
	results, err := pgtest.Run(ctx, s.c, p.Query)
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return nil, &pgerr.Error{Code: pgerr.Code(e.Code), Message: e.Message, Detail: e.Detail, Hint: e.Hint, Position: int(e.Position)}
	}
	if err != nil {
		return nil, err
	}
	if len(results) == 0 {
		return &stmt.Result{}, nil
	}
	res := results[len(results)-1]
	if len(res.FieldDescriptions) == 0 {
		return &stmt.Result{Tag: res.CommandTag.String()}, nil
	}
	cols := make([]stmt.Column, len(res.FieldDescriptions))
	for i, f := range res.FieldDescriptions {
		cols[i] = stmt.Column{Name: f.Name, Type: sql.TypeFromOID(f.DataTypeOID)}
	}
	return rowsResult(cols, res.CommandTag.String(), pgtest.Text(res)...), nil
}

func (s *pgSession) TxStatus() byte { return s.c.PgConn().TxStatus() }
