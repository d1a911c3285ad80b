package pgtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/testenv"
)

// DSN is a libpq connection string for database db over the unix socket.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.Dir, c.Port, db)
}

// URL is the same as DSN in URL form, for database/sql drivers.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=%d&sslmode=disable", db, c.Dir, c.Port)
}

// Connect opens a pgx connection to database db, closed when the test ends.
func (c *Cluster) Connect(t testing.TB, db string) *pgx.Conn {
	t.Helper()
	return testenv.PgxConnect(t, c.DSN(db), nil)
}

// CreateDatabase creates an empty database.
func (c *Cluster) CreateDatabase(t testing.TB, name string) {
	t.Helper()
	conn := c.Connect(t, "postgres")
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
}

// Exec runs q (one or more statements) over the simple protocol, so values
// come back in PostgreSQL's own text output. A SQL error is returned, with
// the results of the statements before it; any other failure fails the test.
func Exec(t testing.TB, conn *pgx.Conn, q string) ([]*pgconn.Result, *pgconn.PgError) {
	t.Helper()
	res, err := Run(context.Background(), conn, q)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return res, pe
	}
	if err != nil {
		t.Fatalf("PostgreSQL: %.300s: %v", q, err)
	}
	return res, nil
}

// ExecErr runs q, which must fail, as Exec does and returns PostgreSQL's
// error; a q that PostgreSQL accepts fails the test.
func ExecErr(t testing.TB, conn *pgx.Conn, q string) *pgconn.PgError {
	t.Helper()
	_, e := Exec(t, conn, q)
	if e == nil {
		t.Fatalf("PostgreSQL accepted %q, which must fail", q)
	}
	return e
}

// Run is Exec for callers without a test at hand: every error is returned.
// Unlike pgconn's ReadAll it keeps the columns of a result without rows.
func Run(ctx context.Context, conn *pgx.Conn, q string) ([]*pgconn.Result, error) {
	mrr := conn.PgConn().Exec(ctx, q)
	var res []*pgconn.Result
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		fields := slices.Clone(rr.FieldDescriptions())
		r := rr.Read()
		r.FieldDescriptions = fields
		res = append(res, r)
	}
	return res, mrr.Close()
}

// Text is the text of a result's rows, nil for NULL.
func Text(r *pgconn.Result) [][]*string {
	rows := make([][]*string, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = make([]*string, len(row))
		for j, v := range row {
			if v != nil {
				s := string(v)
				rows[i][j] = &s
			}
		}
	}
	return rows
}
