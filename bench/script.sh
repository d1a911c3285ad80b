#!/bin/sh
# Script input: lines per second of `magmalake repl -f FILE` beside
# `psql -f FILE` against a throwaway PostgreSQL 15, for generated scripts of
# LINES lines each (default "10000 100000"):
#   values      CREATE TABLE, then one INSERT ... VALUES with a row per line
#   statements  CREATE TABLE, BEGIN, a one-row INSERT per line, COMMIT
#   selects     a SELECT of a constant per line (no table: the shell's and
#               the engine's per-statement cost, nothing written)
# Each run is a fresh process on a fresh data directory (magmalake) or
# table (PostgreSQL), output to /dev/null, ON_ERROR_STOP on; the figure is
# the median of REPEAT runs (default 3) and includes starting the process,
# which `empty` (a one-line script) measures. Every run's row count is
# checked. Run from the repository root, as root (PostgreSQL runs as user
# postgres).
#   PGBIN (default /usr/lib/postgresql/15/bin), PG_PORT (default 55444)
#   MAGMALAKE_BIN  a built magmalake (default: built from ./cmd/magmalake)
set -eu
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PG_PORT=${PG_PORT:-55444}
LINES=${LINES:-"10000 100000"}
REPEAT=${REPEAT:-3}

work=$(mktemp -d /tmp/magmalake-bench-script-XXXXXX)
chmod 777 "$work"
cleanup() {
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${MAGMALAKE_BIN:-}" ]; then
	nice go build -o "$work/magmalake" ./cmd/magmalake
	MAGMALAKE_BIN="$work/magmalake"
fi
runuser -u postgres -- "$PGBIN/initdb" -D "$work/pg" -A trust -U postgres -E UTF8 --locale=C --no-sync >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg" -w -l "$work/pg.log" \
	-o "-p $PG_PORT -k $work -c listen_addresses='' -c fsync=off" start >/dev/null
psql_() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p "$PG_PORT" -U postgres -d postgres "$@"; }

# gen KIND N FILE: the script of N lines; its table is t.
gen() {
	awk -v kind="$1" -v n="$2" 'BEGIN {
		if (kind == "empty") { print "SELECT 1;"; exit }
		if (kind == "selects") { for (i = 1; i <= n; i++) printf "SELECT %d AS n;\n", i; exit }
		print "CREATE TABLE t (id int, name text);"
		if (kind == "values") {
			print "INSERT INTO t VALUES"
			for (i = 1; i < n - 2; i++) printf "(%d, %cname-%d%c),\n", i, 39, i, 39
			printf "(%d, %cname-%d%c);\n", n - 2, 39, n - 2, 39
		} else {
			print "BEGIN;"
			for (i = 1; i <= n - 3; i++) printf "INSERT INTO t VALUES (%d, %cname-%d%c);\n", i, 39, i, 39
			print "COMMIT;"
		}
	}' >"$3"
}

# rows KIND N: the rows t should hold after the script.
rows() {
	case $1 in
	values) echo $(($2 - 2)) ;;
	statements) echo $(($2 - 3)) ;;
	*) echo "" ;;
	esac
}

now() { date +%s.%N; }

# run SYSTEM FILE RUN: runs the script once and prints its seconds.
run() {
	t0=$(now)
	if [ "$1" = magmalake ]; then
		"$MAGMALAKE_BIN" repl --data "$work/ml$3" -f "$2" >/dev/null
	else
		psql_ -f "$2" >/dev/null
	fi
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

# count SYSTEM RUN: rows in t after a run, and drop it.
count() {
	if [ "$1" = magmalake ]; then
		"$MAGMALAKE_BIN" repl --data "$work/ml$2" -A -t -c "SELECT count(*) FROM t"
		rm -rf "$work/ml$2"
	else
		psql_ -At -c "SELECT count(*) FROM t" -c "DROP TABLE t"
	fi
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

failed=0
for kind in empty values statements selects; do
	sizes=$LINES
	[ "$kind" = empty ] && sizes=1
	for n in $sizes; do
		gen "$kind" "$n" "$work/script.sql"
		lines=$(wc -l <"$work/script.sql")
		line="script kind=$kind lines=$lines"
		for sys in magmalake postgres; do
			: >"$work/times"
			r=0
			while [ $r -lt "$REPEAT" ]; do
				r=$((r + 1))
				run "$sys" "$work/script.sql" "$r" >>"$work/times"
				want=$(rows "$kind" "$lines")
				if [ -n "$want" ]; then
					got=$(count "$sys" "$r")
					if [ "$got" != "$want" ]; then
						echo "script: $sys $kind $lines: count(*) is $got, want $want" >&2
						failed=1
					fi
				fi
				rm -rf "$work/ml$r"
			done
			s=$(median <"$work/times")
			line="$line ${sys}_s=$s ${sys}_lines_per_s=$(echo "$lines $s" | awk '{ printf "%d", $1 / ($2 > 0 ? $2 : 0.001) }')"
		done
		echo "$line"
	done
done
exit $failed
