package session

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// alterScript evolves a table as PostgreSQL 15 can: columns added (with
// declared types), renamed, widened (integer to bigint, real to double
// precision, numeric(9,2) to numeric(12,2), varchar(3) to varchar(10),
// smallint to integer), made NOT NULL and back, dropped; the table renamed
// and moved; the errors PostgreSQL gives for each misuse; DML on files of
// every schema between the changes. %s is the table's WITH clause.
var alterScript = []string{
	"CREATE TABLE e (id int, v varchar(3), f real, d numeric(9,2), s smallint) %s",
	"INSERT INTO e VALUES (1, 'a', 1.5, 12.25, 3), (2, NULL, 2.5, 99.99, 4)",
	"ALTER TABLE e ADD COLUMN w bigint, ADD COLUMN z varchar(2)",
	"INSERT INTO e VALUES (3, 'c', 3.5, 1.5, 5, 30, 'zz')",
	"INSERT INTO e VALUES (4, 'd', 4.5, 1.5, 6, 40, 'zzz')",
	"ALTER TABLE e ADD COLUMN w int",
	"ALTER TABLE e ADD COLUMN IF NOT EXISTS w int",
	"ALTER TABLE e ADD COLUMN nn int NOT NULL",
	"SELECT * FROM e ORDER BY id",
	"ALTER TABLE e RENAME COLUMN v TO vv",
	"ALTER TABLE e RENAME COLUMN nope TO x",
	"ALTER TABLE e RENAME COLUMN vv TO w",
	"ALTER TABLE e ALTER COLUMN id TYPE bigint",
	"ALTER TABLE e ALTER COLUMN f TYPE double precision",
	"ALTER TABLE e ALTER COLUMN d TYPE numeric(12,2)",
	"ALTER TABLE e ALTER COLUMN vv SET DATA TYPE varchar(10)",
	"ALTER TABLE e ALTER COLUMN s TYPE integer",
	"INSERT INTO e VALUES (5000000000, 'longer one', 0.1, 1234567890.12, 70000, NULL, NULL)",
	"SELECT * FROM e WHERE id > 4000000000 OR f > 4 OR s > 5 ORDER BY id",
	"DELETE FROM e WHERE id = 2",
	"UPDATE e SET z = 'u', f = f * 2 WHERE id = 1",
	"ALTER TABLE e ALTER COLUMN vv SET NOT NULL",
	"ALTER TABLE e ALTER COLUMN id SET NOT NULL",
	"INSERT INTO e (vv) VALUES ('no id')",
	"ALTER TABLE e ALTER COLUMN id DROP NOT NULL",
	"ALTER TABLE e DROP COLUMN w",
	"ALTER TABLE e DROP COLUMN w",
	"ALTER TABLE e DROP COLUMN IF EXISTS w",
	"SELECT * FROM e ORDER BY id",
	"SELECT column_name, data_type, is_nullable, character_maximum_length, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 'e' ORDER BY ordinal_position",
	"ALTER TABLE IF EXISTS nope ADD COLUMN a int",
	"ALTER TABLE nope ADD COLUMN a int",
	"CREATE TABLE other (a int)",
	"ALTER TABLE e RENAME TO other",
	"ALTER TABLE e RENAME TO e2",
	"SELECT count(*) FROM e",
	"ALTER TABLE e2 SET SCHEMA nowhere",
	"CREATE SCHEMA s2",
	"ALTER TABLE e2 SET SCHEMA s2",
	"SELECT id, vv, z FROM s2.e2 ORDER BY id",
	"BEGIN",
	"ALTER TABLE s2.e2 ADD COLUMN late text",
	"ALTER TABLE s2.e2 RENAME COLUMN z TO zed",
	"COMMIT",
	"INSERT INTO s2.e2 (id, late, zed) VALUES (9, 'later', 'q')",
	"BEGIN",
	"ALTER TABLE s2.e2 DROP COLUMN late",
	"ROLLBACK",
	"SELECT id, zed, late FROM s2.e2 ORDER BY id",
}

// TestAlterTableLikePostgres: the script on magmalake (v2 and v3,
// copy-on-write and merge-on-read) and on PostgreSQL 15: the same tags,
// rows and SQLSTATEs; afterwards iceberg-go reads the evolved table as
// magmalake does.
func TestAlterTableLikePostgres(t *testing.T) {
	for _, with := range []string{
		"WITH ('format-version' = '2', 'write.delete.mode' = 'copy-on-write', 'write.update.mode' = 'copy-on-write')",
		"WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')",
	} {
		t.Run(strings.Split(with, "'")[3], func(t *testing.T) {
			conn := connectTestPostgres(t)
			s := testSession(t)
			runScriptLikePostgres(t, s, conn, alterScript, with)
			checkIcebergGoReads(t, s, "s2", "e2")
		})
	}
}

// TestAlterTableRefusals: what Iceberg cannot do without rewriting data
// files, or at all, is refused with a clear code and the table unchanged.
func TestAlterTableRefusals(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE r (id bigint, v varchar(10), c char(3), n numeric(9,2), day date) PARTITIONED BY (day)")
	mustQuery(t, s, "INSERT INTO r VALUES (1, 'x', 'ab', 1.5, '2024-01-01')")
	location := func() string {
		tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "r"))
		if err != nil {
			t.Fatal(err)
		}
		return tbl.MetadataLocation()
	}
	before := location()
	for q, code := range map[string]pgerr.Code{
		"ALTER TABLE r ALTER COLUMN id TYPE int":                  pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN v TYPE varchar(3)":            pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN v TYPE int":                   pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN c TYPE char(5)":               pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN n TYPE numeric(12,3)":         pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN n TYPE numeric(12,2) USING n": pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN id SET DEFAULT 1":             pgerr.FeatureNotSupported,
		"ALTER TABLE r ADD COLUMN k int DEFAULT 1":                pgerr.FeatureNotSupported,
		"ALTER TABLE r ALTER COLUMN day TYPE timestamp":           pgerr.FeatureNotSupported,
		"ALTER TABLE r DROP COLUMN day":                           pgerr.DependentObjectsStillExist,
		"ALTER TABLE r ADD CONSTRAINT k PRIMARY KEY (id)":         pgerr.FeatureNotSupported,
		`ALTER TABLE "r$files" ADD COLUMN k int`:                  pgerr.WrongObjectType,
	} {
		mustFail(t, s, code, q)
	}
	mustQuery(t, s, "CREATE TABLE one (a int)")
	mustFail(t, s, pgerr.FeatureNotSupported, "ALTER TABLE one DROP COLUMN a")
	if after := location(); after != before {
		t.Errorf("a refused ALTER committed: %s -> %s", before, after)
	}
}
