// Package e2e holds end-to-end tests: the real engine behind the real wire
// server, driven by real PostgreSQL clients (pgx, psql, pgbench, pgjdbc,
// psycopg2, SQLAlchemy, node-postgres). Each client test skips with a
// message when its client is not installed.
package e2e
