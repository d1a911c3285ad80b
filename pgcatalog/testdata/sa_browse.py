# Prints what SQLAlchemy's inspector answers, for the Go test to compare
# between servers. argv[1] is the database URL.
import sys
from sqlalchemy import create_engine, inspect

engine = create_engine(sys.argv[1])
insp = inspect(engine)
for schema in [None, "s2"]:
    for table in insp.get_table_names(schema=schema):
        print("table", schema, table)
        for col in insp.get_columns(table, schema=schema):
            print("  column", col["name"], repr(col["type"]), col["nullable"], col["default"], col["comment"])
print("schemas", [s for s in insp.get_schema_names() if s != "information_schema"])
