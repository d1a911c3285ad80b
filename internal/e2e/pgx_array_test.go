package e2e

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/wire"
)

// TestPgxArrays: a Go slice as the parameter of = ANY($1) (pgx sends a
// binary int8[] or text[] in the extended protocol, a literal in the simple
// one), and arrays coming back, decoded by pgx into slices.
func TestPgxArrays(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	ctx := context.Background()
	setup := pgxConnect(t, s, "", pgx.QueryExecModeSimpleProtocol)
	for _, q := range []string{
		"CREATE TABLE arrp (id bigint, name text)",
		"INSERT INTO arrp VALUES (1, 'a'), (2, 'b'), (3, NULL), (4, 'd,e')",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	modes := map[string]pgx.QueryExecMode{"simple": pgx.QueryExecModeSimpleProtocol, "extended": pgx.QueryExecModeCacheStatement,
		"describe": pgx.QueryExecModeDescribeExec}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			conn := pgxConnect(t, s, "", mode)
			rows, err := conn.Query(ctx, "SELECT id FROM arrp WHERE id = ANY($1) ORDER BY id", []int64{4, 1, 99})
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil || !slices.Equal(ids, []int64{1, 4}) {
				t.Fatalf("id = ANY($1): %v %v", ids, err)
			}
			rows, err = conn.Query(ctx, "SELECT id FROM arrp WHERE name <> ALL($1) ORDER BY id", []string{"a", "d,e"})
			if err != nil {
				t.Fatal(err)
			}
			if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil || !slices.Equal(ids, []int64{2}) {
				t.Fatalf("name <> ALL($1): %v %v", ids, err)
			}
			var got []int64
			var names []*string
			if err := conn.QueryRow(ctx, "SELECT array_agg(id ORDER BY id DESC), array_agg(name ORDER BY id) FROM arrp").Scan(&got, &names); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, []int64{4, 3, 2, 1}) || len(names) != 4 || names[2] != nil || *names[3] != "d,e" {
				t.Fatalf("array_agg: %v %v", got, names)
			}
		})
	}
}
