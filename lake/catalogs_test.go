package lake

import (
	"context"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// An iceberg-go SQL catalog kept in PostgreSQL works like the embedded one:
// tables created through one warehouse are seen by a second.
func TestSQLCatalogOnPostgres(t *testing.T) {
	pg := pgtest.Start(t)
	pg.CreateDatabase(t, "catalog")
	ctx := context.Background()
	cfg := Config{
		CatalogName: "pgcat",
		CatalogProps: map[string]string{
			"type": "sql", "uri": pg.URL("catalog"), "sql.dialect": "postgres",
		},
		WarehouseURI: "file://" + t.TempDir(),
	}
	w, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Tables().CreateNamespace(ctx, "sales"); err != nil {
		t.Fatal(err)
	}
	w2, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	names, err := w2.Tables().ListNamespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(names, ","), "sales") {
		t.Fatalf("second warehouse sees namespaces %v, want sales among them", names)
	}
}

// A REST catalog that cannot be reached fails at start with one line naming
// what was wrong, not a stack trace.
func TestRESTCatalogUnreachable(t *testing.T) {
	_, err := Open(context.Background(), Config{
		CatalogName:  "rest",
		CatalogProps: map[string]string{"type": "rest", "uri": "http://127.0.0.1:1"},
	})
	if err == nil {
		t.Fatal("opening an unreachable REST catalog succeeded")
	}
	if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "unknown catalog type") {
		t.Fatalf("want one line about the connection, got %q", err)
	}
}
