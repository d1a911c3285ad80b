package iceberg

import (
	"context"
	"github.com/apache/arrow-go/v18/arrow"
	ice "github.com/apache/iceberg-go"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// vanishingIO lists the local table directory, but the first time the walk
// reaches a file of victimDir it removes victim, a file of that directory
// already listed and not yet looked at: what another statement's clean-up
// does to an orphan scan that runs meanwhile.
type vanishingIO struct {
	iceio.LocalFS
	victimDir, victim string
	done              bool
}

func (v *vanishingIO) WalkDir(root string, fn iofs.WalkDirFunc) error {
	return v.LocalFS.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !v.done && filepath.Dir(plainPath(p)) == v.victimDir && plainPath(p) != v.victim {
			v.done = true
			if rerr := os.Remove(v.victim); rerr != nil {
				return rerr
			}
		}
		return fn(p, d, err)
	})
}

// TestOrphanScanSkipsFilesRemovedMeanwhile: a file removed between the
// listing of its directory and the look at it fails iceberg-go's orphan
// scan; through settledListing it is left out, and the scan still finds
// the real orphan.
func TestOrphanScanSkipsFilesRemovedMeanwhile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir)
	ident := table.Identifier{"public", "t"}
	cols := []testCol{{"id", ice.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }}}
	if _, err := w.CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	dataDir := filepath.Join(plainPath(tbl.Location()), "data")
	orphan := filepath.Join(dataDir, "orphan.parquet")
	if err := os.WriteFile(orphan, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	scan := func(settle bool) (table.OrphanCleanupPlan, error) {
		// Named to sort last, so that the walk lists it before reaching it.
		victim := filepath.Join(dataDir, "zz-uncommitted.parquet")
		if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		v := &vanishingIO{victimDir: dataDir, victim: victim}
		fake := table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(),
			func(context.Context) (iceio.IO, error) { return v, nil }, nil)
		if settle {
			var err error
			if fake, err = settledTable(ctx, fake); err != nil {
				t.Fatal(err)
			}
		}
		plan, err := fake.PlanOrphanFiles(ctx, table.WithFilesOlderThan(0))
		if !v.done {
			t.Fatal("the walk never removed the victim: the test checks nothing")
		}
		return plan, err
	}
	if _, err := scan(false); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("iceberg-go's scan without the settled listing: %v, want the vanished file's error", err)
	}
	plan, err := scan(true)
	if err != nil {
		t.Fatalf("settled scan: %v", err)
	}
	var found []string
	for _, f := range plan.OrphanFiles() {
		found = append(found, filepath.Base(plainPath(f.Path)))
	}
	if len(found) != 1 || found[0] != "orphan.parquet" {
		t.Fatalf("orphans %v, want only orphan.parquet", found)
	}
}
