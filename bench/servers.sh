# Sourced by bench/wire.sh and bench/inserts.sh: starts a throwaway
# PostgreSQL 15 (fsync off, trust, C locale) in $work/pg on $PG_PORT and
# magmalake with $MAGMALAKE_CMD, waiting until it answers on
# $MAGMALAKE_PORT; sets ml_pid for the caller's cleanup.
start_servers() {
	runuser -u postgres -- "$PGBIN/initdb" -D "$work/pg" -A trust -U postgres -E UTF8 --locale=C --no-sync >/dev/null
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg" -w -l "$work/pg.log" \
		-o "-p $PG_PORT -k $work -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null

	# exec: the shell's pid becomes the server's.
	sh -c "exec $MAGMALAKE_CMD" >"$work/magmalake.log" 2>&1 &
	ml_pid=$!
	i=0
	until pg_isready -q -h 127.0.0.1 -p "$MAGMALAKE_PORT"; do
		i=$((i + 1))
		if [ $i -gt 120 ]; then echo "magmalake did not start: $(cat "$work/magmalake.log")" >&2; exit 1; fi
		sleep 0.5
	done
}
