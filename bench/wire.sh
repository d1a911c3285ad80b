#!/bin/sh
# Wire-protocol throughput: pgbench "SELECT 1" against magmalake and against a
# throwaway PostgreSQL 15 in the same run, 1 and 8 clients, each query mode.
# Run from the repository root, as root (PostgreSQL runs as user postgres).
#   MAGMALAKE_CMD  command that starts magmalake listening on $MAGMALAKE_PORT
#                  (default: a binary built from ./cmd/magmalake serving a fresh
#                  data directory in the work directory)
#   SECONDS_PER_RUN (default 5)
set -eu
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
MAGMALAKE_PORT=${MAGMALAKE_PORT:-55432}
PG_PORT=${PG_PORT:-55433}
T=${SECONDS_PER_RUN:-5}

work=$(mktemp -d /tmp/magmalake-bench-XXXXXX)
chmod 777 "$work"
ml_pid=""
cleanup() {
	if [ -n "$ml_pid" ]; then kill "$ml_pid" 2>/dev/null || true; wait "$ml_pid" 2>/dev/null || true; fi
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${MAGMALAKE_CMD:-}" ]; then
	# A built binary, not "go run": the pid we kill is then the server's own.
	go build -o "$work/magmalake" ./cmd/magmalake
	MAGMALAKE_CMD="$work/magmalake serve --data $work/ml --listen 127.0.0.1:$MAGMALAKE_PORT"
fi

. "$(dirname "$0")/servers.sh"
start_servers

echo "SELECT 1;" >"$work/select1.sql"
tps() { # port mode clients
	out=$(pgbench -n -f "$work/select1.sql" -M "$2" -c "$3" -j "$3" -T "$T" -h 127.0.0.1 -p "$1" -U postgres postgres 2>&1) || {
		echo "pgbench -M $2 -c $3 on port $1 failed: $out" >&2
		return 1
	}
	# pgbench 15 prints "tps = N (without initial connection time)".
	echo "$out" | awk '/^tps = / {print $3; exit}'
}
for clients in 1 8; do
	for mode in simple extended prepared; do
		m=$(tps "$MAGMALAKE_PORT" $mode $clients)
		p=$(tps "$PG_PORT" $mode $clients)
		ratio=$(awk -v m="${m:-0}" -v p="${p:-0}" 'BEGIN { if (p > 0) printf "%.2f", m / p; else print "nan" }')
		echo "wire mode=$mode clients=$clients magmalake_tps=${m:-0} postgres_tps=${p:-0} ratio=$ratio"
	done
done
