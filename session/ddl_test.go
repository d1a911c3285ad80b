package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

func ddlLoad(t *testing.T, s *Session, schema, name string) *table.Table {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident(schema, name))
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func ddlExec(t *testing.T, s *Session, q string) *stmt.Result {
	t.Helper()
	p, err := s.Prepare(t.Context(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	res, err := s.Execute(t.Context(), p, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

func TestDDLSchemas(t *testing.T) {
	s := testSession(t)
	if r := ddlExec(t, s, "CREATE SCHEMA s1"); r.Tag != "CREATE SCHEMA" || len(r.Notices) != 0 {
		t.Fatalf("CREATE SCHEMA: %+v", r)
	}
	if r := ddlExec(t, s, "CREATE SCHEMA IF NOT EXISTS s1"); len(r.Notices) != 1 || !strings.Contains(r.Notices[0].Message, "already exists") {
		t.Fatalf("CREATE SCHEMA IF NOT EXISTS on an existing schema: notices %+v", r.Notices)
	}
	mustFail(t, s, pgerr.DuplicateSchema, "CREATE SCHEMA s1")
	mustQuery(t, s, "CREATE SCHEMA s2")
	_, rows := fndRows(t, s, "SHOW SCHEMAS")
	want := [][]string{{"s:public", "s:tester"}, {"s:s1", "s:tester"}, {"s:s2", "s:tester"}}
	if d := fndSameRows(rows, want, nil); d != "" {
		t.Fatalf("SHOW SCHEMAS: %s", d)
	}
	mustQuery(t, s, "CREATE TABLE s1.a (x int)")
	mustQuery(t, s, "CREATE TABLE s1.b (x int)")
	mustQuery(t, s, "INSERT INTO s1.a VALUES (1)")
	_, rows = fndRows(t, s, "SHOW TABLES FROM s1")
	if d := fndSameRows(rows, [][]string{{"s:s1", "s:a", "s:table", "s:tester"}, {"s:s1", "s:b", "s:table", "s:tester"}}, nil); d != "" {
		t.Fatalf("SHOW TABLES FROM s1: %s", d)
	}
	mustFail(t, s, pgerr.DependentObjectsStillExist, "DROP SCHEMA s1")
	if _, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("s1", "a")); err != nil {
		t.Fatalf("refused DROP SCHEMA dropped a table: %v", err)
	}
	r := ddlExec(t, s, "DROP SCHEMA s1 CASCADE")
	if len(r.Notices) != 2 {
		t.Fatalf("DROP SCHEMA CASCADE notices: %+v", r.Notices)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("s1", name)); !errors.Is(err, lake.ErrNoSuchTable) && !errors.Is(err, lake.ErrNoSuchNamespace) {
			t.Fatalf("s1.%s after DROP SCHEMA CASCADE: %v", name, err)
		}
	}
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM s1.a")
	mustFail(t, s, pgerr.InvalidSchemaName, "DROP SCHEMA s1")
	if r := ddlExec(t, s, "DROP SCHEMA IF EXISTS s1"); r.Tag != "DROP SCHEMA" || len(r.Notices) != 1 {
		t.Fatalf("DROP SCHEMA IF EXISTS on a missing schema: %+v", r)
	}
	mustQuery(t, s, "DROP SCHEMA s2")
	_, rows = fndRows(t, s, "SHOW SCHEMAS")
	if d := fndSameRows(rows, want[:1], nil); d != "" {
		t.Fatalf("SHOW SCHEMAS after drops: %s", d)
	}
}

// ddlTypes pairs each SQL type with the Iceberg type it must be stored as
// and the name DESCRIBE reports for it.
var ddlTypes = []struct {
	sqlType  string
	ice      iceberg.Type
	describe string
}{
	{"boolean", iceberg.PrimitiveTypes.Bool, "boolean"},
	{"smallint", iceberg.PrimitiveTypes.Int32, "smallint"}, // stored as int, declared type kept
	{"int", iceberg.PrimitiveTypes.Int32, "integer"},
	{"integer", iceberg.PrimitiveTypes.Int32, "integer"},
	{"int4", iceberg.PrimitiveTypes.Int32, "integer"},
	{"bigint", iceberg.PrimitiveTypes.Int64, "bigint"},
	{"int8", iceberg.PrimitiveTypes.Int64, "bigint"},
	{"real", iceberg.PrimitiveTypes.Float32, "real"},
	{"float4", iceberg.PrimitiveTypes.Float32, "real"},
	{"double precision", iceberg.PrimitiveTypes.Float64, "double precision"},
	{"float8", iceberg.PrimitiveTypes.Float64, "double precision"},
	{"numeric(10,2)", iceberg.DecimalTypeOf(10, 2), "numeric(10,2)"},
	{"decimal(38,0)", iceberg.DecimalTypeOf(38, 0), "numeric(38,0)"},
	{"text", iceberg.PrimitiveTypes.String, "text"},
	{"varchar", iceberg.PrimitiveTypes.String, "text"},
	{"varchar(20)", iceberg.PrimitiveTypes.String, "character varying(20)"}, // declared length kept
	{"char(3)", iceberg.PrimitiveTypes.String, "character(3)"},
	{"bytea", iceberg.PrimitiveTypes.Binary, "bytea"},
	{"date", iceberg.PrimitiveTypes.Date, "date"},
	{"time", iceberg.PrimitiveTypes.Time, "time without time zone"},
	{"timestamp", iceberg.PrimitiveTypes.Timestamp, "timestamp without time zone"},
	{"timestamptz", iceberg.PrimitiveTypes.TimestampTz, "timestamp with time zone"},
	{"timestamp with time zone", iceberg.PrimitiveTypes.TimestampTz, "timestamp with time zone"},
	{"uuid", iceberg.PrimitiveTypes.UUID, "uuid"},
}

func TestCreateTableTypes(t *testing.T) {
	s := testSession(t)
	var defs []string
	var want [][]string
	for i, c := range ddlTypes {
		notNull, nullable := "", ""
		if i%2 == 0 {
			notNull, nullable = " NOT NULL", "not null"
		}
		defs = append(defs, fmt.Sprintf("c%d %s%s", i, c.sqlType, notNull))
		want = append(want, []string{"s:" + fmt.Sprintf("c%d", i), "s:" + c.describe, "s:", "s:" + nullable, "s:"})
	}
	mustQuery(t, s, "CREATE TABLE every ("+strings.Join(defs, ", ")+")")
	fields := ddlLoad(t, s, "public", "every").Schema().Fields()
	if len(fields) != len(ddlTypes) {
		t.Fatalf("%d fields, want %d", len(fields), len(ddlTypes))
	}
	for i, f := range fields {
		c := ddlTypes[i]
		if f.Name != fmt.Sprintf("c%d", i) || !f.Type.Equals(c.ice) || f.Required != (i%2 == 0) {
			t.Errorf("%s: stored as %s %s required=%v, want %s required=%v", c.sqlType, f.Name, f.Type, f.Required, c.ice, i%2 == 0)
		}
	}
	_, rows := fndRows(t, s, "DESCRIBE every")
	if d := fndSameRows(rows, want, nil); d != "" {
		t.Fatalf("DESCRIBE: %s", d)
	}
	_, rows = fndRows(t, s, "SHOW TABLES")
	if d := fndSameRows(rows, [][]string{{"s:public", "s:every", "s:table", "s:tester"}}, nil); d != "" {
		t.Fatalf("SHOW TABLES: %s", d)
	}
	if r := ddlExec(t, s, "CREATE TABLE IF NOT EXISTS every (x int)"); len(r.Notices) != 1 {
		t.Fatalf("CREATE TABLE IF NOT EXISTS on an existing table: %+v", r)
	}
	if n := len(ddlLoad(t, s, "public", "every").Schema().Fields()); n != len(ddlTypes) {
		t.Fatalf("CREATE TABLE IF NOT EXISTS replaced the table (%d fields)", n)
	}
}

func TestPartitionTransforms(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE SCHEMA parts")
	cases := []struct {
		clause, source, transform string
	}{
		{"v", "v", "identity"},
		{"year(ts)", "ts", "year"}, {"years(d)", "d", "year"},
		{"month(d)", "d", "month"}, {"months(tz)", "tz", "month"},
		{"day(ts)", "ts", "day"}, {"days(tz)", "tz", "day"},
		{"hour(ts)", "ts", "hour"}, {"hours(tz)", "tz", "hour"},
		{"bucket(16, v)", "v", "bucket[16]"}, {"bucket(3, u)", "u", "bucket[3]"},
		{"truncate(4, v)", "v", "truncate[4]"}, {"truncate(10, n)", "n", "truncate[10]"},
	}
	for i, c := range cases {
		name := fmt.Sprintf("p%d", i)
		mustQuery(t, s, fmt.Sprintf("CREATE TABLE parts.%s (v text, ts timestamp, tz timestamptz, d date, u uuid, n bigint) PARTITIONED BY (%s)", name, c.clause))
		tbl := ddlLoad(t, s, "parts", name)
		spec := tbl.Spec()
		var got []string
		for _, f := range spec.Fields() {
			src, _ := tbl.Schema().FindColumnName(f.SourceID())
			got = append(got, src+":"+f.Transform.String())
		}
		if want := c.source + ":" + c.transform; len(got) != 1 || got[0] != want {
			t.Errorf("PARTITIONED BY (%s): spec %v, want [%s]", c.clause, got, want)
		}
		mustQuery(t, s, fmt.Sprintf("INSERT INTO parts.%s VALUES ('abcdef', '2024-03-04 05:06:07', '2024-03-04 05:06:07+00', '2024-03-04', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 42)", name))
		_, rows := fndRows(t, s, fmt.Sprintf("SELECT v, n FROM parts.%s", name))
		if d := fndSameRows(rows, [][]string{{"s:abcdef", "i:42"}}, nil); d != "" {
			t.Errorf("read back from %s: %s", c.clause, d)
		}
	}
	// Several keys at once; a second decimal key is refused up front (an
	// iceberg-go limitation) whatever its type.
	mustQuery(t, s, "CREATE TABLE parts.multi (a numeric(10,2), b text, t timestamptz) PARTITIONED BY (a, truncate(5, b), day(t))")
	spec := ddlLoad(t, s, "parts", "multi").Spec()
	if n := spec.NumFields(); n != 3 {
		t.Fatalf("multi: %d partition fields, want 3", n)
	}
	mustQuery(t, s, "INSERT INTO parts.multi VALUES (1.25, 'abcdefg', '2024-01-01 00:00:00+00'), (NULL, NULL, NULL)")
	_, rows := fndRows(t, s, "SELECT a, b FROM parts.multi WHERE t IS NOT NULL")
	if d := fndSameRows(rows, [][]string{{"n:5/4", "s:abcdefg"}}, nil); d != "" {
		t.Fatal(d)
	}
	mustFail(t, s, pgerr.FeatureNotSupported, "CREATE TABLE parts.dec2 (a numeric(10,2), b numeric(10,2)) PARTITIONED BY (a, b)")
	mustFail(t, s, pgerr.FeatureNotSupported, "CREATE TABLE parts.dec3 (a numeric(10,2)) PARTITIONED BY (a, truncate(5, a))")
	mustFail(t, s, pgerr.UndefinedColumn, "CREATE TABLE parts.bad (a int) PARTITIONED BY (nosuch)")
	mustFail(t, s, pgerr.InvalidParameterValue, "CREATE TABLE parts.bad (a int) PARTITIONED BY (bucket(0, a))")
}

func TestTableProperties(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE v2 (a int)")
	mustQuery(t, s, "CREATE TABLE w (a int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'my.key' = 'x')")
	mustQuery(t, s, "CREATE TABLE tp (a int) TBLPROPERTIES ('write.update.mode' = 'copy-on-write')")
	if v := ddlLoad(t, s, "public", "v2").Metadata().Version(); v != 2 {
		t.Fatalf("default format-version %d, want 2", v)
	}
	w := ddlLoad(t, s, "public", "w")
	if v := w.Metadata().Version(); v != 3 {
		t.Fatalf("WITH format-version 3 gave %d", v)
	}
	if p := w.Properties(); p["write.delete.mode"] != "merge-on-read" || p["my.key"] != "x" {
		t.Fatalf("WITH properties: %v", p)
	}
	if p := ddlLoad(t, s, "public", "tp").Properties(); p["write.update.mode"] != "copy-on-write" {
		t.Fatalf("TBLPROPERTIES: %v", p)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "CREATE TABLE badmode (a int) WITH ('write.delete.mode' = 'sometimes')")
	mustFail(t, s, pgerr.InvalidParameterValue, "CREATE TABLE badver (a int) WITH ('format-version' = '7')")

	mustQuery(t, s, "INSERT INTO v2 VALUES (1), (2)")
	mustQuery(t, s, "ALTER TABLE v2 SET ('k1' = 'a', 'k2' = 'b')")
	mustQuery(t, s, "ALTER TABLE v2 SET TBLPROPERTIES ('k3' = 'c')")
	mustQuery(t, s, "ALTER TABLE v2 RESET ('k1')")
	p := ddlLoad(t, s, "public", "v2").Properties()
	if _, has := p["k1"]; has || p["k2"] != "b" || p["k3"] != "c" {
		t.Fatalf("after SET/RESET: %v", p)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE v2 SET ('write.delete.mode' = 'never')")
	mustQuery(t, s, "ALTER TABLE v2 SET ('format-version' = '3')")
	if v := ddlLoad(t, s, "public", "v2").Metadata().Version(); v != 3 {
		t.Fatalf("upgrade to 3 gave %d", v)
	}
	mustQuery(t, s, "ALTER TABLE v2 SET ('format-version' = '3')")
	mustFail(t, s, pgerr.FeatureNotSupported, "ALTER TABLE v2 SET ('format-version' = '2')")
	mustFail(t, s, pgerr.InvalidParameterValue, "ALTER TABLE v2 RESET ('format-version')")
	if v := ddlLoad(t, s, "public", "v2").Metadata().Version(); v != 3 {
		t.Fatalf("refused downgrade left version %d", v)
	}
	// The upgraded table keeps its rows and takes new ones.
	mustQuery(t, s, "INSERT INTO v2 VALUES (3)")
	_, rows := fndRows(t, s, "SELECT a FROM v2")
	if d := fndSameRows(fndSorted(rows), [][]string{{"i:1"}, {"i:2"}, {"i:3"}}, nil); d != "" {
		t.Fatal(d)
	}
	mustFail(t, s, pgerr.UndefinedTable, "ALTER TABLE nosuch SET ('a' = 'b')")
}

func TestDropTablePurge(t *testing.T) {
	s := testSession(t)
	for _, name := range []string{"kept", "purged"} {
		mustQuery(t, s, "CREATE TABLE "+name+" (a int, b text) PARTITIONED BY (a)")
		mustQuery(t, s, "INSERT INTO "+name+" VALUES (1, 'x'), (2, 'y')")
		mustQuery(t, s, "INSERT INTO "+name+" VALUES (3, 'z')")
	}
	keptDir, purgedDir := fndTableDir(t, s, "public", "kept"), fndTableDir(t, s, "public", "purged")
	keptFiles, purgedFiles := fndFiles(t, keptDir), fndFiles(t, purgedDir)
	if ddlCount(purgedFiles, "data/") != 3 {
		t.Fatalf("expected 3 data files before the drop, have %v", purgedFiles)
	}
	mustQuery(t, s, "DROP TABLE kept")
	mustQuery(t, s, "DROP TABLE purged PURGE")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM kept")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM purged")
	if got := fndFiles(t, keptDir); strings.Join(got, ",") != strings.Join(keptFiles, ",") {
		t.Errorf("DROP TABLE without PURGE touched files:\nbefore %v\nafter  %v", keptFiles, got)
	}
	if got := fndFiles(t, purgedDir); ddlCount(got, "data/")+ddlCount(got, "metadata/") != 0 {
		t.Errorf("DROP TABLE PURGE left files: %v", got)
	}
	if r := ddlExec(t, s, "DROP TABLE IF EXISTS purged"); r.Tag != "DROP TABLE" || len(r.Notices) != 1 {
		t.Fatalf("DROP TABLE IF EXISTS on a missing table: %+v", r)
	}
	mustQuery(t, s, "CREATE TABLE purged (a int)")
	_, rows := fndRows(t, s, "SELECT count(*) FROM purged")
	if d := fndSameRows(rows, [][]string{{"i:0"}}, nil); d != "" {
		t.Fatalf("recreated table: %s", d)
	}
}

func ddlCount(files []string, prefix string) int {
	n := 0
	for _, f := range files {
		if strings.HasPrefix(f, prefix) {
			n++
		}
	}
	return n
}
