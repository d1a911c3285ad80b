// Package pgcatalog answers the catalog queries PostgreSQL clients send
// (psql's \d commands, pgjdbc's DatabaseMetaData, SQLAlchemy's inspector):
// virtual pg_catalog and information_schema relations built from the Iceberg
// catalog, and a small in-memory relational evaluator over the parsed query
// (joins, subqueries, UNION, window row_number, ORDER BY, LIMIT).
//
// Catalogs are small, so the evaluator materialises every relation and runs
// row at a time with nested-loop joins; it is not the engine's data path.
package pgcatalog
