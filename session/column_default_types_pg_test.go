package session

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// defaultCol is a column of every storable type with a DEFAULT, and the
// PostgreSQL expression that renders its value as the Iceberg spec's JSON
// single-value serialization writes it (computed by PostgreSQL, not by the
// code under test).
type defaultCol struct {
	name, decl string
	specJSON   string // over column name c; yields json
	temporal   bool   // iceberg-go v0.7.0's reader takes these defaults as numbers only
}

var defaultCols = []defaultCol{
	{"s2", "smallint DEFAULT -32768", "to_json(c)", false},
	{"i4", "int DEFAULT 2147483647", "to_json(c)", false},
	{"i8", "bigint DEFAULT -9007199254740992", "to_json(c)", false},
	{"n2", "numeric(12,2) DEFAULT 0", "to_json(c::text)", false},
	{"n5", "numeric(10,5) DEFAULT -1.5", "to_json(c::text)", false},
	{"n38", "numeric(38,10) DEFAULT 1234567890123456789012345678.0123456789", "to_json(c::text)", false},
	{"nn", "numeric(4,1) NOT NULL DEFAULT 1.5", "to_json(c::text)", false},
	{"f4", "real DEFAULT 1.1", "to_json(c)", false},
	{"f8", "double precision DEFAULT -2.5e-300", "to_json(c)", false},
	{"b", "boolean DEFAULT false", "to_json(c)", false},
	{"t", `text DEFAULT 'it''s "q" \'`, "to_json(c)", false},
	{"te", "text NOT NULL DEFAULT ''", "to_json(c)", false},
	{"vc", "varchar(10) DEFAULT 'abc'", "to_json(c::text)", false},
	{"ch", "char(5) DEFAULT 'ab'", "to_json(c::text)", false},
	{"u", "uuid DEFAULT 'F79C3E09-677C-4BBD-A479-3F349CB785E7'", "to_json(c::text)", false},
	{"by", `bytea DEFAULT '\x00ff10'`, "to_json(encode(c, 'hex'))", false},
	{"d", "date DEFAULT '2024-02-29'", "to_json(to_char(c, 'YYYY-MM-DD'))", true},
	{"d1", "date DEFAULT '0001-01-01'", "to_json(to_char(c, 'YYYY-MM-DD'))", true},
	{"tm", "time DEFAULT '23:59:59.999999'", `to_json(to_char('2000-01-01'::date + c, 'HH24:MI:SS.US'))`, true},
	{"tm0", "time DEFAULT '10:00'", `to_json(to_char('2000-01-01'::date + c, 'HH24:MI:SS.US'))`, true},
	{"ts", "timestamp DEFAULT '2024-01-01 00:00:00'", `to_json(to_char(c, 'YYYY-MM-DD"T"HH24:MI:SS.US'))`, true},
	{"tz", "timestamptz DEFAULT '2024-01-01 00:00:00+00'", `to_json(to_char(c AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'))`, true},
	{"tz7", "timestamptz DEFAULT '2024-06-01 12:30:00.123456-07'", `to_json(to_char(c AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'))`, true},
}

// defaultTypeScript creates table d with a DEFAULT on a column of every
// storable type and writes rows that take them, then adds the same columns
// with their defaults to table e, which has rows (they read the defaults,
// as in PostgreSQL), and writes more. Every column alone, filtered and
// counted is compared.
func defaultTypeScript() []string {
	var decls, adds, names []string
	for _, c := range defaultCols {
		decls = append(decls, c.name+" "+c.decl)
		adds = append(adds, "ADD COLUMN "+c.name+" "+c.decl)
		names = append(names, c.name)
	}
	script := []string{
		"SET TimeZone = 'UTC'",
		"CREATE TABLE d (id int, " + strings.Join(decls, ", ") + ") %s",
		"INSERT INTO d (id) VALUES (1)",
		"INSERT INTO d (id, i4, n2, d, tz) VALUES (2, NULL, NULL, NULL, NULL)",
		"INSERT INTO d DEFAULT VALUES",
		"INSERT INTO d (id, nn) VALUES (4, NULL)", // 23502, as the issue had every INSERT fail
		"INSERT INTO d (id) SELECT 5",
		"UPDATE d SET n5 = 3, d = NULL WHERE id = 5",
		"UPDATE d SET n5 = DEFAULT, d = DEFAULT WHERE id = 5",
		"SELECT * FROM d ORDER BY id NULLS FIRST",
		// LIKE copies the defaults only when told to.
		"CREATE TABLE dl (LIKE d INCLUDING DEFAULTS) %s",
		"CREATE TABLE dn (LIKE d INCLUDING ALL EXCLUDING DEFAULTS) %s",
		"INSERT INTO dl (id) VALUES (1)",
		"INSERT INTO dn (id) VALUES (1)", // 23502: nn is NOT NULL with no default
		"INSERT INTO dn (id, nn, te) VALUES (1, 1, 'x')",
		"SELECT * FROM dl",
		"SELECT * FROM dn",
		"CREATE TABLE e (id int) %s",
		"INSERT INTO e VALUES (1), (2)",
		"ALTER TABLE e " + strings.Join(adds[:len(adds)/2], ", "),
		"INSERT INTO e (id) VALUES (3)",
		"ALTER TABLE e " + strings.Join(adds[len(adds)/2:], ", "),
		"INSERT INTO e (id, n2) VALUES (4, 9.99)",
		"ALTER TABLE e ADD COLUMN k numeric(10,2) DEFAULT 3.25", // the uncomparable map
		// New write-defaults: old rows keep reading the initial ones.
		"ALTER TABLE e ALTER COLUMN d SET DEFAULT '2025-12-31', ALTER COLUMN tz SET DEFAULT '2030-01-01 00:00:00+00', " +
			"ALTER COLUMN n2 SET DEFAULT 1.23, ALTER COLUMN by SET DEFAULT '\\xab', ALTER COLUMN tm SET DEFAULT '01:02:03', ALTER COLUMN f4 SET DEFAULT -0.5",
		"INSERT INTO e (id) VALUES (6)",
		"SELECT * FROM e ORDER BY id",
	}
	for _, tbl := range []string{"d", "e"} {
		for _, n := range names {
			script = append(script,
				fmt.Sprintf("SELECT %s FROM %s ORDER BY 1 NULLS FIRST", n, tbl),
				fmt.Sprintf("SELECT count(%s), count(*) FILTER (WHERE %s IS NULL) FROM %s", n, n, tbl),
				fmt.Sprintf("SELECT id FROM %s WHERE %s = (SELECT %s FROM d WHERE id = 1) ORDER BY id", tbl, n, n))
		}
	}
	return script
}

// TestColumnDefaultTypesLikePostgres: defaults of every storable type, in
// CREATE TABLE and in ADD COLUMN on a table with rows, on a v3 table and on
// PostgreSQL 15 give the same rows; so does a second server reading the
// tables from their metadata files (what the first keeps in memory hid
// the defaults it lost). iceberg-go parses the metadata file to the
// defaults PostgreSQL gives in the spec's JSON form, and reads the
// non-temporal columns of the old rows as magmalake does.
func TestColumnDefaultTypesLikePostgres(t *testing.T) {
	for _, mor := range []bool{false, true} {
		t.Run(fmt.Sprint("merge-on-read=", mor), func(t *testing.T) {
			with := "WITH ('format-version' = '3')"
			if mor {
				with = "WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')"
			}
			conn := connectTestPostgres(t)
			dir := t.TempDir()
			s := testSessionOn(t, testEngine(t, dir))
			script := defaultTypeScript()
			runScriptLikePostgres(t, s, conn, script, with)

			fresh := testSessionOn(t, testEngine(t, dir))
			mustQuery(t, fresh, "SET TimeZone = 'UTC'")
			for _, q := range script {
				if strings.HasPrefix(q, "SELECT") {
					compareStatement(t, fresh, conn, q)
				}
			}
			mustPG(t, conn, "INSERT INTO e (id) VALUES (5)")
			mustQuery(t, fresh, "INSERT INTO e (id) VALUES (5)")
			compareStatement(t, fresh, conn, "SELECT * FROM e WHERE id = 5")

			checkSpecDefaults(t, s, conn, "d", 1, 1)
			checkSpecDefaults(t, s, conn, "dl", 1, 1)
			checkSpecDefaults(t, s, conn, "e", 1, 6)
			checkIcebergGoReadsDefaults(t, s, "e")
		})
	}
}

// checkSpecDefaults loads tbl's metadata file with iceberg-go and compares
// each column's initial-default and write-default with the JSON PostgreSQL
// renders the value of the column in rows initial and write (rows that
// took those defaults) as.
func checkSpecDefaults(t *testing.T, s *Session, conn *pgx.Conn, tbl string, initial, write int) {
	t.Helper()
	parsed := icebergGoTable(t, s, tbl)
	for _, c := range defaultCols {
		f, ok := parsed.Schema().FindFieldByName(c.name)
		if !ok {
			t.Fatalf("iceberg-go finds no column %s in %s", c.name, tbl)
		}
		for _, d := range []struct {
			kind string
			id   int
			got  any
		}{{"initial-default", initial, f.InitialDefault}, {"write-default", write, f.WriteDefault}} {
			out := mustPG(t, conn, fmt.Sprintf("SELECT %s FROM (SELECT %s AS c FROM %s WHERE id = %d) x", c.specJSON, c.name, tbl, d.id))
			var want any
			if err := json.Unmarshal([]byte(out.rows[0][0]), &want); err != nil {
				t.Fatalf("%s: PostgreSQL's JSON %q: %v", c.name, out.rows[0][0], err)
			}
			if !reflect.DeepEqual(d.got, want) {
				t.Errorf("%s.%s: iceberg-go reads %s %#v; PostgreSQL's default in the spec's form is %#v", tbl, c.name, d.kind, d.got, want)
			}
		}
	}
}

// icebergGoTable is tbl as iceberg-go parses its current metadata file.
func icebergGoTable(t *testing.T, s *Session, tbl string) *table.Table {
	t.Helper()
	cur, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", tbl))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := table.NewFromLocation(t.Context(), cur.Identifier(), cur.MetadataLocation(), cur.FS, nil)
	if err != nil {
		t.Fatalf("iceberg-go parses %s: %v", cur.MetadataLocation(), err)
	}
	return parsed
}

// checkIcebergGoReadsDefaults scans tbl's non-temporal columns with
// iceberg-go's own reader: its rows from files written before the columns
// were added take the initial-defaults, as magmalake's do. (iceberg-go
// v0.7.0 reads date, time and timestamp defaults only in its own numeric
// form, not the spec's strings, so those columns are left to the
// metadata check.)
func checkIcebergGoReadsDefaults(t *testing.T, s *Session, tbl string) {
	t.Helper()
	cols := []string{"id"}
	for _, c := range defaultCols {
		if !c.temporal {
			cols = append(cols, c.name)
		}
	}
	parsed := icebergGoTable(t, s, tbl)
	at, err := parsed.Scan(table.WithSelectedFields(cols...)).ToArrowTable(t.Context())
	if err != nil {
		t.Fatalf("iceberg-go scan of %s: %v", tbl, err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	var rows [][]string
	for tr.Next() {
		rows = append(rows, fndBatch(tr.RecordBatch())...)
	}
	got := fndSorted(rows)
	_, want := fndRows(t, s, "SELECT "+strings.Join(cols, ", ")+" FROM "+tbl)
	if fmt.Sprint(got) != fmt.Sprint(fndSorted(want)) {
		t.Errorf("iceberg-go reads %s as\n%v\nmagmalake\n%v", tbl, got, fndSorted(want))
	}
}

// TestColumnDefaultTypesRefusedOnV2: a format 2 table keeps no defaults:
// each column's DEFAULT is refused with 0A000 and no table is made.
func TestColumnDefaultTypesRefusedOnV2(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE v2 (id int)")
	mustQuery(t, s, "CREATE TABLE v3 (id int DEFAULT 1) WITH ('format-version' = '3')")
	mustFail(t, s, pgerr.FeatureNotSupported, "CREATE TABLE x (LIKE v3 INCLUDING DEFAULTS)")
	for _, c := range defaultCols {
		mustFail(t, s, pgerr.FeatureNotSupported, "CREATE TABLE x (id int, "+c.name+" "+c.decl+")")
		mustFail(t, s, pgerr.FeatureNotSupported, "ALTER TABLE v2 ADD COLUMN "+c.name+" "+c.decl)
	}
	mustQuery(t, s, "CREATE TABLE y (LIKE v3)") // without the default: fine
	if got := mustQuery(t, s, "SELECT count(*) FROM information_schema.columns WHERE table_name IN ('v2', 'x', 'y')").text(); got != "2\n" {
		t.Fatalf("columns after refusals: %s", got)
	}
}
