#!/bin/sh
# Table maintenance (issue 14): builds and runs `magmalake-bench
# maintenance` with the full defaults — a 10M-row table in 40 files after 20
# merge-on-read DELETEs of 1% (v2 and v3) and a table after 2,000 one-row
# INSERTs: OPTIMIZE beside iceberg-go's RewriteDataFiles on an identical
# copy, and a full scan and a selective query before, after and on a fresh
# copy. Prints one line of figures per case (--json: one object). Arguments
# go to the bench (e.g. --rows 1000000, --case mor-v3, --json). Run from the
# repository root; the scratch warehouse (under $TMPDIR) is removed
# afterwards.
#   MAGMALAKE_BENCH_BIN  magmalake-bench binary (default: built from this
#                        checkout)
set -eu

work=$(mktemp -d "${TMPDIR:-/tmp}/magmalake-bench-maintenance-XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

bin=${MAGMALAKE_BENCH_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/magmalake-bench
	go build -o "$bin" ./cmd/magmalake-bench
fi
"$bin" maintenance --dir "$work" "$@"
