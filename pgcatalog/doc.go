// Package pgcatalog holds the catalog relations PostgreSQL clients read
// (psql's \d commands, pgjdbc's DatabaseMetaData, SQLAlchemy's inspector):
// virtual pg_catalog and information_schema relations built from the
// Iceberg catalog, one small file per group of relations, and the lookups
// behind sql's catalog functions and reg* casts. The query engine reads the
// relations as ordinary sources; nothing here evaluates SQL.
package pgcatalog
