package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// client is one session's connection to one server.
type client struct {
	conn    *pgx.Conn
	addr    string
	server  int
	timeout time.Duration
}

// codeUnknown stands for an error without a SQLSTATE (connection lost,
// client timeout): the statement may or may not have committed.
const codeUnknown = "unknown"

// outcome is how one statement (or block) ended and when.
type outcome struct {
	start, end time.Time
	code       string // "" when it succeeded, else its SQLSTATE or codeUnknown
	err        error
	sql        string
}

func (o outcome) ok() bool { return o.code == "" }

// querier is a connection or a transaction on it.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// query runs sql and hands every result row to scan.
func (c *client) query(ctx context.Context, q querier, sql string, scan func(pgx.Rows) error) outcome {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	o := outcome{start: time.Now(), sql: sql}
	o.err = readRows(ctx, q, sql, scan)
	o.end = time.Now()
	o.code = errCode(o.err)
	return o
}

func readRows(ctx context.Context, q querier, sql string, scan func(pgx.Rows) error) error {
	rows, err := q.Query(ctx, sql)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ids runs a statement whose RETURNING is one bigint id.
func (c *client) ids(ctx context.Context, q querier, sql string) ([]int64, outcome) {
	var out []int64
	o := c.query(ctx, q, sql, func(r pgx.Rows) error {
		var id int64
		if err := r.Scan(&id); err != nil {
			return fmt.Errorf("scan RETURNING id: %w", err)
		}
		out = append(out, id)
		return nil
	})
	return out, o
}

// exec runs a statement that returns no rows we need.
func (c *client) exec(ctx context.Context, sql string) outcome {
	return c.query(ctx, c.conn, sql, func(pgx.Rows) error { return nil })
}

// errCode is err's SQLSTATE, "" for nil, codeUnknown when it has none.
func errCode(err error) string {
	if err == nil {
		return ""
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return codeUnknown
}

// recover reconnects after an outcome left the connection unusable
// (a lost connection, a client-side timeout).
func (c *client) recover(ctx context.Context, o outcome) error {
	if o.code != codeUnknown && !c.conn.IsClosed() {
		return nil
	}
	c.conn.Close(ctx)
	conn, err := dial(ctx, c.addr)
	if err != nil {
		return fmt.Errorf("reconnect session after %v: %w", o.err, err)
	}
	c.conn = conn
	return nil
}

func (c *client) close() { c.conn.Close(context.Background()) }
