"""The e2e scenario through SQLAlchemy (psycopg2 dialect): its connect-time
queries (version, current_schema, standard_conforming_strings, hstore
lookup) run first; prints the transcript the Go test checks."""
import os

import sqlalchemy as sa

E = os.environ


def name(i):
    return None if i % 5 == 0 else "n%d" % i


def main():
    table = E["E2E_TABLE"]
    rows = int(E["E2E_ROWS"])
    deletes = [int(d) for d in E["E2E_DELETES"].split(",")]
    deletes.append(deletes[0])
    url = sa.engine.URL.create("postgresql+psycopg2", username=E["E2E_USER"], password=E["E2E_PASSWORD"] or None,
                               host=E["E2E_HOST"], port=int(E["E2E_PORT"]), database="e2e",
                               query={"sslmode": "disable"})
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text("CREATE TABLE %s (id bigint NOT NULL, name text, score double precision)" % table))
        res = conn.execute(sa.text("INSERT INTO %s VALUES (:id, :name, :score)" % table),
                           [{"id": i, "name": name(i), "score": i + 0.5} for i in range(1, rows + 1)])
        print("insert %d" % conn.execute(sa.text("SELECT count(*) FROM " + table)).scalar())
        for i in deletes:
            res = conn.execute(sa.text("DELETE FROM %s WHERE id = :id" % table), {"id": i})
            print("delete %d %d" % (i, res.rowcount))
        res = conn.execute(sa.text("SELECT id, name, score FROM %s WHERE id > :lo ORDER BY id" % table), {"lo": 0})
        while True:
            batch = res.fetchmany(3)
            if not batch:
                break
            for i, n, score in batch:
                extra = "" if score == i + 0.5 else " (score %r)" % score
                print("row %d %s%s" % (i, "NULL" if n is None else n, extra))
        try:
            conn.execute(sa.text("SELECT * FROM no_such_table"))
            print("error none")
        except sa.exc.DBAPIError as e:
            print("error %s" % e.orig.pgcode)
        print("after-error %d" % conn.execute(sa.text("SELECT 1")).scalar())


main()
