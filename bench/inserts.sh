#!/bin/sh
# Small writes: the same client programs against magmalake and against a
# throwaway PostgreSQL 15 in the same run, each case on a fresh table
# (id bigint, name text, ts timestamp) created before the timed part:
#   block_executemany  psycopg2 executemany of $ROWS one-row INSERTs in its
#                      default transaction, then commit()
#   pipeline_batch     pgjdbc, autocommit off, PreparedStatement addBatch x
#                      $ROWS, executeBatch, commit (the extended-protocol
#                      pipeline); without java, pgx/v5's pgx.Batch in a tx
#   autocommit_single  psycopg2 autocommit, $AUTOCOMMIT_ROWS one-row INSERTs,
#                      mean ms per INSERT of the first 20 and the last 20
# After each case the row count is checked on both servers, and magmalake's
# snapshots and data files are counted from "t$snapshots" / "t$data_files".
# Run from the repository root, as root (PostgreSQL runs as user postgres).
#   ROWS (default 2000), AUTOCOMMIT_ROWS (default 200), REPEAT (default 5:
#   block_executemany and pipeline_batch report the median of REPEAT runs)
#   PGBIN (default /usr/lib/postgresql/15/bin)
#   MAGMALAKE_PORT (default 55442), PG_PORT (default 55443)
#   PYTHON (default /usr/bin/python3, with psycopg2)
#   PGJDBC_JAR (default /usr/share/java/postgresql.jar)
#   PIPELINE_CLIENT  jdbc or pgx (default jdbc if java is installed)
#   MAGMALAKE_CMD  command that starts magmalake listening on $MAGMALAKE_PORT
#                  (default: a binary built from ./cmd/magmalake serving a fresh
#                  data directory in the work directory)
set -eu
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
MAGMALAKE_PORT=${MAGMALAKE_PORT:-55442}
PG_PORT=${PG_PORT:-55443}
ROWS=${ROWS:-2000}
AUTOCOMMIT_ROWS=${AUTOCOMMIT_ROWS:-200}
REPEAT=${REPEAT:-5}
PYTHON=${PYTHON:-/usr/bin/python3}
PGJDBC_JAR=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
if [ -z "${PIPELINE_CLIENT:-}" ]; then
	if command -v java >/dev/null 2>&1 && [ -f "$PGJDBC_JAR" ]; then PIPELINE_CLIENT=jdbc; else PIPELINE_CLIENT=pgx; fi
fi

work=$(mktemp -d /tmp/magmalake-bench-inserts-XXXXXX)
chmod 777 "$work"
ml_pid=""
pgxdir=""
cleanup() {
	if [ -n "$ml_pid" ]; then kill "$ml_pid" 2>/dev/null || true; wait "$ml_pid" 2>/dev/null || true; fi
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
	if [ -n "$pgxdir" ]; then rm -rf "$pgxdir"; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- client programs -------------------------------------------------------
cat >"$work/inserts.py" <<'EOF'
# inserts.py MODE PORT TABLE N: MODE block or autocommit; prints seconds
# (and for autocommit the mean ms per INSERT of the first and last 20).
import datetime, sys, time
import psycopg2
mode, port, table, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
conn = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
conn.autocommit = True
cur = conn.cursor()
cur.execute("CREATE TABLE %s (id bigint, name text, ts timestamp)" % table)
base = datetime.datetime(2026, 1, 1)
rows = [(i, "name-%d" % i, base + datetime.timedelta(seconds=i)) for i in range(n)]
ins = "INSERT INTO %s VALUES (%%s, %%s, %%s)" % table
if mode == "block":
    conn.autocommit = False
    t0 = time.perf_counter()
    cur.executemany(ins, rows)
    conn.commit()
    print("%.3f" % (time.perf_counter() - t0))
else:
    lat = []
    t0 = time.perf_counter()
    for r in rows:
        s = time.perf_counter()
        cur.execute(ins, r)
        lat.append(time.perf_counter() - s)
    total = time.perf_counter() - t0
    k = max(1, min(20, n))
    print("%.3f %.2f %.2f" % (total, sum(lat[:k]) * 1000 / k, sum(lat[-k:]) * 1000 / k))
conn.close()
EOF

cat >"$work/Batch.java" <<'EOF'
// java -cp postgresql.jar Batch.java PORT TABLE N: prints seconds.
import java.sql.*;

public class Batch {
	public static void main(String[] a) throws Exception {
		int port = Integer.parseInt(a[0]);
		String table = a[1];
		int n = Integer.parseInt(a[2]);
		String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
		try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
			try (Statement s = c.createStatement()) {
				s.execute("CREATE TABLE " + table + " (id bigint, name text, ts timestamp)");
			}
			c.setAutoCommit(false);
			long base = Timestamp.valueOf("2026-01-01 00:00:00").getTime();
			long t0 = System.nanoTime();
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?)")) {
				for (int i = 0; i < n; i++) {
					ps.setLong(1, i);
					ps.setString(2, "name-" + i);
					ps.setTimestamp(3, new Timestamp(base + i * 1000L));
					ps.addBatch();
				}
				ps.executeBatch();
			}
			c.commit();
			System.out.printf("%.3f%n", (System.nanoTime() - t0) / 1e9);
		}
	}
}
EOF

pipeline() { # port table n
	if [ "$PIPELINE_CLIENT" = jdbc ]; then
		java -Duser.timezone=UTC -cp "$work/java:$PGJDBC_JAR" Batch "$@"
	else
		"$work/batch" "$@"
	fi
}

# --- build -----------------------------------------------------------------
if [ -z "${MAGMALAKE_CMD:-}" ]; then
	# A built binary, not "go run": the pid we kill is then the server's own.
	nice go build -o "$work/magmalake" ./cmd/magmalake
	MAGMALAKE_CMD="$work/magmalake serve --data $work/ml --listen 127.0.0.1:$MAGMALAKE_PORT"
fi
if [ "$PIPELINE_CLIENT" = jdbc ]; then
	mkdir "$work/java"
	nice javac -nowarn -d "$work/java" -cp "$PGJDBC_JAR" "$work/Batch.java"
else
	# Built inside the module for its pgx; "_" keeps the directory out of ./...
	pgxdir=$(mktemp -d "$PWD/bench/_inserts_pgx_XXXXXX")
	cat >"$pgxdir/main.go" <<'EOF'
// Command batch PORT TABLE N: pgx.Batch of N one-row INSERTs in a
// transaction; prints seconds.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	ctx := context.Background()
	table := os.Args[2]
	n, _ := strconv.Atoi(os.Args[3])
	conn, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:"+os.Args[1]+"/postgres")
	check(err)
	_, err = conn.Exec(ctx, "CREATE TABLE "+table+" (id bigint, name text, ts timestamp)")
	check(err)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t0 := time.Now()
	tx, err := conn.Begin(ctx)
	check(err)
	b := &pgx.Batch{}
	for i := 0; i < n; i++ {
		b.Queue("INSERT INTO "+table+" VALUES ($1, $2, $3)", int64(i), fmt.Sprintf("name-%d", i), base.Add(time.Duration(i)*time.Second))
	}
	check(tx.SendBatch(ctx, b).Close())
	check(tx.Commit(ctx))
	fmt.Printf("%.3f\n", time.Since(t0).Seconds())
	conn.Close(ctx)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
EOF
	nice go build -o "$work/batch" "./bench/$(basename "$pgxdir")"
	rm -rf "$pgxdir"
	pgxdir=""
fi

# --- servers ---------------------------------------------------------------
. "$(dirname "$0")/servers.sh"
start_servers

# --- cases -----------------------------------------------------------------
q() { # port sql: one value
	psql -X -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2"
}
failed=0
count_check() { # port table want label
	got=$(q "$1" "SELECT count(*) FROM $2") || got="error"
	if [ "$got" != "$3" ]; then
		echo "inserts: $4: count(*) of $2 is $got, want $3" >&2
		failed=1
	fi
}
ratio() {
	awk -v m="${1:-0}" -v p="${2:-0}" 'BEGIN { if (p > 0) printf "%.2f", m / p; else print "nan" }'
}
report() { # case rows table ml_s pg_s [extra]
	case "$4 $5" in *error*) failed=1 ;; esac
	count_check "$MAGMALAKE_PORT" "$3" "$2" "magmalake $1"
	count_check "$PG_PORT" "$3" "$2" "postgres $1"
	snaps=$(q "$MAGMALAKE_PORT" "SELECT count(*) FROM \"$3\$snapshots\"") || snaps="error"
	files=$(q "$MAGMALAKE_PORT" "SELECT count(*) FROM \"$3\$data_files\"") || files="error"
	echo "inserts case=$1 rows=$2 magmalake_s=$4 postgres_s=$5 ratio=$(ratio "$4" "$5") snapshots=$snaps data_files=$files postgres_snapshots=- postgres_data_files=-${6:+ $6}"
}

client() { # label command...: the client's output, or "error"
	label=$1
	shift
	"$@" || { echo "inserts: $label: client failed" >&2; echo error; }
}

median() { # values...: the middle one (the mean of the middle two)
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# repeated case label table command...: runs the client $REPEAT times on
# each server, alternating, each time into a fresh table <table>_<i>, and
# sets m and p to the medians (a shared 2-core machine is noisy); the last
# tables are the ones checked.
repeated() {
	label=$1 tbl=$2
	shift 2
	ms="" ps=""
	r=1
	while [ $r -le "$REPEAT" ]; do
		ms="$ms $(client "magmalake $label" "$@" "$MAGMALAKE_PORT" "${tbl}_$r" "$ROWS")"
		ps="$ps $(client "postgres $label" "$@" "$PG_PORT" "${tbl}_$r" "$ROWS")"
		r=$((r + 1))
	done
	case "$ms $ps" in *error*) m=error p=error; return ;; esac
	m=$(median $ms) p=$(median $ps)
}

repeated block_executemany t_block nice "$PYTHON" "$work/inserts.py" block
report block_executemany "$ROWS" "t_block_$REPEAT" "$m" "$p" "runs=$REPEAT"

repeated pipeline_batch t_pipeline pipeline
report pipeline_batch "$ROWS" "t_pipeline_$REPEAT" "$m" "$p" "client=$PIPELINE_CLIENT runs=$REPEAT"

m=$(client "magmalake autocommit_single" nice "$PYTHON" "$work/inserts.py" autocommit "$MAGMALAKE_PORT" t_auto "$AUTOCOMMIT_ROWS")
p=$(client "postgres autocommit_single" nice "$PYTHON" "$work/inserts.py" autocommit "$PG_PORT" t_auto "$AUTOCOMMIT_ROWS")
set -- $m error error
m=$1 mf=$2 ml=$3
set -- $p error error
report autocommit_single "$AUTOCOMMIT_ROWS" t_auto "$m" "$1" \
	"first20_ms=$mf last20_ms=$ml postgres_first20_ms=$2 postgres_last20_ms=$3"

exit $failed
