package lake

// The catalog implementations --catalog-prop type=... can name: the SQL
// catalog (SQLite through modernc, PostgreSQL through pgx's database/sql
// driver "pgx") and the REST catalog.
import (
	_ "github.com/apache/iceberg-go/catalog/rest"
	_ "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/jackc/pgx/v5/stdlib"
)
