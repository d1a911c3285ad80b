package lake

import (
	"context"
	"testing"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// TestCommittedHeadsDoNotChain: each commit's head is derived from the
// last. Opening a head's file IO must not go back through every earlier
// head: the table's own IO function (a probe here) is asked once, by the
// first commit, and never again however many commits follow.
func TestCommittedHeadsDoNotChain(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "chain", 2)
	loaded, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	probe := func(ctx context.Context) (iceio.IO, error) {
		calls++
		return loaded.FS(ctx)
	}
	head := table.New(loaded.Identifier(), loaded.Metadata(), loaded.MetadataLocation(), probe, w.Catalog())
	head, err = CommitChange(ctx, w.Catalog(), head, FileChange{AddData: writeRows(t, head, 0, 2)})
	if err != nil {
		t.Fatal(err)
	}
	calls = 0
	for i := 1; i <= 30; i++ {
		files := writeRows(t, head, 2*i, 2*i+2)
		if head, err = CommitChange(ctx, w.Catalog(), head, FileChange{AddData: files}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := head.FS(ctx); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Fatalf("30 later commits and their heads went back to the first table's IO function %d times", calls)
	}
	if n := len(icebergGoRows(t, head)); n != 62 {
		t.Fatalf("read %d rows through the last head, want 62", n)
	}
}
