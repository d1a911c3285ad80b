package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/wire"
)

// Unconstrained numeric reaches a driver with each value's own display scale
// and past 38 digits, in text (simple protocol) and binary (extended) format:
// pgx decodes both and must see what it sees from PostgreSQL 15.
func TestPgxNumericDisplayScale(t *testing.T) {
	srv := startServer(t, wire.AuthTrust)
	pg := pgtest.Start(t)
	queries := []string{
		"SELECT 1::numeric / 3",
		"SELECT 100::numeric / 3",
		"SELECT -1::numeric / 30000",
		"SELECT 1e300 * 10",
		"SELECT 2.50::numeric * 4",
	}
	modes := map[string]pgx.QueryExecMode{"simple": pgx.QueryExecModeSimpleProtocol, "extended": pgx.QueryExecModeCacheStatement}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			ours := pgxConnect(t, srv, "", mode)
			cfg, err := pgx.ParseConfig(pg.URL("postgres"))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode
			theirs, err := pgx.ConnectConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer theirs.Close(context.Background())
			for _, q := range queries {
				got, want := scanNumeric(t, ours, q), scanNumeric(t, theirs, q)
				if got != want {
					t.Errorf("%s (%s): magmalake %s, PostgreSQL %s", q, name, got, want)
				}
			}
		})
	}
}

func scanNumeric(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	var n pgtype.Numeric
	if err := conn.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	v, err := n.Value()
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v.(string)
}
