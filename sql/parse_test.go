package sql

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func parseOne(t *testing.T, q string) Statement {
	t.Helper()
	st, err := ParseOne(q)
	if err != nil {
		t.Fatalf("ParseOne(%q): %v", q, err)
	}
	if st.Text() != strings.TrimSpace(strings.TrimRight(strings.TrimSpace(q), ";")) {
		t.Errorf("Text() = %q for %q", st.Text(), q)
	}
	return st
}

func parsePtrBool(b bool) *bool { return &b }

func TestParseDDL(t *testing.T) {
	cases := []struct {
		q    string
		want Statement
	}{
		{"CREATE SCHEMA s", &CreateSchema{Name: "s"}},
		{`create schema if not exists "My"`, &CreateSchema{Name: "My", IfNotExists: true}},
		{"DROP SCHEMA IF EXISTS s CASCADE", &DropSchema{Name: "s", IfExists: true, Cascade: true}},
		{"drop schema s restrict", &DropSchema{Name: "s"}},
		{"DROP TABLE IF EXISTS s.T PURGE", &DropTable{Name: TableName{"s", "t"}, IfExists: true, Purge: true}},
		{`drop table "S"."T"`, &DropTable{Name: TableName{"S", "T"}}},
		{"ALTER TABLE t SET ('format-version' = '3', 'write.delete.mode'='merge-on-read')",
			&AlterTableProperties{Name: TableName{Table: "t"}, Set: map[string]string{"format-version": "3", "write.delete.mode": "merge-on-read"}}},
		{"alter table s.t set tblproperties ('a' = 'b')", &AlterTableProperties{Name: TableName{"s", "t"}, Set: map[string]string{"a": "b"}}},
		{"ALTER TABLE t RESET ('a', 'b')", &AlterTableProperties{Name: TableName{Table: "t"}, Reset: []string{"a", "b"}}},
		{"ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a')", &AlterTableProperties{Name: TableName{Table: "t"}, Reset: []string{"a"}}},
		{"ALTER TABLE s.t ADD COLUMN IF NOT EXISTS c varchar(3) NOT NULL, DROP COLUMN d CASCADE, ALTER COLUMN e TYPE bigint, ALTER f SET NOT NULL, alter g drop not null, add h int",
			&AlterTable{Name: TableName{"s", "t"}, Actions: []AlterAction{
				{Kind: AlterAddColumn, Name: "c", IfExists: true, Column: ColumnDef{Name: "c", Type: Type{Kind: KindVarchar, Length: 3}, NotNull: true}},
				{Kind: AlterDropColumn, Name: "d"},
				{Kind: AlterColumnType, Name: "e", Column: ColumnDef{Name: "e", Type: Int64}},
				{Kind: AlterSetNotNull, Name: "f"},
				{Kind: AlterDropNotNull, Name: "g"},
				{Kind: AlterAddColumn, Name: "h", Column: ColumnDef{Name: "h", Type: Int32}}}}},
		{"alter table if exists t rename column a to b", &AlterTable{Name: TableName{Table: "t"}, IfExists: true, Actions: []AlterAction{{Kind: AlterRenameColumn, Name: "a", NewName: "b"}}}},
		{"ALTER TABLE t ADD PARTITION FIELD bucket(16, id) AS shard", &AlterTable{Name: TableName{Table: "t"}, Actions: []AlterAction{
			{Kind: AlterAddPartitionField, Partition: PartitionField{Transform: "bucket", Column: "id", Param: 16}, PartName: "shard"}}}},
		{"ALTER TABLE t DROP PARTITION FIELD days(ts)", &AlterTable{Name: TableName{Table: "t"}, Actions: []AlterAction{
			{Kind: AlterDropPartitionField, Old: PartitionField{Transform: "day", Column: "ts"}}}}},
		{"ALTER TABLE t REPLACE PARTITION FIELD shard WITH truncate(4, s)", &AlterTable{Name: TableName{Table: "t"}, Actions: []AlterAction{
			{Kind: AlterReplacePartitionField, Name: "shard", Partition: PartitionField{Transform: "truncate", Column: "s", Param: 4}}}}},
		{"ALTER TABLE t CREATE OR REPLACE BRANCH IF NOT EXISTS b AS OF VERSION 7 RETAIN 2 DAYS", &AlterRef{Table: TableName{Table: "t"}, Name: "b",
			Create: true, Replace: true, IfNotExists: true, SnapshotID: ptr(int64(7)), RetainMs: 2 * 86400000}},
		{"alter table t drop tag if exists v1", &AlterRef{Table: TableName{Table: "t"}, Name: "v1", Tag: true, Drop: true, IfNotExists: true}},
		{"ALTER TABLE t REPLACE TAG v1", &AlterRef{Table: TableName{Table: "t"}, Name: "v1", Tag: true, Replace: true}},
		{"ALTER TABLE t RENAME TO u", &AlterTable{Name: TableName{Table: "t"}, Actions: []AlterAction{{Kind: AlterRenameTable, NewName: "u"}}}},
		{"ALTER TABLE t SET SCHEMA s", &AlterTable{Name: TableName{Table: "t"}, Actions: []AlterAction{{Kind: AlterSetSchema, NewName: "s"}}}},
		{"DESCRIBE s.t", &Describe{Table: TableName{"s", "t"}}},
		{"VACUUM", &Vacuum{}},
		{"vacuum verbose", &Vacuum{Verbose: true}},
		{"VACUUM (PURGE, VERBOSE) s.t", &Vacuum{Tables: []TableName{{"s", "t"}}, Purge: true, Verbose: true}},
		{"VACUUM (PURGE, DROP_TAGS) t", &Vacuum{Tables: []TableName{{"", "t"}}, Purge: true, Tags: TagsDrop}},
		{"VACUUM (move_tags, PURGE) t", &Vacuum{Tables: []TableName{{"", "t"}}, Purge: true, Tags: TagsMove}},
		{"VACUUM a, s.b", &Vacuum{Tables: []TableName{{Table: "a"}, {"s", "b"}}}},
		{"ANALYZE", &Analyze{}},
		{"analyse verbose", &Analyze{Verbose: true}},
		{"ANALYZE (VERBOSE, SKIP_LOCKED) s.t (a, \"B\"), u", &Analyze{Verbose: true, Tables: []AnalyzeTarget{
			{Table: TableName{"s", "t"}, Columns: []string{"a", "B"}}, {Table: TableName{Table: "u"}}}}},
		{"ANALYZE (verbose off, skip_locked true) t", &Analyze{Tables: []AnalyzeTarget{{Table: TableName{Table: "t"}}}}},
		{"desc t", &Describe{Table: TableName{Table: "t"}}},
		{"SHOW TABLES", &ShowTables{}},
		{"show tables from s", &ShowTables{Schema: "s"}},
		{"SHOW SCHEMAS", &ShowSchemas{}},
		{"TRUNCATE TABLE s.t", &Truncate{Table: TableName{"s", "t"}}},
		{"truncate t", &Truncate{Table: TableName{Table: "t"}}},
	}
	for _, c := range cases {
		got := parseOne(t, c.q)
		c.want.(textSetter).setText(got.Text())
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got  %#v\n want %#v", c.q, got, c.want)
		}
	}
}

func TestParseCreateTable(t *testing.T) {
	q := `CREATE TABLE IF NOT EXISTS s."Events" (
		id bigint NOT NULL, "Name" varchar(20), amount numeric(10,2) null, ts timestamp with time zone,
		d date, flag boolean, price double precision, tag character varying, n int)
		PARTITIONED BY (days(ts), bucket(16, id), truncate(4, "Name"), flag, years(d), hour(ts))
		WITH ('format-version' = '2', write.update.mode = 'merge-on-read')`
	got := parseOne(t, q).(*CreateTable)
	want := &CreateTable{
		Name:        TableName{"s", "Events"},
		IfNotExists: true,
		Columns: []ColumnDef{
			{Name: "id", Type: Int64, NotNull: true}, {Name: "Name", Type: Type{Kind: KindVarchar, Length: 20}},
			{Name: "amount", Type: Numeric(10, 2)}, {Name: "ts", Type: TimestampTZ}, {Name: "d", Type: Date},
			{Name: "flag", Type: Bool}, {Name: "price", Type: Float64}, {Name: "tag", Type: Type{Kind: KindVarchar}},
			{Name: "n", Type: Int32},
		},
		Partition: []PartitionField{
			{Transform: "day", Column: "ts"}, {Transform: "bucket", Column: "id", Param: 16},
			{Transform: "truncate", Column: "Name", Param: 4}, {Transform: "identity", Column: "flag"},
			{Transform: "year", Column: "d"}, {Transform: "hour", Column: "ts"},
		},
		Properties: map[string]string{"format-version": "2", "write.update.mode": "merge-on-read"},
	}
	want.setText(got.Text())
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	spark := parseOne(t, "create table t (a int) using iceberg partitioned by (a) tblproperties ('k'='v')").(*CreateTable)
	if spark.Properties["k"] != "v" || len(spark.Partition) != 1 || spark.Partition[0].Column != "a" {
		t.Errorf("Spark form: %#v", spark)
	}
}

func TestParseSessionStatements(t *testing.T) {
	cases := []struct {
		q    string
		want Statement
	}{
		{"SET search_path = s, public", &Set{Name: "search_path", Value: "s, public"}},
		{"set search_path to 'x'", &Set{Name: "search_path", Value: "x"}},
		{"SET SESSION statement_timeout TO 5", &Set{Name: "statement_timeout", Value: "5"}},
		{"SET LOCAL x = DEFAULT", &Set{Name: "x", Default: true, Local: true}},
		{"SET TIME ZONE 'UTC'", &Set{Name: "timezone", Value: "UTC"}},
		{"set time zone local", &Set{Name: "timezone", Default: true}},
		{"SET NAMES 'utf8'", &Set{Name: "client_encoding", Value: "utf8"}},
		{"SET magmalake.equality_deletes = on", &Set{Name: "magmalake.equality_deletes", Value: "on"}},
		{"SET extra_float_digits = -3", &Set{Name: "extra_float_digits", Value: "-3"}},
		{"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED",
			&SetTransaction{Isolation: "read committed", Session: true}},
		{"SET TRANSACTION READ ONLY", &SetTransaction{ReadOnly: parsePtrBool(true)}},
		{"SHOW search_path", &Show{Name: "search_path"}},
		{"SHOW ALL", &Show{Name: "all"}},
		{"SHOW TRANSACTION ISOLATION LEVEL", &Show{Name: "transaction_isolation"}},
		{"RESET x", &Reset{Name: "x"}},
		{"RESET ALL", &Reset{All: true}},
		{"BEGIN", &Begin{}},
		{"begin work", &Begin{}},
		{"BEGIN TRANSACTION READ ONLY", &Begin{ReadOnly: parsePtrBool(true)}},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE, READ WRITE", &Begin{Isolation: "serializable", ReadOnly: parsePtrBool(false)}},
		{"START TRANSACTION ISOLATION LEVEL REPEATABLE READ", &Begin{Isolation: "repeatable read"}},
		{"COMMIT", &Commit{}},
		{"END", &Commit{}},
		{"commit work and no chain", &Commit{}},
		{"ROLLBACK", &Rollback{}},
		{"ABORT", &Rollback{}},
		{"ROLLBACK TO SAVEPOINT sp", &Rollback{ToSavepoint: "sp"}},
		{"SAVEPOINT sp", &Savepoint{Name: "sp"}},
		{"RELEASE SAVEPOINT sp", &ReleaseSavepoint{Name: "sp"}},
		{"DISCARD ALL", &Discard{All: true, Target: "all"}},
		{"DEALLOCATE PREPARE s1", &Deallocate{Name: "s1"}},
		{"DEALLOCATE ALL", &Deallocate{All: true}},
	}
	for _, c := range cases {
		got := parseOne(t, c.q)
		c.want.(textSetter).setText(got.Text())
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got  %#v\n want %#v", c.q, got, c.want)
		}
	}
}

func TestParseCopy(t *testing.T) {
	cases := []struct {
		q    string
		want Copy
	}{
		{"COPY t (a, b) FROM STDIN", Copy{Table: TableName{Table: "t"}, Columns: []string{"a", "b"}, From: true,
			Format: "text", Delimiter: "\t", Null: `\N`}},
		{"COPY s.t FROM STDIN WITH (FORMAT csv, HEADER true, DELIMITER ';', NULL 'NA')", Copy{Table: TableName{"s", "t"},
			From: true, Format: "csv", Header: true, Delimiter: ";", Null: "NA", Quote: `"`, Escape: `"`}},
		{"copy t from stdin with csv header", Copy{Table: TableName{Table: "t"}, From: true, Format: "csv", Header: true,
			Delimiter: ",", Quote: `"`, Escape: `"`}},
		{"COPY t FROM STDIN (NULL '')", Copy{Table: TableName{Table: "t"}, From: true, Format: "text", Delimiter: "\t"}},
		{"COPY t TO STDOUT (FORMAT binary)", Copy{Table: TableName{Table: "t"}, Format: "binary", Delimiter: "\t", Null: `\N`}},
		{"COPY t TO STDOUT WITH DELIMITER AS '|' CSV QUOTE AS '''' ESCAPE '\\'", Copy{Table: TableName{Table: "t"},
			Format: "csv", Delimiter: "|", Quote: "'", Escape: `\`}},
	}
	for _, c := range cases {
		got := parseOne(t, c.q).(*Copy)
		c.want.setText(got.Text())
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q:\n got  %#v\n want %#v", c.q, *got, c.want)
		}
	}
	q := parseOne(t, "COPY (SELECT a FROM t WHERE b > 1) TO STDOUT WITH (FORMAT csv)").(*Copy)
	if q.Query == nil || q.Query.From == nil || q.Query.From.Name.Table != "t" || syntaxShape(q.Query.Where) != "(gt col:b 1)" {
		t.Errorf("COPY (query): %#v", q)
	}
}

func TestParseUnsupported(t *testing.T) {
	cases := []struct{ q, msg string }{
		{"CREATE MATERIALIZED VIEW v AS SELECT 1", "CREATE MATERIALIZED VIEW is not supported"},
		{"create temp view v as select 1", "CREATE TEMP VIEW is not supported"},
		{"CREATE VIEW v AS SELECT 1 WITH CHECK OPTION", "WITH CHECK OPTION is not supported"},
		{"CREATE UNIQUE INDEX i ON t (a)", "CREATE UNIQUE INDEX is not supported"},
		{"CREATE TEMP TABLE t (a int)", "CREATE TEMP TABLE is not supported"},
		{"DROP MATERIALIZED VIEW v", "DROP MATERIALIZED VIEW is not supported"},
		{"ALTER TABLE t ADD CONSTRAINT k UNIQUE (a)", "ALTER TABLE ... ADD CONSTRAINT is not supported"},
		{"ALTER TABLE t ALTER COLUMN c TYPE bigint USING c::bigint", "ALTER COLUMN ... TYPE ... USING is not supported"},
		{"ALTER SCHEMA s RENAME TO x", "ALTER SCHEMA is not supported"},
		{"GRANT SELECT ON t TO u", "GRANT is not supported"},
		{"VACUUM (FULL) t", "VACUUM option FULL is not supported"},
		{"LISTEN ch", "LISTEN is not supported"},
		{"CREATE TABLE t (a int PRIMARY KEY)", "column constraint PRIMARY KEY is not supported"},
		{"CREATE TABLE t (a int, PRIMARY KEY (a))", "table constraint PRIMARY KEY is not supported"},
		{"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", "ON CONFLICT is not supported"},
		{"COPY t FROM '/etc/passwd'", "COPY to or from a file"},
		{"SET ROLE admin", "SET ROLE is not supported"},
	}
	for _, c := range cases {
		_, err := Parse(c.q)
		var e *pgerr.Error
		if !errors.As(err, &e) || e.Code != pgerr.FeatureNotSupported || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%q: got %v, want 0A000 %q", c.q, err, c.msg)
		}
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	cases := []struct {
		q   string
		pos int
	}{
		{"CREATE TABLE t (a nosuchtype)", 0}, // 42704, checked below
		{"INSERT OVERWRITE t PARTITION (a = ) VALUES (1)", 35},
		{"SELECT * FROM t FOR VERSION AS OF x", 35},
		{"ALTER TABLE t SET ('a' 'b')", 24},
		{"COMMIT AND", 11},
		{"SELECT 1; SELECT 2; SELEC 3", 21},
		{"VACUUM a b", 10}, // PostgreSQL: syntax error at or near "b", position 10
		{"ANALYZE a b", 11},
	}
	for _, c := range cases {
		_, err := Parse(c.q)
		var e *pgerr.Error
		if !errors.As(err, &e) {
			t.Errorf("%q: got %v, want *Error", c.q, err)
			continue
		}
		if c.pos == 0 {
			if e.Code != pgerr.UndefinedObject {
				t.Errorf("%q: got %s %q, want 42704", c.q, e.Code, e.Message)
			}
			continue
		}
		if e.Code != pgerr.SyntaxError || e.Position != c.pos {
			t.Errorf("%q: got %s %q at %d, want 42601 at %d", c.q, e.Code, e.Message, e.Position, c.pos)
		}
	}
	if _, err := ParseOne("SELECT 1; SELECT 2"); err == nil {
		t.Error("ParseOne accepted two statements")
	}
	if st, err := ParseOne(" -- nothing\n;"); st != nil || err != nil {
		t.Errorf("ParseOne(empty) = %v, %v; want nil, nil", st, err)
	}
}

// TestParseUnderscoreIdentifiers: words starting with '_' are plain
// identifiers, as in PostgreSQL, even those MySQL reads as charset
// introducers (tidb's lexer does, unless they are quoted for it).
func TestParseUnderscoreIdentifiers(t *testing.T) {
	for _, q := range []string{
		"SELECT _binary, _utf8mb4 FROM _latin1 WHERE _binary = 1 AND _utf8 = 'x'",
		"INSERT INTO _utf8 (_binary) VALUES (1), (2)",
		"UPDATE _t SET _binary = _binary + 1 WHERE _x IS NULL",
	} {
		if _, err := ParseOne(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}
