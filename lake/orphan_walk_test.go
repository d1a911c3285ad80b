package lake

import (
	"context"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

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
		if err == nil && !d.IsDir() && !v.done && filepath.Dir(fileKey(p)) == v.victimDir && fileKey(p) != v.victim {
			v.done = true
			if rerr := os.Remove(v.victim); rerr != nil {
				return rerr
			}
		}
		return fn(p, d, err)
	})
}

// TestOrphanListingSkipsFilesRemovedMeanwhile: a file removed between the
// listing of its directory and the look at it is left out of the listing
// instead of failing it, and the listing still finds the real orphan;
// files younger than the cutoff are not listed.
func TestOrphanListingSkipsFilesRemovedMeanwhile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir)
	ident := table.Identifier{"public", "t"}
	cols := []testCol{{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }}}
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	dataDir := filepath.Join(fileKey(tbl.Location()), "data")
	orphan := filepath.Join(dataDir, "orphan.parquet")
	young := filepath.Join(dataDir, "young.parquet")
	for _, p := range []string{orphan, young} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cutoff := time.Now().Add(time.Hour)
	if err := os.Chtimes(young, cutoff, cutoff); err != nil {
		t.Fatal(err)
	}
	// Named to sort last, so that the walk lists it before reaching it.
	victim := filepath.Join(dataDir, "zz-uncommitted.parquet")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := &vanishingIO{victimDir: dataDir, victim: victim}
	listed, err := listOlder(ctx, v, tbl.Location(), cutoff)
	if err != nil {
		t.Fatalf("listing: %v", err)
	}
	if !v.done {
		t.Fatal("the walk never removed the victim: the test checks nothing")
	}
	known, err := w.maint.tableFiles(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	orphans, err := unreferenced(listed, known)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range orphans {
		found = append(found, filepath.Base(fileKey(f.path)))
	}
	if len(found) != 1 || found[0] != "orphan.parquet" {
		t.Fatalf("orphans %v, want only orphan.parquet", found)
	}
}

// TestUnreferencedRefusesOtherSpelling: a listed object that a reference
// names under another scheme or bucket spelling stops the removal.
func TestUnreferencedRefusesOtherSpelling(t *testing.T) {
	known := map[string]bool{fileKey("s3a://lake/wh/t/data/a.parquet"): true}
	if got, err := unreferenced([]listedFile{{path: "s3://lake/wh/t/data/a.parquet"}}, known); err != nil || len(got) != 0 {
		t.Fatalf("s3a vs s3: %v, %v; want the same file", got, err)
	}
	if _, err := unreferenced([]listedFile{{path: "s3://LAKE/wh/t/data/a.parquet"}}, known); err == nil {
		t.Fatal("another authority, same object path: removed without a word")
	}
	got, err := unreferenced([]listedFile{{path: "s3://lake/wh/t/data/b.parquet"}}, known)
	if err != nil || len(got) != 1 {
		t.Fatalf("a real orphan: %v, %v", got, err)
	}
}
