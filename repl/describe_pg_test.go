package repl

import (
	"context"
	"strings"
	"testing"
)

// TestDescribeTableMatchesPsql: \d of a plain table (every column type a
// table can declare, NOT NULL, a quoted name, another schema) prints what
// psql 15 prints for the same table on PostgreSQL, byte for byte, above
// the Iceberg lines magmalake adds under the columns (partition spec,
// format version, delete mode, location).
func TestDescribeTableMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	ctx := context.Background()
	sess := magmalakeSession(t)
	ddl := []string{
		`CREATE TABLE plain (id int NOT NULL, big bigint, small smallint, name varchar(20), code char(3), body text,
			price numeric(10,2), ratio double precision, r real, ok boolean, day date, at timestamp,
			at_tz timestamptz, t time, raw bytea, u uuid NOT NULL)`,
		`CREATE TABLE "Mixed Case" ("Id" int, "select" text)`,
		`CREATE SCHEMA other`,
		`CREATE TABLE other.t (a int)`,
	}
	// The cluster is shared with the other tests of the package.
	t.Cleanup(func() { pg.psql(t, "", "-c", `DROP TABLE plain, "Mixed Case"; DROP SCHEMA other CASCADE`) })
	for _, q := range ddl {
		if _, stderr := pg.psql(t, "", "-c", q); stderr != "" {
			t.Fatalf("PostgreSQL: %s: %s", q, stderr)
		}
		sh := New(sess, &strings.Builder{}, &strings.Builder{})
		if err := sh.RunCommand(ctx, q); err != nil {
			t.Fatalf("magmalake: %s: %v", q, err)
		}
	}
	for _, name := range []string{"plain", `"Mixed Case"`, "other.t"} {
		want, _ := pg.psql(t, "", "-c", `\d `+name)
		var got, errOut strings.Builder
		if err := New(sess, &got, &errOut).RunCommand(ctx, `\d `+name); err != nil {
			t.Fatalf("\\d %s: %v %s", name, err, errOut.String())
		}
		if columns := withoutIcebergFooter(got.String()); columns != want {
			t.Errorf("\\d %s:\n got:\n%s\nwant:\n%s", name, columns, want)
		}
	}
}

// withoutIcebergFooter drops the lines magmalake prints under a table's
// columns where psql prints nothing for a table without indexes.
func withoutIcebergFooter(out string) string {
	var keep []string
	for _, l := range strings.SplitAfter(out, "\n") {
		for _, p := range []string{"Partition spec: ", "Format version: ", "Delete mode: ", "Location: "} {
			if strings.HasPrefix(l, p) {
				l = ""
			}
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}
