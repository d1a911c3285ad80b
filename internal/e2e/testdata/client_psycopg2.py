"""The e2e scenario through psycopg2; prints the transcript the Go test checks."""
import io
import os
import sys

import psycopg2

E = os.environ


def name(i):
    return None if i % 5 == 0 else "n%d" % i


def main():
    table = E["E2E_TABLE"]
    rows, copy_rows = int(E["E2E_ROWS"]), int(E["E2E_COPY_ROWS"])
    deletes = [int(d) for d in E["E2E_DELETES"].split(",")]
    deletes.append(deletes[0])
    conn = psycopg2.connect(host=E["E2E_HOST"], port=E["E2E_PORT"], user=E["E2E_USER"],
                            password=E["E2E_PASSWORD"], dbname="e2e", sslmode="disable")
    cur = conn.cursor()
    # psycopg2's default: the driver opens a transaction block, DDL included.
    cur.execute("CREATE TABLE %s (id bigint NOT NULL, name text, score double precision)" % table)
    cur.executemany("INSERT INTO " + table + " VALUES (%s, %s, %s)",
                    [(i, name(i), i + 0.5) for i in range(1, rows + 1)])
    conn.commit()
    conn.autocommit = True
    cur.execute("SELECT count(*) FROM " + table)
    print("insert %d" % cur.fetchone()[0])
    for i in deletes:
        cur.execute("DELETE FROM " + table + " WHERE id = %s", (i,))
        print("delete %d %d" % (i, cur.rowcount))
    cur.execute("SELECT id, name, score FROM " + table + " WHERE id > %s ORDER BY id", (0,))
    while True:
        batch = cur.fetchmany(3)
        if not batch:
            break
        for i, n, score in batch:
            extra = "" if score == i + 0.5 else " (score %r)" % score
            print("row %d %s%s" % (i, "NULL" if n is None else n, extra))
    try:
        cur.execute("SELECT * FROM no_such_table")
        print("error none")
    except psycopg2.Error as e:
        print("error %s" % e.pgcode)
    cur.execute("SELECT 1")
    print("after-error %d" % cur.fetchone()[0])
    data = "".join("%d\tc%d\t0.25\n" % (i, i) for i in range(rows + 1, rows + copy_rows + 1))
    cur.copy_expert("COPY %s FROM STDIN" % table, io.StringIO(data))
    print("copy %d" % cur.rowcount)
    cur.execute("SELECT count(*) FROM " + table)
    print("count %d" % cur.fetchone()[0])
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT id, name FROM %s ORDER BY id) TO STDOUT WITH (FORMAT csv)" % table, out)
    sys.stderr.write(out.getvalue())
    conn.close()


main()
