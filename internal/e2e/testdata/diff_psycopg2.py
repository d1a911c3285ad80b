# What psycopg2 users do, as one deterministic script: the default
# (non-autocommit) mode with DDL then rollback and commit, typed parameters
# of every Python type psycopg2 adapts, execute_values, named (server-side)
# cursors with itersize, and lists as = ANY(%s). Every value read is printed
# as type name and repr, so the Go test (TestDiffPsycopg2) can compare the
# output line by line with the same program's on PostgreSQL 15.
import datetime
import decimal
import os
import uuid

import psycopg2
import psycopg2.extras

psycopg2.extras.register_uuid()

T = os.environ["E2E_TABLE"]
conn = psycopg2.connect(host=os.environ["E2E_HOST"], port=os.environ["E2E_PORT"],
                        user=os.environ["E2E_USER"], password=os.environ.get("E2E_PASSWORD") or None,
                        dbname=os.environ["E2E_DB"])


def show(v):
    if isinstance(v, memoryview):
        return "memoryview %r" % bytes(v)
    return "%s %r" % (type(v).__name__, v)


def dump(what, cur):
    print(what, "columns", " ".join("%s:%d" % (d.name, d.type_code) for d in cur.description))
    n = 0
    for row in cur:
        n += 1
        print(what, "row", n, " | ".join(show(v) for v in row))
    print(what, "rowcount", cur.rowcount)


def state(what, f):
    """Runs f and prints the SQLSTATE it fails with, or ok."""
    try:
        f()
        print(what, "ok")
    except psycopg2.Error as e:
        print(what, "error", e.pgcode)


cur = conn.cursor()

# Default mode: the first statement opens a transaction, DDL included.
cur.execute("CREATE TABLE %s_rb (id integer, s text)" % T)
cur.execute("INSERT INTO %s_rb VALUES (1, 'a'), (2, 'b')" % T)
print("rollback insert", cur.rowcount, "status", conn.status)
conn.rollback()
state("after rollback", lambda: cur.execute("SELECT * FROM %s_rb" % T))
conn.rollback()

# The bytea column is not called "by", as DiffJdbc.java's is: magmalake's
# parser takes BY for a reserved word in WHERE (PostgreSQL does not).
cur.execute("""CREATE TABLE %s (id integer NOT NULL, i2 smallint, i8 bigint, f4 real,
    f8 double precision, n numeric(20,5), s text, v varchar(10), b boolean, d date,
    tm time, ts timestamp, tz timestamptz, bt bytea, u uuid)""" % T)
conn.commit()

utc = datetime.timezone.utc
plus2 = datetime.timezone(datetime.timedelta(hours=2))
rows = [
    (1, 12, 1234567890123, 1.5, 2.25, decimal.Decimal("123.45"), "hello", "varchar", True,
     datetime.date(2024, 4, 11), datetime.time(10, 11, 12), datetime.datetime(2024, 4, 11, 10, 11, 12, 123456),
     datetime.datetime(2024, 4, 11, 23, 59, 59, 500000, tzinfo=utc), b"\x00\x01\xfe\xff",
     uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
    (2, -32768, -9223372036854775808, -0.1, -1e300, decimal.Decimal("-999999999999999.99999"),
     "it's \"quoted\" \\ back", "", False, datetime.date(1970, 1, 1), datetime.time(0, 0),
     datetime.datetime(1999, 12, 31, 23, 59, 59), datetime.datetime(2000, 1, 1, 2, 0, tzinfo=plus2),
     memoryview(b""), uuid.UUID(int=0)),
    (3, 32767, 9223372036854775807, 3.4e38, 5e-324, decimal.Decimal("0.00001"), "ünïcødé ✓",
     "ten chars!", True, datetime.date(2038, 1, 19), datetime.time(23, 59, 59, 999999),
     datetime.datetime(2038, 1, 19, 3, 14, 7, 999999), datetime.datetime(2024, 2, 29, 12, 0, tzinfo=utc),
     bytearray(b"bytes"), uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff")),
    (4, 0, 0, 0.0, 0.1, decimal.Decimal("1E+5"), None, None, None, None, None, None, None, None, None),
    (5, None, None, None, None, decimal.Decimal("3.141592653"), "x", "y", False,
     datetime.date(2000, 2, 29), datetime.time(12, 34, 56, 700000), datetime.datetime(2000, 2, 29, 12, 34, 56, 700000),
     datetime.datetime(2000, 2, 29, 12, 34, 56, 700000, tzinfo=datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))),
     b"*", uuid.UUID("123e4567-e89b-12d3-a456-426614174000")),
]
ins = "INSERT INTO %s VALUES (%%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s)" % T
for r in rows:
    cur.execute(ins, r)
    print("insert", r[0], cur.rowcount, "status", conn.status)
conn.commit()

cur.execute("SELECT * FROM %s ORDER BY id" % T)
dump("typed", cur)

# Parameters in WHERE, one per type.
for col, val in [("i2", 12), ("i8", 9223372036854775807), ("n", decimal.Decimal("123.450")), ("n", 123.45),
                 ("f8", 2.25), ("s", "hello"), ("v", ""), ("b", True), ("d", datetime.date(2024, 4, 11)),
                 ("tm", datetime.time(23, 59, 59, 999999)), ("ts", datetime.datetime(2024, 4, 11, 10, 11, 12, 123456)),
                 ("tz", datetime.datetime(2024, 2, 29, 14, 0, tzinfo=plus2)), ("tz", datetime.datetime(2024, 2, 29, 12, 0)),
                 ("bt", b"*"), ("u", uuid.UUID(int=0)), ("s", None)]:
    cur.execute("SELECT id FROM %s WHERE %s = %%s ORDER BY id" % (T, col), (val,))
    print("where", col, show(val), [r[0] for r in cur.fetchall()])

# Parameters in the select list: psycopg2 inlines literals, PostgreSQL
# types them. Decimal('NaN') is left out: magmalake has no numeric NaN
# (0A000).
for val in [1, -2 ** 40, 1.5, float("inf"), float("nan"), decimal.Decimal("-0.50"),
            "text", True, None, datetime.date(2024, 1, 2), datetime.time(3, 4, 5), datetime.datetime(2024, 1, 2, 3, 4, 5),
            datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=plus2), datetime.timedelta(days=1, seconds=5),
            b"\x00x", uuid.UUID(int=1), [1, 2, 3], ["a", None, "c"], []]:
    try:
        cur.execute("SELECT %s AS v", (val,))
        r = cur.fetchone()[0]
        print("select", show(val), "->", cur.description[0].type_code, show(r))
    except psycopg2.Error as e:
        print("select", show(val), "-> error", e.pgcode)
    conn.rollback()

# Lists as = ANY(%s).
for col, vals in [("id", [1, 3, 99]), ("s", ["hello", "x", "nope"]), ("id", []), ("d", [datetime.date(2024, 4, 11)]),
                  ("n", [decimal.Decimal("0.00001"), decimal.Decimal("1E+5")]), ("u", [uuid.UUID(int=0)])]:
    try:
        cur.execute("SELECT id FROM %s WHERE %s = ANY(%%s) ORDER BY id" % (T, col), (vals,))
        print("any", col, show(vals), [r[0] for r in cur.fetchall()])
    except psycopg2.Error as e:
        print("any", col, show(vals), "error", e.pgcode)
    conn.rollback()
cur.execute("SELECT id FROM %s WHERE id <> ALL(%%s) ORDER BY id" % T, ([1, 2],))
print("all", [r[0] for r in cur.fetchall()])
cur.execute("SELECT id FROM %s WHERE s IN %%s ORDER BY id" % T, (("hello", "x"),))
print("in tuple", [r[0] for r in cur.fetchall()])
conn.rollback()

# execute_values: several pages, one INSERT each; rowcount is the last page's.
cur.execute("CREATE TABLE %s_ev (id integer, s text, n numeric(10,2), d date)" % T)
vals = [(i, "v%d" % i if i % 4 else None, decimal.Decimal(i) / 4, datetime.date(2024, 1, 1) + datetime.timedelta(days=i))
        for i in range(1, 24)]
psycopg2.extras.execute_values(cur, "INSERT INTO %s_ev VALUES %%s" % T, vals, page_size=10)
print("execute_values rowcount", cur.rowcount)
psycopg2.extras.execute_batch(cur, "UPDATE %s_ev SET s = %%s WHERE id = %%s" % T, [("one", 1), ("two", 2), ("none", 99)])
print("execute_batch rowcount", cur.rowcount)
cur.executemany("DELETE FROM %s_ev WHERE id = %%s" % T, [(20,), (21,), (22,)])
print("executemany rowcount", cur.rowcount)
conn.commit()

# Named cursors: DECLARE in the transaction, FETCH itersize rows at a time.
named = conn.cursor(name="diff_named")
named.itersize = 4
named.execute("SELECT id, s, n, d FROM %s_ev WHERE id > %%s ORDER BY id" % T, (2,))
n = 0
for row in named:
    n += 1
    print("named", n, " | ".join(show(v) for v in row))
print("named rownumber", named.rownumber)
named.close()
named = conn.cursor(name="diff_named2")
named.execute("SELECT id FROM %s_ev ORDER BY id" % T)
print("named fetchmany", [r[0] for r in named.fetchmany(3)], [r[0] for r in named.fetchmany(2)])
print("named fetchone", named.fetchone())
print("named fetchall", len(named.fetchall()))
named.close()
conn.commit()
named = conn.cursor(name="diff_named3", withhold=True)
named.execute("SELECT count(*), sum(n) FROM %s_ev" % T)
conn.commit()
print("withhold", [show(v) for v in named.fetchone()])
named.close()

# DictCursor and RealDictCursor read the same rows by name.
dc = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
dc.execute("SELECT id, s FROM %s_ev WHERE id <= 3 ORDER BY id" % T)
print("realdict", dc.fetchall())
conn.commit()

# SET inside a transaction is undone by its rollback. (SET TIME ZONE to
# anything but UTC is left out: magmalake sessions run in UTC, 0A000.)
cur.execute("SET application_name = 'diff'")
cur.execute("SHOW application_name")
print("application_name", cur.fetchone())
conn.rollback()
cur.execute("SHOW application_name")
print("application_name after rollback", cur.fetchone())
conn.commit()

# set_session: the isolation level and read-only mode of the next
# transactions, autocommit for DDL outside any.
conn.set_session(isolation_level="REPEATABLE READ", readonly=True)
cur.execute("SELECT count(*) FROM %s" % T)
print("repeatable read", cur.fetchone())
cur.execute("SHOW transaction_isolation")
print("isolation", cur.fetchone())
state("read-only insert", lambda: cur.execute("INSERT INTO %s (id) VALUES (99)" % T))
conn.rollback()
conn.set_session(isolation_level="DEFAULT", readonly=False)
conn.autocommit = True
cur.execute("CREATE TABLE %s_ac (id integer)" % T)
cur.execute("INSERT INTO %s_ac VALUES (1)" % T)
print("autocommit status", conn.status, cur.rowcount)
conn.autocommit = False

state("division", lambda: cur.execute("SELECT 1/0"))
print("status after error", conn.status)
state("in failed transaction", lambda: cur.execute("SELECT 1"))
conn.rollback()
cur.execute("SELECT 2")
print("after rollback", cur.fetchone())
conn.close()
