# Startup options through psycopg2 (libpq's options=), as one deterministic
# script: each options string, then what the session shows, or the refusal
# as libpq reports it. The Go test (TestDiffStartupOptionsClients) compares
# the output with the same program's on PostgreSQL 15.
import os
import re

import psycopg2

OPTIONS = [
    "-c statement_timeout=30s",
    "--statement-timeout=31s -c search_path=a,\\ b",
    "-c DateStyle=German",
    "-c statement_timeout=abc",
    "-c no_such_parameter=1",
    "-c jit=maybe",
    "statement_timeout=1",
]

for opts in OPTIONS:
    print("## options=%r" % opts)
    try:
        conn = psycopg2.connect(host=os.environ["E2E_HOST"], port=os.environ["E2E_PORT"],
                                user=os.environ["E2E_USER"], password=os.environ.get("E2E_PASSWORD") or None,
                                dbname=os.environ["E2E_DB"], options=opts)
    except psycopg2.OperationalError as e:
        # libpq names the server ("connection to server at ... failed:").
        print("refused", re.sub(r'connection to server at "[^"]*", port \d+ failed: ', "", str(e)).strip())
        continue
    cur = conn.cursor()
    for name in ("statement_timeout", "search_path", "DateStyle"):
        cur.execute("SHOW " + name)
        print(name, cur.fetchone()[0])
    cur.execute("RESET ALL")
    cur.execute("SHOW statement_timeout")
    print("after RESET ALL statement_timeout", cur.fetchone()[0])
    conn.close()
