#!/bin/sh
# Query engine beside PostgreSQL 15 and DuckDB: installs DuckDB's Node.js API
# (@duckdb/node-api from npm) into a scratch node_modules, builds and runs
# `magmalake-bench select`, which generates the data, starts its own
# throwaway PostgreSQL cluster and drives DuckDB through node. Arguments go to
# the bench (e.g. --rows 1000000, --json, --cpuprofile cpu.out).
# Run from the repository root; as root the cluster runs as user postgres.
#   DUCKDB_MODULES  a directory to install @duckdb/node-api into and reuse
#                   across runs (default: a scratch one, removed afterwards)
#   DUCKDB_NODE_API_VERSION (default 1.5.6-r.1, DuckDB 1.5.6)
#   PGBIN (default /usr/lib/postgresql/15/bin)
set -eu
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
VERSION=${DUCKDB_NODE_API_VERSION:-1.5.6-r.1}

work=$(mktemp -d /tmp/magmalake-bench-select-XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

modules=${DUCKDB_MODULES:-$work/duckdb}
if [ ! -d "$modules/node_modules/@duckdb/node-api" ]; then
	mkdir -p "$modules"
	(cd "$modules" && npm install --no-save --no-audit --no-fund --loglevel=error "@duckdb/node-api@$VERSION" >/dev/null)
fi

go build -o "$work/magmalake-bench" ./cmd/magmalake-bench
"$work/magmalake-bench" select --pg-bin "$PGBIN" --duckdb-modules "$modules" "$@"
