package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// connectWait bounds a test's login.
const connectWait = 10 * time.Second

// PgxConnect opens a pgx connection to dsn, its configuration changed by
// edit (nil: as parsed), closed when the test ends; a failed login fails
// the test.
func PgxConnect(t testing.TB, dsn string, edit func(*pgx.ConnConfig)) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectWait)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
