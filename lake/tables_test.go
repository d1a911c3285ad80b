package lake

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
)

func TestReopenFindsTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cols := allTypeCols()[:4]
	rows := genRows(cols, 0, 10)
	w, err := Open(ctx, Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ident := Ident("public", "kept")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	appendRows(t, w, ident, cols, rows)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w2 := openTest(t, dir)
	names, err := w2.Tables().ListTables(ctx, "public")
	if err != nil || strings.Join(names, ",") != "kept" {
		t.Fatalf("tables after reopen: %v %v", names, err)
	}
	nss, err := w2.Tables().ListNamespaces(ctx)
	if err != nil || strings.Join(nss, ",") != "public" {
		t.Fatalf("namespaces: %v %v", nss, err)
	}
	tbl, err := w2.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	_, got := scanAll(t, tbl, ScanOptions{})
	assertSameRows(t, got, rows)
}

func TestCatalogErrors(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	sc := icebergSchema(allTypeCols()[:2])

	_, err := w.LoadTable(ctx, Ident("nope", "t"))
	if !errors.Is(err, ErrNoSuchNamespace) && !errors.Is(err, ErrNoSuchTable) {
		t.Fatalf("missing namespace: %v", err)
	}
	_, err = w.LoadTable(ctx, Ident("public", "nope"))
	if !errors.Is(err, ErrNoSuchTable) || !errors.Is(err, catalog.ErrNoSuchTable) || !strings.Contains(err.Error(), "public.nope") {
		t.Fatalf("missing table: %v", err)
	}
	if _, err := w.Tables().CreateTable(ctx, Ident("nope", "t"), sc, TableSpec{}, nil); !errors.Is(err, ErrNoSuchNamespace) {
		t.Fatalf("create in missing namespace: %v", err)
	}
	if err := w.Tables().CreateNamespace(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := w.Tables().CreateNamespace(ctx, "s1"); !errors.Is(err, ErrNamespaceExists) {
		t.Fatalf("duplicate namespace: %v", err)
	}
	if _, err := w.Tables().CreateTable(ctx, Ident("s1", "t"), sc, TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tables().CreateTable(ctx, Ident("s1", "t"), sc, TableSpec{}, nil); !errors.Is(err, ErrTableExists) {
		t.Fatalf("duplicate table: %v", err)
	}
	if err := w.Tables().DropNamespace(ctx, "s1"); !errors.Is(err, ErrNamespaceNotEmpty) {
		t.Fatalf("drop non-empty namespace: %v", err)
	}
	if err := w.Tables().DropTable(ctx, Ident("s1", "t"), false); err != nil {
		t.Fatal(err)
	}
	if err := w.Tables().DropTable(ctx, Ident("s1", "t"), false); !errors.Is(err, ErrNoSuchTable) {
		t.Fatalf("drop missing table: %v", err)
	}
	if err := w.Tables().DropNamespace(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := w.Tables().DropNamespace(ctx, "s1"); !errors.Is(err, ErrNoSuchNamespace) {
		t.Fatalf("drop missing namespace: %v", err)
	}
}

func TestInvalidTransforms(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	sc := icebergSchema(allTypeCols())
	for _, pf := range []PartitionField{
		{Source: "s", Transform: iceberg.YearTransform{}},
		{Source: "b", Transform: iceberg.BucketTransform{NumBuckets: 4}},
		{Source: "d", Transform: iceberg.TruncateTransform{Width: 3}},
		{Source: "tm", Transform: iceberg.DayTransform{}},
		{Source: "missing", Transform: iceberg.IdentityTransform{}},
	} {
		_, err := w.Tables().CreateTable(ctx, Ident("public", "bad"), sc, TableSpec{Fields: []PartitionField{pf}}, nil)
		if !errors.Is(err, ErrInvalidTransform) {
			t.Errorf("%s(%s): got %v, want ErrInvalidTransform", pf.Transform, pf.Source, err)
		}
	}
	if names, _ := w.Tables().ListTables(ctx, "public"); len(names) != 0 {
		t.Fatalf("failed creates left tables %v", names)
	}
}

func TestCorruptMetadataIsolated(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()[:3]
	bad, good := Ident("public", "bad"), Ident("public", "good")
	for _, id := range []struct {
		ident []string
	}{{bad}, {good}} {
		if _, err := w.Tables().CreateTable(ctx, id.ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	tbl := appendRows(t, w, bad, cols, genRows(cols, 0, 5))
	appendRows(t, w, good, cols, genRows(cols, 0, 5))
	loc := tbl.MetadataLocation()
	path := strings.TrimPrefix(loc, "file://")
	if err := os.WriteFile(path, []byte("{ this is not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := w.LoadTable(ctx, bad)
	if !errors.Is(err, ErrCorruptMetadata) || !strings.Contains(err.Error(), "public.bad") || !strings.Contains(err.Error(), loc) {
		t.Fatalf("corrupt metadata: %v", err)
	}
	t.Log(err)
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error spans lines: %q", err)
	}
	if _, err := w.LoadTable(ctx, good); err != nil {
		t.Fatalf("other table broken: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := w.LoadTable(ctx, bad); !errors.Is(err, ErrCorruptMetadata) || !strings.Contains(err.Error(), loc) {
		t.Fatalf("missing metadata: %v", err)
	}
	names, err := w.Tables().ListTables(ctx, "public")
	if err != nil || len(names) != 2 {
		t.Fatalf("list with a corrupt table: %v %v", names, err)
	}
	// A broken table can still be dropped.
	if err := w.Tables().DropTable(ctx, bad, true); err != nil {
		t.Fatalf("drop corrupt table: %v", err)
	}
}

func TestFormatVersionUpgrade(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()[:4]
	ident := Ident("public", "fv")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, map[string]string{"write.delete.mode": "merge-on-read"})
	if err != nil {
		t.Fatal(err)
	}
	if v := tbl.Metadata().Version(); v != 2 {
		t.Fatalf("default version %d", v)
	}
	appendRows(t, w, ident, cols, genRows(cols, 0, 5))
	tbl, err = w.Tables().SetProperties(ctx, ident, map[string]string{"format-version": "3", "k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Metadata().Version() != 3 || tbl.Properties()["k"] != "v" {
		t.Fatalf("after upgrade: v%d props %v", tbl.Metadata().Version(), tbl.Properties())
	}
	if _, err := w.Tables().SetProperties(ctx, ident, map[string]string{"format-version": "2"}); !errors.Is(err, ErrFormatDowngrade) {
		t.Fatalf("downgrade: %v", err)
	}
	if _, err := w.Tables().SetProperties(ctx, ident, map[string]string{"format-version": "9"}); !errors.Is(err, ErrInvalidProperty) {
		t.Fatalf("bad version: %v", err)
	}
	// v3 appends after the upgrade work and keep the old rows.
	tbl = appendRows(t, w, ident, cols, genRows(cols, 5, 9))
	_, got := scanAll(t, tbl, ScanOptions{})
	assertSameRows(t, got, genRows(cols, 0, 9))

	tbl, err = w.Tables().RemoveProperties(ctx, ident, []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tbl.Properties()["k"]; ok || tbl.Properties()["write.delete.mode"] != "merge-on-read" {
		t.Fatalf("after remove: %v", tbl.Properties())
	}
	if _, err := w.Tables().RemoveProperties(ctx, ident, []string{"format-version"}); !errors.Is(err, ErrInvalidProperty) {
		t.Fatalf("reset format-version: %v", err)
	}
}

func TestDropPurgeRemovesFiles(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := allTypeCols()[:3]
	ident := Ident("public", "purged")
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := appendRows(t, w, ident, cols, genRows(cols, 0, 5))
	dir := strings.TrimPrefix(tbl.Location(), "file://")
	if n := countFiles(t, dir, ""); n == 0 {
		t.Fatal("no files written")
	}
	if err := w.Tables().DropTable(ctx, ident, true); err != nil {
		t.Fatal(err)
	}
	if n := countFiles(t, dir, ""); n != 0 {
		t.Fatalf("%d files left after purge", n)
	}
	if _, err := w.LoadTable(ctx, ident); !errors.Is(err, ErrNoSuchTable) {
		t.Fatalf("load after drop: %v", err)
	}
}

// countFiles counts regular files under dir whose name ends with suffix.
func countFiles(t *testing.T, dir, suffix string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenBadSettings(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{"type": "nosuch"}, "type"},
		{map[string]string{"type": "sql", "uri": "file:/x.db"}, "sql.dialect"},
		{map[string]string{"type": "sql", "uri": "file:/x.db", "sql.dialect": "sqlite", "sql.driver": "nodriver"}, "sql.driver"},
		{map[string]string{"type": "sql", "sql.dialect": "sqlite"}, "uri"},
		{map[string]string{"uri": "not a uri"}, "uri"},
	} {
		_, err := Open(ctx, Config{DataDir: t.TempDir(), CatalogProps: c.props})
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line naming %q", c.props, err, c.want)
		}
	}
	if _, err := Open(ctx, Config{}); err == nil || !strings.Contains(err.Error(), "DataDir") {
		t.Errorf("no data dir: %v", err)
	}
}

// TestOpenExternalSQLCatalog opens the same kind of catalog through catalog.Load.
func TestOpenExternalSQLCatalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Open(ctx, Config{
		CatalogProps: map[string]string{"type": "sql", "sql.dialect": "sqlite", "uri": "file:" + filepath.Join(dir, "ext.db")},
		WarehouseURI: "file://" + filepath.Join(dir, "wh"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cols := allTypeCols()[:3]
	ident := Ident("public", "ext")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tbl.Location(), "file://"+filepath.Join(dir, "wh")) {
		t.Fatalf("location %s", tbl.Location())
	}
	tbl = appendRows(t, w, ident, cols, genRows(cols, 0, 4))
	_, got := scanAll(t, tbl, ScanOptions{})
	assertSameRows(t, got, genRows(cols, 0, 4))
}
