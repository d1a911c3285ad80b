package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// locationProps are the table properties that name where files go: the ones
// iceberg-go honours and the ones Java engines sharing the catalog honour.
var locationProps = []string{
	"location", "write.data.path", "write.metadata.path",
	"write.object-storage.path", "write.folder-storage.path", "write.metadata.location",
}

// locEnv is a warehouse in dir/warehouse plus a directory outside it.
type locEnv struct {
	s         *Session
	warehouse string // local path of the warehouse
	outside   string // a directory the server could write to, outside the warehouse
}

func newLocEnv(t *testing.T, allow ...string) *locEnv {
	t.Helper()
	dir := t.TempDir()
	eng := testEngineWith(t, lake.Config{DataDir: dir, AllowPaths: allow})
	s := testSessionOn(t, eng)
	return &locEnv{s: s, warehouse: filepath.Join(dir, "warehouse"), outside: t.TempDir()}
}

// escapes are values of a location property that leave the warehouse.
func (e *locEnv) escapes(prop string) []string {
	out := filepath.Join(e.outside, prop)
	return []string{
		out,
		"file://" + out,
		"FILE://localhost" + out,
		e.warehouse + "/../" + filepath.Base(e.outside) + "-" + prop,
		"file://" + e.warehouse + "/public.db/../../escape-" + prop,
		"s3://bucket/" + prop,
		"relative-" + prop, // resolved against the server's working directory
		e.warehouse + "/x%2f..%2f..%2fescape",
		e.warehouse + "/x?/../../escape",
		"file://someone@" + e.warehouse,
		"file://otherhost" + e.warehouse,
		"",
	}
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// mustRefuse runs q and checks it is 42501 naming prop.
func mustRefuse(t *testing.T, s *Session, prop, q string) {
	t.Helper()
	_, err := s.query(context.Background(), q)
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.InsufficientPrivilege {
		t.Fatalf("%s: want 42501, got %v", q, err)
	}
	if !strings.Contains(se.Message, `"`+prop+`"`) || strings.Contains(se.Message, "table public.t") {
		t.Fatalf("%s: message %q should name the property in SQL words", q, se.Message)
	}
}

// assertNothingOutside checks that no refused statement created a file or
// directory: outside stays empty, and the warehouse holds only want.
func (e *locEnv) assertNothingOutside(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(e.outside)
	if err != nil || len(entries) != 0 {
		t.Fatalf("outside directory: %v, %d entries", err, len(entries))
	}
	for _, p := range []string{filepath.Dir(e.warehouse), "."} {
		matches, _ := filepath.Glob(filepath.Join(p, "*escape*"))
		rel, _ := filepath.Glob(filepath.Join(p, "relative-*"))
		if len(matches)+len(rel) != 0 {
			t.Fatalf("files created outside the warehouse: %v %v", matches, rel)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.outside), filepath.Base(e.outside)+"-write.data.path")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a sibling of the warehouse was created: %v", err)
	}
}

func TestCreateTableLocationOutsideWarehouseRefused(t *testing.T) {
	e := newLocEnv(t)
	for _, prop := range locationProps {
		for _, v := range e.escapes(prop) {
			q := "CREATE TABLE t (id int) WITH (" + quoteLit(prop) + " = " + quoteLit(v) + ")"
			mustRefuse(t, e.s, prop, q)
			mustFail(t, e.s, pgerr.UndefinedTable, "SELECT * FROM t")
		}
	}
	// Spark's spelling, several properties at once, one of them bad.
	mustRefuse(t, e.s, "write.data.path", "CREATE TABLE t (id int) TBLPROPERTIES ('format-version' = '2', 'write.data.path' = "+quoteLit(e.outside)+")")
	e.assertNothingOutside(t)
	if entries, _ := os.ReadDir(filepath.Join(e.warehouse, "public.db")); len(entries) != 0 {
		t.Fatalf("refused CREATE TABLE left %d entries in the warehouse", len(entries))
	}
}

func TestAlterTableLocationOutsideWarehouseRefused(t *testing.T) {
	e := newLocEnv(t)
	mustQuery(t, e.s, "CREATE TABLE t (id int)")
	mustQuery(t, e.s, "INSERT INTO t VALUES (1)")
	for _, prop := range locationProps {
		for _, v := range e.escapes(prop) {
			mustRefuse(t, e.s, prop, "ALTER TABLE t SET ("+quoteLit(prop)+" = "+quoteLit(v)+")")
			mustRefuse(t, e.s, prop, "ALTER TABLE t SET TBLPROPERTIES ("+quoteLit(prop)+" = "+quoteLit(v)+")")
		}
	}
	props := ddlLoad(t, e.s, "public", "t").Properties()
	for _, prop := range locationProps {
		if v, ok := props[prop]; ok {
			t.Fatalf("refused ALTER set %s = %q", prop, v)
		}
	}
	mustQuery(t, e.s, "INSERT INTO t VALUES (2)")
	mustQuery(t, e.s, "DELETE FROM t WHERE id = 1")
	e.assertNothingOutside(t)
	if got := mustQuery(t, e.s, "SELECT id FROM t").text(); got != "2\n" {
		t.Fatalf("rows %q", got)
	}
}

// TestLocationInsideWarehouseAllowed: paths under the warehouse, ".." that
// stays inside, and the table's own location all work and receive the files.
func TestLocationInsideWarehouseAllowed(t *testing.T) {
	e := newLocEnv(t)
	data := filepath.Join(e.warehouse, "elsewhere", "data")
	meta := "file://" + e.warehouse + "/a/../elsewhere/meta"
	mustQuery(t, e.s, "CREATE TABLE t (id int) WITH ('write.data.path' = "+quoteLit(data)+", 'write.metadata.path' = "+quoteLit(meta)+")")
	mustQuery(t, e.s, "INSERT INTO t VALUES (1), (2)")
	assertHasFiles(t, data, ".parquet")
	assertHasFiles(t, filepath.Join(e.warehouse, "elsewhere", "meta"), ".avro")
	own := ddlLoad(t, e.s, "public", "t").Location() + "/data2"
	mustQuery(t, e.s, "ALTER TABLE t SET ('write.data.path' = "+quoteLit(own)+")")
	mustQuery(t, e.s, "INSERT INTO t VALUES (3)")
	assertHasFiles(t, strings.TrimPrefix(own, "file://"), ".parquet")
	if got := mustQuery(t, e.s, "SELECT count(*) FROM t").text(); got != "3\n" {
		t.Fatalf("count %q", got)
	}
	mustQuery(t, e.s, "ALTER TABLE t RESET ('write.data.path')")
}

// TestLocationAllowedPrefix: --allow-path opens exactly its prefix.
func TestLocationAllowedPrefix(t *testing.T) {
	allowed := t.TempDir()
	e := newLocEnv(t, allowed)
	data := filepath.Join(allowed, "t", "data")
	mustQuery(t, e.s, "CREATE TABLE t (id int) WITH ('write.data.path' = "+quoteLit(data)+")")
	mustQuery(t, e.s, "INSERT INTO t VALUES (1)")
	assertHasFiles(t, data, ".parquet")
	mustRefuse(t, e.s, "write.data.path", "CREATE TABLE u (id int) WITH ('write.data.path' = "+quoteLit(allowed+"-sibling")+")")
	mustRefuse(t, e.s, "write.data.path", "CREATE TABLE u (id int) WITH ('write.data.path' = "+quoteLit(allowed+"/../x")+")")
	e.assertNothingOutside(t)
}

func assertHasFiles(t *testing.T, dir, suffix string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range entries {
		if strings.HasSuffix(d.Name(), suffix) {
			return
		}
	}
	t.Fatalf("no %s file in %s", suffix, dir)
}

// TestCopyServerFileRefused: COPY to or from a server file or program does
// not exist over the wire; it is refused before anything is read or written.
func TestCopyServerFileRefused(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE t (id int)")
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, q := range []string{
		"COPY t FROM '/etc/passwd'",
		"COPY t TO " + quoteLit(out),
		"COPY (SELECT 1) TO " + quoteLit(out),
		"COPY t FROM PROGRAM 'true'",
		"COPY t TO PROGRAM " + quoteLit("touch "+out),
	} {
		mustFail(t, s, pgerr.FeatureNotSupported, q)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("COPY TO a file created it: %v", err)
	}
}

// TestTableNamesCannotLeaveWarehouse: a table's default location is built
// from its schema and name, so names with ".." or "/" must not place files
// outside the warehouse either.
func TestTableNamesCannotLeaveWarehouse(t *testing.T) {
	e := newLocEnv(t)
	for _, name := range []string{`"../../../escape-name"`, `"a/../../../../escape-name"`, `".."`} {
		if _, err := e.s.query(context.Background(), "CREATE TABLE "+name+" (id int)"); err == nil {
			mustQuery(t, e.s, "INSERT INTO "+name+" VALUES (1)")
		}
	}
	e.assertNothingOutside(t)
	for _, dir := range []string{filepath.Dir(e.warehouse), filepath.Dir(filepath.Dir(e.warehouse))} {
		if matches, _ := filepath.Glob(filepath.Join(dir, "escape-name*")); len(matches) != 0 {
			t.Fatalf("table files outside the warehouse: %v", matches)
		}
	}
}
