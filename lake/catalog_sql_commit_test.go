package lake

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// TestSQLCommitReadsInIcebergGo: what the embedded catalog's own commit
// writes (plain, gzip and zstd metadata) is what iceberg-go's SQL catalog reads
// from the same rows: the new snapshot, the metadata log pointing at the
// previous file, the rows.
func TestSQLCommitReadsInIcebergGo(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := pcCols()
	suffix := map[string]string{"none": ".metadata.json", "gzip": ".gz.metadata.json", "zstd": ".zstd.metadata.json"}
	for _, codec := range []string{"none", "gzip", "zstd"} {
		ident := Ident(DefaultNamespace, "c_"+codec)
		spec := TableSpec{Fields: []PartitionField{{Source: "p", Transform: iceberg.IdentityTransform{}}}}
		props := map[string]string{propFormatVersion: "2", table.MetadataCompressionKey: codec}
		if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), spec, props); err != nil {
			t.Fatal(err)
		}
		first := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
		second := appendRows(t, w, ident, cols, genRows(cols, 10, 20))
		plain, err := w.closer.LoadTable(ctx, ident) // iceberg-go's own catalog, no cache
		if err != nil {
			t.Fatal(err)
		}
		if plain.MetadataLocation() != second.MetadataLocation() || plain.CurrentSnapshot().SnapshotID != second.CurrentSnapshot().SnapshotID {
			t.Fatalf("%s: iceberg-go reads %s, the commit wrote %s", codec, plain.MetadataLocation(), second.MetadataLocation())
		}
		if name := path.Base(plain.MetadataLocation()); !strings.HasSuffix(name, suffix[codec]) || strings.Count(name, ".") != strings.Count(suffix[codec], ".") {
			t.Errorf("%s: metadata file %s", codec, plain.MetadataLocation())
		}
		log := slices.Collect(plain.Metadata().PreviousFiles())
		if len(log) == 0 || log[len(log)-1].MetadataFile != first.MetadataLocation() {
			t.Errorf("%s: metadata log %v does not end with %s", codec, log, first.MetadataLocation())
		}
		assertSameRows(t, icebergGoRows(t, plain), genRows(cols, 0, 20))
	}
}

// TestSQLCommitConflict: a commit planned on a table another writer has
// moved since fails as a conflict, changes nothing, and leaves no metadata
// file behind; a transaction fails whole when one of its tables moved.
func TestSQLCommitConflict(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir)
	cols := pcCols()
	a, b := createPCTable(t, w, "ca", 2), createPCTable(t, w, "cb", 2)
	baseA := appendRows(t, w, a, cols, genRows(cols, 0, 10))
	baseB := appendRows(t, w, b, cols, genRows(cols, 0, 10))
	appendRows(t, w, b, cols, genRows(cols, 10, 12)) // b moves on
	before := metadataFiles(t, dir)

	_, err := CommitChange(ctx, w.Catalog(), baseB, FileChange{AddData: writeRows(t, baseB, 50, 52)})
	if !IsConflict(err) {
		t.Fatalf("stale commit: %v, want a conflict", err)
	}
	stA, err := StageChange(ctx, baseA, FileChange{AddData: writeRows(t, baseA, 60, 62)})
	if err != nil {
		t.Fatal(err)
	}
	stB, err := StageChange(ctx, baseB, FileChange{AddData: writeRows(t, baseB, 70, 72)})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Catalog().(catalog.TransactionalCatalog).CommitTransaction(ctx, []table.TableCommit{
		{Identifier: a, Requirements: stA.Requirements, Updates: stA.Updates},
		{Identifier: b, Requirements: stB.Requirements, Updates: stB.Updates},
	})
	if !IsConflict(err) {
		t.Fatalf("transaction with a stale table: %v, want a conflict", err)
	}
	// A table that moved after it was loaded (no requirement to catch it):
	// the row's compare-and-swap does, and the new metadata file goes.
	sc := unpinned(w.cat).(*sqlCommitCatalog)
	_, err = sc.commit(ctx, []*table.Table{baseA, baseB}, []table.TableCommit{
		{Identifier: a, Updates: stA.Updates}, {Identifier: b, Updates: stB.Updates}})
	if !IsConflict(err) {
		t.Fatalf("swap of a moved row: %v, want a conflict", err)
	}
	if got := metadataFiles(t, dir); !slices.Equal(got, before) {
		t.Errorf("metadata files after the failed commits:\n%v\nbefore:\n%v", got, before)
	}
	nowA, err := w.LoadTable(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if nowA.MetadataLocation() != baseA.MetadataLocation() {
		t.Errorf("%s moved to %s in a transaction that failed", IdentKey(a), nowA.MetadataLocation())
	}
	assertSameRows(t, icebergGoRows(t, nowA), genRows(cols, 0, 10))
}

// metadataFiles lists the *.metadata.json files under dir.
func metadataFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".metadata.json") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(fmt.Errorf("walk %s: %w", dir, err))
	}
	slices.Sort(out)
	return out
}

// unpinned is cat without the read-pinning wrapper Open puts outermost.
func unpinned(cat catalog.Catalog) catalog.Catalog {
	switch c := cat.(type) {
	case *pinningCatalog:
		return c.Catalog
	case *transactionalPinning:
		return c.pinningCatalog.Catalog
	}
	return cat
}
