#!/bin/sh
# TPC-H on magmalake beside PostgreSQL 15 and DuckDB: installs DuckDB's
# Node.js API (@duckdb/node-api from npm) into a scratch node_modules, builds
# magmalake and magmalake-bench side by side and runs `magmalake-bench tpch`,
# which generates the data, starts a magmalake server and a throwaway
# PostgreSQL cluster, loads both and drives DuckDB through node. Arguments go
# to the bench (e.g. --sf 0.1, --json, --timeout 120s, --work-mem 256MB).
# Run from the repository root; as root the cluster runs as user postgres.
#   DUCKDB_MODULES  a directory to install @duckdb/node-api into and reuse
#                   across runs (default: a scratch one, removed afterwards)
#   DUCKDB_NODE_API_VERSION (default 1.5.6-r.1, DuckDB 1.5.6)
#   PGBIN (default /usr/lib/postgresql/15/bin)
set -eu
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
VERSION=${DUCKDB_NODE_API_VERSION:-1.5.6-r.1}

work=$(mktemp -d /tmp/magmalake-bench-tpch-XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

modules=${DUCKDB_MODULES:-$work/duckdb}
if [ ! -d "$modules/node_modules/@duckdb/node-api" ]; then
	mkdir -p "$modules"
	(cd "$modules" && npm install --no-save --no-audit --no-fund --loglevel=error "@duckdb/node-api@$VERSION" >/dev/null)
fi

go build -o "$work/magmalake" ./cmd/magmalake
go build -o "$work/magmalake-bench" ./cmd/magmalake-bench
"$work/magmalake-bench" tpch --pg-bin "$PGBIN" --duckdb-modules "$modules" "$@"
