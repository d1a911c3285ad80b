package lake

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestLoadTableCache: a table is parsed once per metadata file, and a
// commit by another process (another Warehouse on the same data directory)
// or a drop and re-create are seen at once.
func TestLoadTableCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openTest(t, dir), openTest(t, dir)
	ident := createPCTable(t, a, "c", 2)
	first, err := a.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatal("an unchanged table was parsed again")
	}
	cols := pcCols()
	other := appendRows(t, b, ident, cols, genRows(cols, 0, 5))
	now, err := a.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if now.MetadataLocation() != other.MetadataLocation() || now.CurrentSnapshot() == nil {
		t.Fatalf("after another process's commit: loaded %s, the catalog has %s", now.MetadataLocation(), other.MetadataLocation())
	}
	assertSameRows(t, icebergGoRows(t, now), genRows(cols, 0, 5))

	// Sessions loading a new version at once share one parse.
	appendRows(t, b, ident, cols, genRows(cols, 5, 6))
	got := make([]*table.Table, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], _ = a.LoadTable(ctx, ident) })
	}
	wg.Wait()
	for _, g := range got {
		if g == nil || g != got[0] || g.MetadataLocation() == now.MetadataLocation() {
			t.Fatal("concurrent loads of one new version did not share one table")
		}
	}

	if err := b.Tables().DropTable(ctx, ident, true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.LoadTable(ctx, ident); err == nil {
		t.Fatal("a dropped table still loads")
	}
	createPCTable(t, b, "c", 3)
	fresh, err := a.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Metadata().Version() != 3 || fresh.CurrentSnapshot() != nil {
		t.Fatalf("re-created table loads as v%d with a snapshot: %v", fresh.Metadata().Version(), fresh.CurrentSnapshot() != nil)
	}
}
